package azul

import (
	"fmt"
	"strconv"
)

// appendJSON appends the JSON of the frequent event kinds, written by hand
// (fixed key order, no reflection): they make up nearly every event of a
// game, and replaying a game decodes them all.
func (e *Event) appendJSON(b []byte) []byte {
	w := jsonWriter(append(b, '{'))
	switch e.Kind {
	case EvFactoriesFilled:
		w = w.int("round", int(e.Round)).int("start_seat", int(e.Seat)).key("factories")
		w = append(w, '[')
		for f := range min(int(e.Count), MaxFactories) {
			if f > 0 {
				w = append(w, ',')
			}
			w = append(w, '[')
			for k := range min(int(e.DealN[f]), FactorySize) {
				if k > 0 {
					w = append(w, ',')
				}
				w = append(w, '"')
				w = append(w, e.Deal[f][k].String()...)
				w = append(w, '"')
			}
			w = append(w, ']')
		}
		w = append(w, ']')
		if e.LidToBag > 0 {
			w = w.int("lid_to_bag", int(e.LidToBag))
		}
	case EvTilesTaken:
		w = w.int("seat", int(e.Seat)).key("factory")
		w = appendSource(w, e.Source)
		w = w.str("color", e.Colour.String()).int("count", int(e.Count)).key("line")
		w = appendLine(w, e.Line)
		w = w.int("to_line", int(e.ToLine)).int("to_floor", int(e.ToFloor)).int("to_lid", int(e.ToLid))
		if e.Marker {
			w = append(w.key("marker"), "true"...)
		}
		if e.Source != Center {
			w = w.key("to_center")
			rest, _ := colourCounts(e.ToCenter).MarshalJSON()
			w = append(w, rest...)
		}
	case EvWallTiled:
		w = w.int("seat", int(e.Seat)).int("line", int(e.Line)).str("color", e.Colour.String()).int("column", int(e.Column))
		w = w.int("points", int(e.Points)).int("horizontal", int(e.HRun)).int("vertical", int(e.VRun))
		w = w.int("to_lid", int(e.ToLid)).int("score", int(e.Score))
	case EvLineToFloor:
		w = w.int("seat", int(e.Seat)).int("line", int(e.Line)).str("color", e.Colour.String())
		w = w.int("count", int(e.Count)).int("to_floor", int(e.ToFloor)).int("to_lid", int(e.ToLid))
	case EvFloorScored:
		w = w.int("seat", int(e.Seat)).key("tiles")
		w = append(w, '[')
		for i := range min(int(e.FloorLen), FloorSize) {
			if i > 0 {
				w = append(w, ',')
			}
			w = append(w, '"')
			w = append(w, e.Floor[i].String()...)
			w = append(w, '"')
		}
		w = append(w, ']')
		w = w.int("penalty", int(e.Penalty)).int("points_lost", int(e.Points)).int("to_lid", int(e.ToLid)).int("score", int(e.Score))
	}
	return append(w, '}')
}

// keySet records which keys of an event object were read.
type keySet uint32

// readEvent decodes the frequent event kinds: every key is required except
// the optional ones (marker, to_center, lid_to_bag), unknown keys are
// errors.
func readEvent(kind EventKind, data []byte) (Event, error) {
	e := Event{Kind: kind}
	r := jsonReader{data: data}
	var seen keySet
	var keys []string
	var required keySet
	var err error
	switch kind {
	case EvFactoriesFilled:
		keys = []string{"round", "start_seat", "factories", "lid_to_bag"}
		required = 0b0111
		err = r.object(func(key []byte) error {
			var n int
			var err error
			switch string(key) {
			case "round":
				seen |= 1 << 0
				n, err = r.int("round", 1, MaxRounds)
				e.Round = uint8(n)
			case "start_seat":
				seen |= 1 << 1
				n, err = r.int("start_seat", 0, MaxPlayers-1)
				e.Seat = int8(n)
			case "factories":
				seen |= 1 << 2
				e.Count, e.DealN, e.Deal = 0, [MaxFactories]uint8{}, [MaxFactories][FactorySize]Colour{}
				err = r.array(func(f int) error {
					if f >= MaxFactories {
						return fmt.Errorf("more than %d factories", MaxFactories)
					}
					e.Count++
					return r.array(func(k int) error {
						if k >= FactorySize {
							return fmt.Errorf("factory %d holds more than %d tiles", f, FactorySize)
						}
						c, err := r.colour("factory tile", false)
						e.Deal[f][k] = c
						e.DealN[f]++
						return err
					})
				})
			case "lid_to_bag":
				seen |= 1 << 3
				n, err = r.int("lid_to_bag", 0, NumColours*TilesPerColour)
				e.LidToBag = uint8(n)
			default:
				err = fmt.Errorf("unknown key %q", key)
			}
			return err
		})
		if err == nil && e.Count == 0 {
			err = fmt.Errorf("no factories")
		}
	case EvTilesTaken:
		keys = []string{"seat", "factory", "color", "count", "line", "to_line", "to_floor", "to_lid", "marker", "to_center"}
		required = 0b0011111111
		err = r.object(func(key []byte) error {
			var n int
			var err error
			switch string(key) {
			case "seat":
				seen |= 1 << 0
				n, err = r.int("seat", 0, MaxPlayers-1)
				e.Seat = int8(n)
			case "factory":
				seen |= 1 << 1
				e.Source, err = r.source()
			case "color":
				seen |= 1 << 2
				e.Colour, err = r.colour("color", false)
			case "count":
				seen |= 1 << 3
				n, err = r.int("count", 1, TilesPerColour)
				e.Count = uint8(n)
			case "line":
				seen |= 1 << 4
				e.Line, err = r.line()
			case "to_line":
				seen |= 1 << 5
				n, err = r.int("to_line", 0, 5)
				e.ToLine = uint8(n)
			case "to_floor":
				seen |= 1 << 6
				n, err = r.int("to_floor", 0, FloorSize)
				e.ToFloor = uint8(n)
			case "to_lid":
				seen |= 1 << 7
				n, err = r.int("to_lid", 0, TilesPerColour)
				e.ToLid = uint8(n)
			case "marker":
				seen |= 1 << 8
				e.Marker, err = r.boolean("marker")
			case "to_center":
				seen |= 1 << 9
				e.ToCenter, err = r.counts("to_center")
			default:
				err = fmt.Errorf("unknown key %q", key)
			}
			return err
		})
	case EvWallTiled:
		keys = []string{"seat", "line", "color", "column", "points", "horizontal", "vertical", "to_lid", "score"}
		required = 0b111111111
		err = r.object(func(key []byte) error {
			var n int
			var err error
			switch string(key) {
			case "seat":
				seen |= 1 << 0
				n, err = r.int("seat", 0, MaxPlayers-1)
				e.Seat = int8(n)
			case "line":
				seen |= 1 << 1
				n, err = r.int("line", 1, 5)
				e.Line = int8(n)
			case "color":
				seen |= 1 << 2
				e.Colour, err = r.colour("color", false)
			case "column":
				seen |= 1 << 3
				n, err = r.int("column", 1, 5)
				e.Column = int8(n)
			case "points":
				seen |= 1 << 4
				n, err = r.int("points", 1, 10)
				e.Points = int16(n)
			case "horizontal":
				seen |= 1 << 5
				n, err = r.int("horizontal", 1, 5)
				e.HRun = uint8(n)
			case "vertical":
				seen |= 1 << 6
				n, err = r.int("vertical", 1, 5)
				e.VRun = uint8(n)
			case "to_lid":
				seen |= 1 << 7
				n, err = r.int("to_lid", 0, 4)
				e.ToLid = uint8(n)
			case "score":
				seen |= 1 << 8
				n, err = r.int("score", 0, maxScore)
				e.Score = int16(n)
			default:
				err = fmt.Errorf("unknown key %q", key)
			}
			return err
		})
	case EvLineToFloor:
		keys = []string{"seat", "line", "color", "count", "to_floor", "to_lid"}
		required = 0b111111
		err = r.object(func(key []byte) error {
			var n int
			var err error
			switch string(key) {
			case "seat":
				seen |= 1 << 0
				n, err = r.int("seat", 0, MaxPlayers-1)
				e.Seat = int8(n)
			case "line":
				seen |= 1 << 1
				n, err = r.int("line", 1, 5)
				e.Line = int8(n)
			case "color":
				seen |= 1 << 2
				e.Colour, err = r.colour("color", false)
			case "count":
				seen |= 1 << 3
				n, err = r.int("count", 1, 5)
				e.Count = uint8(n)
			case "to_floor":
				seen |= 1 << 4
				n, err = r.int("to_floor", 0, FloorSize)
				e.ToFloor = uint8(n)
			case "to_lid":
				seen |= 1 << 5
				n, err = r.int("to_lid", 0, 5)
				e.ToLid = uint8(n)
			default:
				err = fmt.Errorf("unknown key %q", key)
			}
			return err
		})
	case EvFloorScored:
		keys = []string{"seat", "tiles", "penalty", "points_lost", "to_lid", "score"}
		required = 0b111111
		err = r.object(func(key []byte) error {
			var n int
			var err error
			switch string(key) {
			case "seat":
				seen |= 1 << 0
				n, err = r.int("seat", 0, MaxPlayers-1)
				e.Seat = int8(n)
			case "tiles":
				seen |= 1 << 1
				e.Floor, e.FloorLen, e.Marker = emptyFloor(), 0, false
				err = r.array(func(i int) error {
					if i >= FloorSize {
						return fmt.Errorf("more than %d floor items", FloorSize)
					}
					c, err := r.colour("floor item", true)
					e.Floor[i] = c
					e.FloorLen++
					e.Marker = e.Marker || c == Marker
					return err
				})
			case "penalty":
				seen |= 1 << 2
				n, err = r.int("penalty", 0, FloorPenalty(FloorSize))
				e.Penalty = int16(n)
			case "points_lost":
				seen |= 1 << 3
				n, err = r.int("points_lost", 0, FloorPenalty(FloorSize))
				e.Points = int16(n)
			case "to_lid":
				seen |= 1 << 4
				n, err = r.int("to_lid", 0, FloorSize)
				e.ToLid = uint8(n)
			case "score":
				seen |= 1 << 5
				n, err = r.int("score", 0, maxScore)
				e.Score = int16(n)
			default:
				err = fmt.Errorf("unknown key %q", key)
			}
			return err
		})
		if err == nil && e.FloorLen == 0 {
			err = fmt.Errorf("an empty floor is not scored")
		}
	}
	if err == nil {
		err = r.end()
	}
	if err == nil && seen&required != required {
		for i, k := range keys {
			if required&(1<<i) != 0 && seen&(1<<i) == 0 {
				return e, fmt.Errorf("key %s is missing", strconv.Quote(k))
			}
		}
	}
	return e, err
}

// maxScore bounds the scores an event may carry.
const maxScore = 10000
