package events

import (
	"encoding/json"
	"strconv"
)

// decodeMeta reads a stored Meta. Reading a game decodes one meta per
// append, and encoding/json took a third of the time of a load, so the
// shape json.Marshal writes (known keys once each, plain strings, an
// integer seat, any JSON as the command) is read here directly; anything
// else (escapes, other keys, non-ASCII text, ...) goes to encoding/json,
// whose result is the reference (FuzzDecodeMeta checks both agree).
func decodeMeta(data []byte) (Meta, error) {
	if m, ok := fastMeta(data); ok {
		return m, nil
	}
	var m Meta
	if err := json.Unmarshal(data, &m); err != nil {
		return Meta{}, err
	}
	return m, nil
}

// metaReader is a cursor over a JSON text; every method reports false
// for anything outside the fast path.
type metaReader struct {
	b []byte
	i int
}

func (r *metaReader) space() {
	for r.i < len(r.b) && (r.b[r.i] == ' ' || r.b[r.i] == '\t' || r.b[r.i] == '\n' || r.b[r.i] == '\r') {
		r.i++
	}
}

func (r *metaReader) byte(c byte) bool {
	r.space()
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// str reads a string of printable ASCII without escapes.
func (r *metaReader) str() (string, bool) {
	r.space()
	if r.i >= len(r.b) || r.b[r.i] != '"' {
		return "", false
	}
	start := r.i + 1
	for j := start; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			r.i = j + 1
			return string(r.b[start:j]), true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return "", false
		}
	}
	return "", false
}

// integer reads an int without fraction or exponent.
func (r *metaReader) integer() (int, bool) {
	r.space()
	start := r.i
	if r.i < len(r.b) && r.b[r.i] == '-' {
		r.i++
	}
	digits := r.i
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		r.i++
	}
	if r.i == digits || r.i-digits > 15 || (r.b[digits] == '0' && r.i-digits > 1) {
		return 0, false
	}
	if r.i < len(r.b) && (r.b[r.i] == '.' || r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		return 0, false
	}
	n, err := strconv.Atoi(string(r.b[start:r.i]))
	return n, err == nil
}

// literal reads one of true, false, null.
func (r *metaReader) literal(word string) bool {
	r.space()
	if len(r.b)-r.i >= len(word) && string(r.b[r.i:r.i+len(word)]) == word {
		r.i += len(word)
		return true
	}
	return false
}

// raw reads any JSON value of printable ASCII and returns its bytes.
func (r *metaReader) raw() ([]byte, bool) {
	r.space()
	start := r.i
	depth := 0
	for r.i < len(r.b) {
		switch c := r.b[r.i]; {
		case c == '"':
			if _, ok := r.str(); !ok {
				return nil, false
			}
			if depth == 0 {
				return r.b[start:r.i], true
			}
			continue
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth < 0 {
				return nil, false
			}
			if depth == 0 {
				r.i++
				out := r.b[start:r.i]
				// Brackets matched; the rest must be valid JSON too.
				return out, json.Valid(out)
			}
		case depth == 0:
			// A scalar: a number or a literal, up to a delimiter.
			for r.i < len(r.b) && r.b[r.i] != ',' && r.b[r.i] != '}' && r.b[r.i] != ']' && r.b[r.i] > ' ' {
				r.i++
			}
			out := r.b[start:r.i]
			return out, json.Valid(out)
		case c < 0x20 && c != ' ' && c != '\t' && c != '\n' && c != '\r', c >= 0x7f:
			return nil, false
		}
		r.i++
	}
	return nil, false
}

// object reads {"key": value, ...}, calling field for each key; field
// reads the value. Keys may come once each.
func (r *metaReader) object(field func(key string) bool) bool {
	if !r.byte('{') {
		return false
	}
	if r.byte('}') {
		return true
	}
	seen := map[string]bool{}
	for {
		key, ok := r.str()
		if !ok || seen[key] || !r.byte(':') || !field(key) {
			return false
		}
		seen[key] = true
		if r.byte('}') {
			return true
		}
		if !r.byte(',') {
			return false
		}
	}
}

func fastMeta(data []byte) (Meta, bool) {
	var m Meta
	r := &metaReader{b: data}
	ok := r.object(func(key string) bool {
		var ok bool
		switch key {
		case "actor":
			ok = r.object(func(key string) bool {
				var ok bool
				switch key {
				case "kind":
					m.Actor.Kind, ok = r.str()
				case "player_id":
					m.Actor.PlayerID, ok = r.str()
				case "bot":
					m.Actor.Bot, ok = r.str()
				case "seat":
					if r.literal("null") {
						m.Actor.Seat, ok = nil, true
						break
					}
					var seat int
					if seat, ok = r.integer(); ok {
						m.Actor.Seat = &seat
					}
				}
				return ok
			})
		case "channel":
			m.Channel, ok = r.str()
		case "command_id":
			m.CommandID, ok = r.str()
		case "notation":
			m.Notation, ok = r.str()
		case "command":
			var raw []byte
			if raw, ok = r.raw(); ok {
				m.Command = append(json.RawMessage(nil), raw...)
			}
		}
		return ok
	})
	r.space()
	return m, ok && r.i == len(data)
}
