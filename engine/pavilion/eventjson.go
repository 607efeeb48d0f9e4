package pavilion

import (
	"bytes"
	"errors"
	"fmt"
)

// DecodeEvent decodes a stored event of the given type and schema version.
// Older schema versions are upcast here (there are none yet).
func DecodeEvent(eventType string, schemaVersion int, data []byte) (Event, error) {
	var e Event
	kind := EventKind(0)
	for k := EvGameStarted; k <= EvGameEnded; k++ {
		if eventTypeNames[k] == eventType {
			kind = k
		}
	}
	if kind == 0 {
		return e, fmt.Errorf("unknown Summer Pavilion event type %q", eventType)
	}
	if schemaVersion != SchemaVersion {
		return e, fmt.Errorf("%s: unknown schema version %d", eventType, schemaVersion)
	}
	e.Kind = kind
	if kind == EvGameStarted {
		e.WildOrder = defaultWildOrder
	}
	r := jreader{b: data}
	if kind == EvGameEnded {
		r.final(&e)
	} else {
		r.decodeEvent(&e)
	}
	r.ws()
	if r.err == nil && r.i != len(r.b) {
		r.fail("data after the event object")
	}
	if r.err != nil {
		return Event{}, fmt.Errorf("%s: %w", eventType, r.err)
	}
	return e, nil
}

// jreader is a small JSON reader for the event shapes this package writes:
// objects, arrays, integers, booleans and unescaped strings. Events are
// decoded on every fold of every game, so it avoids reflection and
// allocations.
type jreader struct {
	b   []byte
	i   int
	err error
}

var errJSON = errors.New("malformed event JSON")

func (r *jreader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w at byte %d: %s", errJSON, r.i, fmt.Sprintf(format, args...))
	}
}

func (r *jreader) ws() {
	i, b := r.i, r.b
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	r.i = i
}

// peek is the next non-space byte, 0 at the end or after an error.
func (r *jreader) peek() byte {
	b, i := r.b, r.i
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	r.i = i
	if i >= len(b) || r.err != nil {
		return 0
	}
	return b[i]
}

func (r *jreader) expect(c byte) bool {
	if r.peek() != c {
		r.fail("expected %q", c)
		return false
	}
	r.i++
	return true
}

// str reads a string without escapes and returns its bytes (the caller
// compares them with known names, so no other check is needed).
func (r *jreader) str() []byte {
	if !r.expect('"') {
		return nil
	}
	rest := r.b[r.i:]
	q := bytes.IndexByte(rest, '"')
	if q < 0 {
		r.fail("unterminated string")
		return nil
	}
	s := rest[:q]
	if bytes.IndexByte(s, '\\') >= 0 {
		r.fail("escaped characters in a string")
		return nil
	}
	r.i += q + 1
	return s
}

// integer reads an integer in [lo, hi].
func (r *jreader) integer(lo, hi int) int {
	r.ws()
	i, b := r.i, r.b
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	start, n := i, 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && n <= 1<<20 {
		n = n*10 + int(b[i]-'0')
		i++
	}
	r.i = i
	if i == start || n > 1<<20 {
		r.fail("expected an integer in range")
		return lo
	}
	if neg {
		n = -n
	}
	if n < lo || n > hi {
		r.fail("%d is out of range %d..%d", n, lo, hi)
		return lo
	}
	return n
}

func (r *jreader) boolean() bool {
	r.ws()
	switch {
	case len(r.b)-r.i >= 4 && string(r.b[r.i:r.i+4]) == "true":
		r.i += 4
		return true
	case len(r.b)-r.i >= 5 && string(r.b[r.i:r.i+5]) == "false":
		r.i += 5
		return false
	}
	r.fail("expected true or false")
	return false
}

// key returns the next key of an object, or false at its end.
func (r *jreader) key(first *bool) ([]byte, bool) {
	if r.peek() == '}' {
		r.i++
		return nil, false
	}
	if r.err != nil {
		return nil, false
	}
	if !*first && !r.expect(',') {
		return nil, false
	}
	*first = false
	k := r.str()
	if !r.expect(':') {
		return nil, false
	}
	return k, true
}

// elem reports whether an array has another element.
func (r *jreader) elem(first *bool) bool {
	if r.peek() == ']' {
		r.i++
		return false
	}
	if r.err != nil {
		return false
	}
	if !*first && !r.expect(',') {
		return false
	}
	*first = false
	return true
}

func (r *jreader) colour() Colour {
	s := r.str()
	switch string(s) {
	case "purple":
		return Purple
	case "green":
		return Green
	case "orange":
		return Orange
	case "yellow":
		return Yellow
	case "blue":
		return Blue
	case "red":
		return Red
	}
	r.fail("unknown colour %q", s)
	return 0
}

// tiles reads a list of colour names into counts.
func (r *jreader) tiles() Tiles {
	var t Tiles
	if !r.expect('[') {
		return t
	}
	first := true
	for r.elem(&first) {
		c := r.colour()
		if t[c] >= TilesPerColour {
			r.fail("too many %s tiles", c)
			return t
		}
		t[c]++
	}
	return t
}

// draws reads a list of colour names, in order, into e.Draws[*at:].
func (r *jreader) draws(e *Event, at *int, limit int) int {
	if !r.expect('[') {
		return 0
	}
	n := 0
	first := true
	for r.elem(&first) {
		c := r.colour()
		if n >= limit || *at >= MaxDraws {
			r.fail("too many tiles drawn")
			return n
		}
		e.Draws[*at] = c
		*at++
		n++
	}
	return n
}

func (r *jreader) unknown(k []byte) {
	r.fail("unknown field %q", k)
}

// decodeEvent reads the data of every kind but game_ended into e.
func (r *jreader) decodeEvent(e *Event) {
	if !r.expect('{') {
		return
	}
	var seen uint32
	first := true
	at := 0
	for {
		k, ok := r.key(&first)
		if !ok {
			break
		}
		f := fieldIndex(k)
		if f < 0 {
			r.unknown(k)
			return
		}
		if seen&(1<<uint(f)) != 0 {
			r.fail("field %q twice", k)
			return
		}
		seen |= 1 << uint(f)
		r.field(e, f, &at)
	}
	if r.err != nil {
		return
	}
	want, optional := eventFields(e.Kind)
	if seen&^(want|optional) != 0 {
		r.fail("field not part of %s", e.Kind)
	}
	if seen&want != want {
		r.fail("%s misses a field", e.Kind)
	}
}

// Field indexes of the event JSON keys.
const (
	fRuleset = iota
	fPlayers
	fOptions
	fFirstSeat
	fRound
	fWild
	fStartSeat
	fKeptToHand
	fSupply
	fFactories
	fTowerToBag
	fSeat
	fFactory
	fColour
	fCount
	fToCenter
	fToken
	fPointsLost
	fScore
	fStar
	fSpace
	fCost
	fWilds
	fPoints
	fFeatures
	fBonusEarned
	fTiles
	fEarned
	fAuto
	fKept
	fDiscarded
	numFields
)

func fieldIndex(k []byte) int {
	switch string(k) {
	case "ruleset":
		return fRuleset
	case "players":
		return fPlayers
	case "options":
		return fOptions
	case "first_seat":
		return fFirstSeat
	case "round":
		return fRound
	case "wild":
		return fWild
	case "start_seat":
		return fStartSeat
	case "kept_to_hand":
		return fKeptToHand
	case "supply":
		return fSupply
	case "factories":
		return fFactories
	case "tower_to_bag":
		return fTowerToBag
	case "seat":
		return fSeat
	case "factory":
		return fFactory
	case "color":
		return fColour
	case "count":
		return fCount
	case "to_center":
		return fToCenter
	case "token":
		return fToken
	case "points_lost":
		return fPointsLost
	case "score":
		return fScore
	case "star":
		return fStar
	case "space":
		return fSpace
	case "cost":
		return fCost
	case "wilds":
		return fWilds
	case "points":
		return fPoints
	case "features":
		return fFeatures
	case "bonus_earned":
		return fBonusEarned
	case "tiles":
		return fTiles
	case "earned":
		return fEarned
	case "auto":
		return fAuto
	case "kept":
		return fKept
	case "discarded":
		return fDiscarded
	}
	return -1
}

func bits(fields ...int) uint32 {
	var b uint32
	for _, f := range fields {
		b |= 1 << uint(f)
	}
	return b
}

// eventFields are the required and optional fields of each kind.
func eventFields(k EventKind) (want, optional uint32) {
	switch k {
	case EvGameStarted:
		return bits(fRuleset, fPlayers, fOptions, fFirstSeat), 0
	case EvRoundStarted:
		return bits(fRound, fWild, fStartSeat, fKeptToHand, fFactories), bits(fSupply, fTowerToBag)
	case EvTilesTaken:
		return bits(fSeat, fFactory, fColour, fCount, fWild, fToken, fPointsLost, fScore), bits(fToCenter)
	case EvAcquisitionEnded:
		return bits(fFirstSeat, fToken), 0
	case EvTilePlaced:
		return bits(fSeat, fStar, fSpace, fColour, fCost, fWilds, fPoints, fScore, fFeatures, fBonusEarned), 0
	case EvBonusTaken:
		return bits(fSeat, fTiles, fEarned), bits(fAuto)
	case EvSupplyRefilled:
		return bits(fTiles), bits(fTowerToBag)
	case EvPassed:
		return bits(fSeat, fKept, fDiscarded, fPointsLost, fScore), bits(fAuto)
	case EvResigned:
		return bits(fSeat), 0
	}
	return 0, 0
}

const maxScore = 32767

func (r *jreader) field(e *Event, f int, at *int) {
	switch f {
	case fRuleset:
		switch string(r.str()) {
		case RulesetPavilion:
			e.Ruleset = 0
		case RulesetMini:
			e.Ruleset = 1
		default:
			r.fail("unknown ruleset")
		}
	case fPlayers:
		e.Players = uint8(r.integer(2, MaxPlayers))
	case fOptions:
		r.options(e)
	case fFirstSeat, fStartSeat, fSeat:
		e.Seat = int8(r.integer(0, MaxPlayers-1))
	case fRound:
		e.Round = uint8(r.integer(1, Rounds))
	case fWild:
		if e.Kind == EvTilesTaken {
			e.WildTaken = uint8(r.integer(0, 1))
		} else {
			e.Wild = r.colour()
		}
	case fKeptToHand:
		if !r.expect('[') {
			return
		}
		n := 0
		first := true
		for r.elem(&first) {
			if n >= MaxPlayers {
				r.fail("too many seats")
				return
			}
			e.Returned[n] = r.tiles()
			n++
		}
		e.Players = uint8(n)
	case fSupply:
		if *at != 0 {
			r.fail("supply must come before factories")
			return
		}
		e.SupplyN = uint8(r.draws(e, at, SupplySize))
	case fFactories:
		if !r.expect('[') {
			return
		}
		n := 0
		first := true
		for r.elem(&first) {
			if n >= MaxFactories {
				r.fail("too many factories")
				return
			}
			e.FactoryN[n] = uint8(r.draws(e, at, FactorySize))
			n++
		}
		e.NumFactories = uint8(n)
	case fTowerToBag:
		e.Poured = uint8(r.integer(0, NumColours*TilesPerColour))
	case fFactory:
		if r.peek() == '"' {
			if string(r.str()) != "center" {
				r.fail(`factory is a number or "center"`)
			}
			e.Source = Center
		} else {
			e.Source = int8(r.integer(0, MaxFactories-1))
		}
	case fColour:
		e.Colour = r.colour()
	case fCount:
		e.Count = uint8(r.integer(0, TilesPerColour))
	case fToCenter:
		e.Tiles = r.tiles()
	case fToken:
		e.Token = r.boolean()
	case fPointsLost:
		e.Lost = uint8(r.integer(0, 255))
	case fScore:
		e.Score = int16(r.integer(-maxScore, maxScore))
	case fStar:
		e.Star = int8(r.integer(0, NumStars-1))
	case fSpace:
		e.Space = int8(r.integer(1, 6))
	case fCost:
		e.Cost = uint8(r.integer(1, 6))
	case fWilds:
		e.Wilds = uint8(r.integer(0, 5))
	case fPoints:
		e.Points = uint8(r.integer(1, 6))
	case fFeatures:
		r.features(e)
	case fBonusEarned, fEarned:
		e.Earned = uint8(r.integer(0, 255))
	case fTiles:
		if e.Kind == EvSupplyRefilled {
			e.SupplyN = uint8(r.draws(e, at, SupplySize))
		} else {
			e.Tiles = r.tiles()
		}
	case fAuto:
		e.Auto = r.boolean()
		if !e.Auto {
			r.fail("auto is written only when true")
		}
	case fKept:
		e.Tiles = r.tiles()
	case fDiscarded:
		e.Discarded = r.tiles()
	}
}

func (r *jreader) options(e *Event) {
	if !r.expect('{') {
		return
	}
	first := true
	for {
		k, ok := r.key(&first)
		if !ok {
			return
		}
		switch string(k) {
		case "board":
			switch string(r.str()) {
			case "coloured":
				e.BoardOpt = boardColoured
			case "monochrome":
				e.BoardOpt = boardMono
			default:
				r.fail("unknown board")
			}
		case "wild_order":
			if !r.expect('[') {
				return
			}
			n := 0
			elemFirst := true
			for r.elem(&elemFirst) {
				c := r.colour()
				if n >= Rounds {
					r.fail("wild_order has more than %d colours", Rounds)
					return
				}
				e.WildOrder[n] = c
				n++
			}
			if n != Rounds {
				r.fail("wild_order needs %d colours", Rounds)
			}
			e.CustomWild = true
		default:
			r.unknown(k)
			return
		}
	}
}

func (r *jreader) features(e *Event) {
	if !r.expect('[') {
		return
	}
	first := true
	for r.elem(&first) {
		if !r.expect('{') {
			return
		}
		kind, star := -1, 0
		objFirst := true
		for {
			k, ok := r.key(&objFirst)
			if !ok {
				break
			}
			switch string(k) {
			case "kind":
				switch string(r.str()) {
				case "window":
					kind = 0
				case "statue":
					kind = 1
				case "pillar":
					kind = 2
				default:
					r.fail("unknown feature kind")
				}
			case "star":
				star = r.integer(1, 6)
			default:
				r.unknown(k)
			}
		}
		if r.err != nil {
			return
		}
		if kind < 0 || star == 0 {
			r.fail("a feature needs kind and star")
			return
		}
		e.Features |= 1 << uint(kind*6+star-1)
	}
}
