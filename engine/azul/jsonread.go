package azul

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// jsonReader reads the flat JSON objects of the frequent events without
// reflection or allocation: objects, arrays, whole numbers and strings,
// with any whitespace and key order (a store may re-serialise the JSON,
// as PostgreSQL's jsonb does). It rejects everything else, so it accepts
// a subset of what encoding/json accepts for the same shapes.
type jsonReader struct {
	data []byte
	pos  int
}

var errJSONSyntax = errors.New("malformed JSON")

func (r *jsonReader) skipSpace() {
	data, pos := r.data, r.pos
	for pos < len(data) {
		switch data[pos] {
		case ' ', '\t', '\n', '\r':
			pos++
		default:
			r.pos = pos
			return
		}
	}
	r.pos = pos
}

// peek returns the next non-space byte (0 at the end).
func (r *jsonReader) peek() byte {
	r.skipSpace()
	if r.pos >= len(r.data) {
		return 0
	}
	return r.data[r.pos]
}

func (r *jsonReader) expect(b byte) error {
	if r.peek() != b {
		return fmt.Errorf("%w: expected %q at offset %d", errJSONSyntax, b, r.pos)
	}
	r.pos++
	return nil
}

// end checks that nothing but whitespace follows.
func (r *jsonReader) end() error {
	if r.peek() != 0 {
		return fmt.Errorf("%w: data after the value at offset %d", errJSONSyntax, r.pos)
	}
	return nil
}

// object calls field for each key; field must read the value.
func (r *jsonReader) object(field func(key []byte) error) error {
	if err := r.expect('{'); err != nil {
		return err
	}
	if r.peek() == '}' {
		r.pos++
		return nil
	}
	for {
		key, err := r.str()
		if err != nil {
			return err
		}
		if err := r.expect(':'); err != nil {
			return err
		}
		if err := field(key); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.pos++
		case '}':
			r.pos++
			return nil
		default:
			return fmt.Errorf("%w: expected , or } at offset %d", errJSONSyntax, r.pos)
		}
	}
}

// array calls elem for each element; elem must read it.
func (r *jsonReader) array(elem func(i int) error) error {
	if err := r.expect('['); err != nil {
		return err
	}
	if r.peek() == ']' {
		r.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.pos++
		case ']':
			r.pos++
			return nil
		default:
			return fmt.Errorf("%w: expected , or ] at offset %d", errJSONSyntax, r.pos)
		}
	}
}

// str reads a string. Strings with escapes are unquoted with strconv (and
// allocate); the names the engine writes have none.
func (r *jsonReader) str() ([]byte, error) {
	if err := r.expect('"'); err != nil {
		return nil, err
	}
	data, start := r.data, r.pos
	end := bytes.IndexByte(data[start:], '"')
	if end < 0 {
		return nil, fmt.Errorf("%w: unterminated string", errJSONSyntax)
	}
	s := data[start : start+end]
	for _, c := range s {
		if c < 0x20 {
			return nil, fmt.Errorf("%w: control character in a string", errJSONSyntax)
		}
		if c == '\\' {
			return r.escapedStr(start)
		}
	}
	r.pos = start + end + 1
	return s, nil
}

// escapedStr reads a string holding escapes, from its first character.
func (r *jsonReader) escapedStr(start int) ([]byte, error) {
	data := r.data
	for i := start; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			var u string
			if err := json.Unmarshal(data[start-1:i+1], &u); err != nil {
				return nil, fmt.Errorf("%w: bad string", errJSONSyntax)
			}
			r.pos = i + 1
			return []byte(u), nil
		}
	}
	return nil, fmt.Errorf("%w: unterminated string", errJSONSyntax)
}

// int reads a whole number in lo..hi.
func (r *jsonReader) int(name string, lo, hi int) (int, error) {
	r.skipSpace()
	start := r.pos
	if r.pos < len(r.data) && r.data[r.pos] == '-' {
		r.pos++
	}
	digits := 0
	n := 0
	for r.pos < len(r.data) && r.data[r.pos] >= '0' && r.data[r.pos] <= '9' {
		if digits < 9 {
			n = n*10 + int(r.data[r.pos]-'0')
		}
		digits++
		r.pos++
	}
	if digits == 0 || digits > 9 || (digits > 1 && r.data[start] == '0') || (r.pos < len(r.data) && (r.data[r.pos] == '.' || r.data[r.pos] == 'e' || r.data[r.pos] == 'E')) {
		return 0, fmt.Errorf("%s: expected a whole number at offset %d", name, start)
	}
	if r.data[start] == '-' {
		n = -n
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%s %d out of range %d..%d", name, n, lo, hi)
	}
	return n, nil
}

// boolean reads true or false.
func (r *jsonReader) boolean(name string) (bool, error) {
	r.skipSpace()
	rest := r.data[r.pos:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		r.pos += 4
		return true, nil
	case len(rest) >= 5 && string(rest[:5]) == "false":
		r.pos += 5
		return false, nil
	}
	return false, fmt.Errorf("%s: expected true or false at offset %d", name, r.pos)
}

// color reads a colour name; withMarker also accepts "marker".
func (r *jsonReader) colour(name string, withMarker bool) (Colour, error) {
	s, err := r.str()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	if c, ok := colourByName(s); ok && (c != Marker || withMarker) {
		return c, nil
	}
	return 0, fmt.Errorf("%s: unknown colour %q", name, s)
}

// colorByName matches the exact lower-case names of the tile colours and
// the marker.
func colourByName(s []byte) (Colour, bool) {
	switch string(s) {
	case "blue":
		return Blue, true
	case "yellow":
		return Yellow, true
	case "red":
		return Red, true
	case "black":
		return Black, true
	case "white":
		return White, true
	case "marker":
		return Marker, true
	}
	return NoColour, false
}

// source reads a factory index or "center".
func (r *jsonReader) source() (int8, error) {
	if r.peek() == '"' {
		s, err := r.str()
		if err != nil {
			return 0, err
		}
		if string(s) == "center" {
			return Center, nil
		}
		return 0, fmt.Errorf("factory %q", s)
	}
	n, err := r.int("factory", 0, MaxFactories-1)
	return int8(n), err
}

// line reads a pattern line 1..5 or "floor".
func (r *jsonReader) line() (int8, error) {
	if r.peek() == '"' {
		s, err := r.str()
		if err != nil {
			return 0, err
		}
		if string(s) == "floor" {
			return Floor, nil
		}
		return 0, fmt.Errorf("line %q", s)
	}
	n, err := r.int("line", 1, 5)
	return int8(n), err
}

// counts reads a colour→count object.
func (r *jsonReader) counts(name string) ([NumColours]uint8, error) {
	var cc [NumColours]uint8
	err := r.object(func(key []byte) error {
		c, ok := colourByName(key)
		if !ok || !c.IsTile() {
			return fmt.Errorf("%s: unknown colour %q", name, key)
		}
		n, err := r.int(name, 0, TilesPerColour)
		cc[c] = uint8(n)
		return err
	})
	return cc, err
}

// jsonWriter appends the JSON of the frequent events.
type jsonWriter []byte

func (w jsonWriter) key(k string) jsonWriter {
	if len(w) > 1 {
		w = append(w, ',')
	}
	w = append(w, '"')
	w = append(w, k...)
	return append(w, '"', ':')
}

func (w jsonWriter) int(k string, v int) jsonWriter {
	return strconv.AppendInt(w.key(k), int64(v), 10)
}

func (w jsonWriter) str(k, v string) jsonWriter {
	w = append(w.key(k), '"')
	w = append(w, v...)
	return append(w, '"')
}
