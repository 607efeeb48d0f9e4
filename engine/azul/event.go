package azul

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/jsonstrict"
)

// EventKind says which fact an Event records.
type EventKind uint8

// The event kinds; EventType gives their stored snake_case names.
const (
	evNone EventKind = iota
	// EvGameStarted: the game was set up (Config, first seat).
	EvGameStarted
	// EvFactoriesFilled: a round began; the tiles drawn into each factory.
	EvFactoriesFilled
	// EvTilesTaken: a player took tiles and placed them.
	EvTilesTaken
	// EvWallTiled: a pattern line's tile moved to the wall and scored.
	EvWallTiled
	// EvLineToFloor: grey wall, a complete line had no legal wall space and
	// all its tiles went to the floor line (docs/rules.md §2.6).
	EvLineToFloor
	// EvFloorScored: a floor line's penalty was paid and the floor cleared.
	EvFloorScored
	// EvGameEnded: the game ended, with the final result.
	EvGameEnded
)

// SchemaVersion is the schema version of every Azul event type.
const SchemaVersion = 1

// String is the stored event type name.
func (k EventKind) String() string {
	switch k {
	case EvGameStarted:
		return "game_started"
	case EvFactoriesFilled:
		return "factories_filled"
	case EvTilesTaken:
		return "tiles_taken"
	case EvWallTiled:
		return "wall_tiled"
	case EvLineToFloor:
		return "line_to_floor"
	case EvFloorScored:
		return "floor_scored"
	case EvGameEnded:
		return "game_ended"
	}
	return "invalid"
}

// Event is one Azul fact. It is a flat comparable value (no pointers, no
// slices) so the hot loops copy it without allocating; which fields mean
// something depends on Kind:
//
//	game_started      Players, Grey, Seat (the first seat: 0)
//	factories_filled  Round, Seat (start seat), Count (factories),
//	                  Deal/DealN (tiles per factory in draw order), LidToBag
//	tiles_taken       Seat, Source, Colour, Count, Line, ToLine, ToFloor,
//	                  ToLid, Marker, ToCenter (a factory's rest)
//	wall_tiled        Seat, Line, Colour, Column, HRun, VRun, Points, ToLid,
//	                  Score
//	line_to_floor     Seat, Line, Colour, Count, ToFloor, ToLid
//	floor_scored      Seat, Floor/FloorLen, Penalty (printed), Points
//	                  (lost), ToLid, Marker, Score
//	game_ended        Round, Reason, Resigned (-1 none), Count (players),
//	                  Final
//
// Lines and columns are 1-based as in the move JSON; unused fields are zero.
type Event struct {
	Kind     EventKind
	Seat     int8
	Players  uint8
	Grey     bool
	Round    uint8
	Source   int8
	Colour   Colour
	Line     int8
	Column   int8
	Count    uint8
	ToLine   uint8
	ToFloor  uint8
	ToLid    uint8
	Marker   bool
	HRun     uint8
	VRun     uint8
	LidToBag uint8
	FloorLen uint8
	Reason   EndReason
	Resigned int8
	Points   int16
	Penalty  int16
	Score    int16
	ToCenter [NumColours]uint8
	Floor    [FloorSize]Colour
	DealN    [MaxFactories]uint8
	Deal     [MaxFactories][FactorySize]Colour
	Final    [MaxPlayers]FinalSeat
}

// FinalSeat is one seat's final result inside a game_ended event.
type FinalSeat struct {
	// Score is the final score; Play the points of the rounds (wall tiles
	// and floor penalties) before the end bonuses.
	Score int16
	Play  int16
	Rank  uint8
	// Rows, Columns and Colours are the complete rows, columns and colours
	// of the wall; WallTiles the tiles on it.
	Rows      uint8
	Columns   uint8
	Colours   uint8
	WallTiles uint8
}

// EventType is the stored snake_case type name.
func (e Event) EventType() string { return e.Kind.String() }

// SchemaVersion is the JSON schema version of the event.
func (e Event) SchemaVersion() int { return SchemaVersion }

// --- JSON shapes (schema version 1) ---

type gameStartedJSON struct {
	Ruleset   string         `json:"ruleset"`
	Players   int            `json:"players"`
	Options   engine.Options `json:"options"`
	FirstSeat int            `json:"first_seat"`
}

type gameEndedJSON struct {
	Round   int                  `json:"round"`
	Reason  string               `json:"reason"`
	Players []engine.FinalPlayer `json:"players"`
	Winners []int                `json:"winners"`
}

// MarshalJSON writes the event's data in its schema-version-1 shape.
func (e Event) MarshalJSON() ([]byte, error) {
	switch e.Kind {
	case EvGameStarted:
		return json.Marshal(gameStartedJSON{
			Ruleset: Ruleset, Players: int(e.Players), Options: options(e.Grey), FirstSeat: int(e.Seat),
		})
	case EvFactoriesFilled, EvTilesTaken, EvWallTiled, EvLineToFloor, EvFloorScored:
		return e.appendJSON(make([]byte, 0, 160)), nil
	case EvGameEnded:
		f := finalOf(&e)
		return json.Marshal(gameEndedJSON{Round: int(e.Round), Reason: f.Reason, Players: f.Players, Winners: f.Winners})
	}
	return nil, fmt.Errorf("azul: cannot encode event kind %d", e.Kind)
}

// DecodeEvent reads a stored event. Schema version 1 is the only version so
// far; when an event's shape changes, the upcaster from the older version
// goes here.
func DecodeEvent(eventType string, schemaVersion int, data []byte) (Event, error) {
	kind := evNone
	for k := EvGameStarted; k <= EvGameEnded; k++ {
		if k.String() == eventType {
			kind = k
		}
	}
	if kind == evNone {
		return Event{}, fmt.Errorf("azul: unknown event type %q", eventType)
	}
	if schemaVersion != SchemaVersion {
		return Event{}, fmt.Errorf("azul: %s schema version %d: only version %d exists", eventType, schemaVersion, SchemaVersion)
	}
	e, err := decodeEvent(kind, data)
	if err != nil {
		return Event{}, fmt.Errorf("azul: decode %s: %w", eventType, err)
	}
	return e, nil
}

// small checks that a decoded number fits the event's fields.
func small(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s %d out of range %d..%d", name, v, lo, hi)
	}
	return nil
}

func decodeEvent(kind EventKind, data []byte) (Event, error) {
	e := Event{Kind: kind}
	switch kind {
	case EvGameStarted:
		var j gameStartedJSON
		if err := jsonstrict.Unmarshal(data, &j); err != nil {
			return e, err
		}
		grey, err := checkConfig(engine.Config{Ruleset: j.Ruleset, Players: j.Players, Options: j.Options})
		if err != nil {
			return e, err
		}
		if err := small("first_seat", j.FirstSeat, 0, j.Players-1); err != nil {
			return e, err
		}
		e.Players, e.Grey, e.Seat = uint8(j.Players), grey, int8(j.FirstSeat)
	case EvFactoriesFilled, EvTilesTaken, EvWallTiled, EvLineToFloor, EvFloorScored:
		return readEvent(kind, data)
	case EvGameEnded:
		var j gameEndedJSON
		if err := jsonstrict.Unmarshal(data, &j); err != nil {
			return e, err
		}
		return decodeGameEnded(j)
	}
	return e, nil
}

func emptyFloor() [FloorSize]Colour {
	var f [FloorSize]Colour
	for i := range f {
		f[i] = NoColour
	}
	return f
}

// decodeGameEnded reads the final result back into the event's fixed
// fields; the breakdown's points must be its counts times the bonus values.
func decodeGameEnded(j gameEndedJSON) (Event, error) {
	e := Event{Kind: EvGameEnded, Resigned: -1}
	reason, ok := parseEndReason(j.Reason)
	if !ok {
		return e, fmt.Errorf("unknown reason %q", j.Reason)
	}
	if err := errors.Join(small("round", j.Round, 0, MaxRounds), small("players", len(j.Players), 2, MaxPlayers)); err != nil {
		return e, err
	}
	e.Round, e.Reason, e.Count = uint8(j.Round), reason, uint8(len(j.Players))
	for i, p := range j.Players {
		if p.Seat != i {
			return e, fmt.Errorf("players[%d] is seat %d: players are listed by seat", i, p.Seat)
		}
		if err := errors.Join(small("score", p.Score, 0, maxScore), small("rank", p.Rank, 1, len(j.Players))); err != nil {
			return e, fmt.Errorf("seat %d: %w", i, err)
		}
		fs := FinalSeat{Score: int16(p.Score), Rank: uint8(p.Rank)}
		if p.Resigned {
			if e.Resigned >= 0 {
				return e, errors.New("more than one seat resigned")
			}
			e.Resigned = int8(i)
		}
		want := []string{"play", "rows", "columns", "colours"}
		if reason == EndResigned {
			want = want[:1]
		}
		if len(p.Breakdown) != len(want) {
			return e, fmt.Errorf("seat %d: breakdown should list %s", i, strings.Join(want, ", "))
		}
		for k, item := range p.Breakdown {
			if item.Item != want[k] {
				return e, fmt.Errorf("seat %d: breakdown item %d is %q, want %q", i, k, item.Item, want[k])
			}
			if err := small(item.Item, item.Count, 0, 25); err != nil {
				return e, fmt.Errorf("seat %d: %w", i, err)
			}
			n := uint8(item.Count)
			per := 0
			switch item.Item {
			case "play":
				if err := small("play points", item.Points, 0, maxScore); err != nil {
					return e, fmt.Errorf("seat %d: %w", i, err)
				}
				fs.WallTiles, fs.Play = n, int16(item.Points)
				continue
			case "rows":
				fs.Rows, per = n, RowBonus
			case "columns":
				fs.Columns, per = n, ColumnBonus
			case "colours":
				fs.Colours, per = n, ColourBonus
			}
			if item.Points != item.Count*per {
				return e, fmt.Errorf("seat %d: %d %s are worth %d points, not %d", i, item.Count, item.Item, item.Count*per, item.Points)
			}
		}
		e.Final[i] = fs
	}
	if (reason == EndResigned) != (e.Resigned >= 0) {
		return e, errors.New("a resigned seat goes with the reason resigned, and only with it")
	}
	var winners []int
	for i := range len(j.Players) {
		if e.Final[i].Rank == 1 {
			winners = append(winners, i)
		}
	}
	if !slices.Equal(winners, j.Winners) {
		return e, fmt.Errorf("winners %v, but the seats ranked 1 are %v", j.Winners, winners)
	}
	return e, nil
}

// finalOf is the engine.Final a game_ended event records.
func finalOf(e *Event) *engine.Final {
	n := min(int(e.Count), MaxPlayers)
	f := &engine.Final{Reason: e.Reason.String(), Players: make([]engine.FinalPlayer, n), Winners: []int{}}
	for seat := range n {
		fs := e.Final[seat]
		p := engine.FinalPlayer{Seat: seat, Score: int(fs.Score), Rank: int(fs.Rank), Resigned: int(e.Resigned) == seat}
		p.Breakdown = append(p.Breakdown, engine.ScoreItem{Item: "play", Count: int(fs.WallTiles), Points: int(fs.Play)})
		if e.Reason != EndResigned {
			p.Breakdown = append(p.Breakdown,
				engine.ScoreItem{Item: "rows", Count: int(fs.Rows), Points: int(fs.Rows) * RowBonus},
				engine.ScoreItem{Item: "columns", Count: int(fs.Columns), Points: int(fs.Columns) * ColumnBonus},
				engine.ScoreItem{Item: "colours", Count: int(fs.Colours), Points: int(fs.Colours) * ColourBonus})
		}
		f.Players[seat] = p
		if fs.Rank == 1 {
			f.Winners = append(f.Winners, seat)
		}
	}
	return f
}

// --- small JSON value types ---

// colorJSON is a colour (or the marker) written by name.
type colourJSON Colour

func (c colourJSON) MarshalJSON() ([]byte, error) {
	if !Colour(c).IsTile() && Colour(c) != Marker {
		return nil, fmt.Errorf("azul: colour %d has no name", c)
	}
	return []byte(`"` + Colour(c).String() + `"`), nil
}

func (c *colourJSON) UnmarshalJSON(data []byte) error {
	var text string
	if err := json.Unmarshal(data, &text); err != nil {
		return fmt.Errorf("a colour is a string: %w", err)
	}
	if text == "marker" {
		*c = colourJSON(Marker)
		return nil
	}
	colour, ok := ParseColour(text)
	if !ok || text != colour.String() {
		return fmt.Errorf("unknown colour %q", text)
	}
	*c = colourJSON(colour)
	return nil
}

// colorCounts is a colour→count object written in wall colour order,
// without zero counts.
type colourCounts [NumColours]uint8

func (cc colourCounts) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for c, n := range cc {
		if n == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, Colour(c).String()...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, '}'), nil
}

func (cc *colourCounts) UnmarshalJSON(data []byte) error {
	var m map[string]int
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*cc = colourCounts{}
	for name, n := range m {
		c, ok := ParseColour(name)
		if !ok || name != c.String() {
			return fmt.Errorf("unknown colour %q", name)
		}
		if n < 0 || n > 100 {
			return fmt.Errorf("%s count %d out of range", name, n)
		}
		cc[c] = uint8(n)
	}
	return nil
}

// options is the normalised Options of a game.
func options(grey bool) engine.Options {
	if grey {
		return engine.Options{Wall: "grey"}
	}
	return engine.Options{}
}

// Ruleset is the rule set id of Azul Mini.
const Ruleset = "azul-mini"

// checkConfig validates a configuration and reports whether it is the grey
// wall.
func checkConfig(cfg engine.Config) (bool, error) {
	if cfg.Ruleset != Ruleset {
		return false, fmt.Errorf("%w: ruleset %q is not %s", engine.ErrBadCommand, cfg.Ruleset, Ruleset)
	}
	if cfg.Players < 2 || cfg.Players > MaxPlayers {
		return false, fmt.Errorf("%w: %s is for 2 to 4 players, not %d", engine.ErrBadCommand, Ruleset, cfg.Players)
	}
	if cfg.Options.Board != "" || len(cfg.Options.WildOrder) > 0 {
		return false, fmt.Errorf("%w: board and wild_order are Summer Pavilion options, not %s options", engine.ErrBadCommand, Ruleset)
	}
	switch cfg.Options.Wall {
	case "", "coloured":
		return false, nil
	case "grey":
		return true, nil
	}
	return false, fmt.Errorf(`%w: wall %q: the wall is "coloured" (the default) or "grey"`, engine.ErrBadCommand, cfg.Options.Wall)
}
