package pavilion

import (
	"strconv"
)

// EventKind is the kind of an event.
type EventKind uint8

// Event kinds; their stable type names are in EventKind.String.
const (
	EvGameStarted EventKind = iota + 1
	EvRoundStarted
	EvTilesTaken
	EvAcquisitionEnded
	EvTilePlaced
	EvBonusTaken
	EvSupplyRefilled
	EvPassed
	EvResigned
	EvGameEnded
)

var eventTypeNames = [...]string{
	"", "game_started", "round_started", "tiles_taken", "acquisition_ended",
	"tile_placed", "bonus_taken", "supply_refilled", "passed", "resigned", "game_ended",
}

// String is the stable snake_case type name.
func (k EventKind) String() string {
	if int(k) < len(eventTypeNames) {
		return eventTypeNames[k]
	}
	return "unknown"
}

// SchemaVersion is the version of every event's JSON shape.
const SchemaVersion = 1

// MaxDraws is the most tiles one reveal draws: the supply and every factory
// of the first deal.
const MaxDraws = SupplySize + MaxFactories*FactorySize

// Event is a Summer Pavilion event: a past-tense fact in a fixed-size value
// (a tagged union; only the fields of its Kind are used, the others are
// zero). Events fold into a State with State.Apply.
//
//	game_started      Ruleset, Players, BoardOpt, CustomWild, WildOrder; Seat = first seat
//	round_started     Round, Wild, Seat = start seat, Returned (kept tiles back
//	                  to hand), Draws: SupplyN supply tiles then FactoryN[i]
//	                  tiles per factory in draw order, Poured (tower→bag)
//	tiles_taken       Seat, Source, Colour×Count + WildTaken wilds, Tiles (to the
//	                  centre), Token, Lost, Score
//	acquisition_ended Seat = first to play, Token (false: Decision S1)
//	tile_placed       Seat, Star, Space, Colour, Cost, Wilds, Points, Score,
//	                  Features (completed), Earned (bonus tiles)
//	bonus_taken       Seat, Tiles, Earned, Auto
//	supply_refilled   Draws[:SupplyN], Poured
//	passed            Seat, Tiles (kept), Discarded, Lost, Score, Auto
//	resigned          Seat
//	game_ended        Reason, Final[:Players]
type Event struct {
	Kind EventKind
	Seat int8

	Ruleset    uint8
	Players    uint8
	BoardOpt   uint8
	CustomWild bool
	WildOrder  [Rounds]Colour

	Round        uint8
	Wild         Colour
	NumFactories uint8
	SupplyN      uint8
	FactoryN     [MaxFactories]uint8
	Draws        [MaxDraws]Colour
	Poured       uint8
	Returned     [MaxPlayers]Tiles

	Source    int8
	Colour    Colour
	Count     uint8
	WildTaken uint8
	Token     bool
	Lost      uint8
	Score     int16

	Star     int8
	Space    int8
	Cost     uint8
	Wilds    uint8
	Points   uint8
	Features uint32
	Earned   uint8
	Auto     bool

	Tiles     Tiles
	Discarded Tiles

	Reason uint8
	Final  [MaxPlayers]FinalSeat
}

// EventType is the stable type name.
func (e Event) EventType() string { return e.Kind.String() }

// SchemaVersion is the version of the event's JSON shape.
func (e Event) SchemaVersion() int { return SchemaVersion }

// MarshalJSON writes the event's data (the store keeps type and version
// beside it).
func (e Event) MarshalJSON() ([]byte, error) {
	return e.AppendJSON(make([]byte, 0, 256)), nil
}

// AppendJSON appends the event's JSON data to b.
func (e *Event) AppendJSON(b []byte) []byte {
	switch e.Kind {
	case EvGameStarted:
		b = append(b, `{"ruleset":"`...)
		b = append(b, rulesetName(e.Ruleset)...)
		b = append(b, `","players":`...)
		b = appendInt(b, int(e.Players))
		b = append(b, `,"options":{`...)
		sep := false
		switch e.BoardOpt {
		case boardColoured:
			b = append(b, `"board":"coloured"`...)
			sep = true
		case boardMono:
			b = append(b, `"board":"monochrome"`...)
			sep = true
		}
		if e.CustomWild {
			if sep {
				b = append(b, ',')
			}
			b = append(b, `"wild_order":[`...)
			for i, c := range e.WildOrder {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendColour(b, c)
			}
			b = append(b, ']')
		}
		b = append(b, `},"first_seat":`...)
		b = appendInt(b, int(e.Seat))
		b = append(b, '}')
	case EvRoundStarted:
		b = append(b, `{"round":`...)
		b = appendInt(b, int(e.Round))
		b = append(b, `,"wild":`...)
		b = appendColour(b, e.Wild)
		b = append(b, `,"start_seat":`...)
		b = appendInt(b, int(e.Seat))
		b = append(b, `,"kept_to_hand":[`...)
		for i := range int(min(e.Players, MaxPlayers)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTileList(b, e.Returned[i])
		}
		b = append(b, ']')
		at := 0
		if e.SupplyN > 0 {
			b = append(b, `,"supply":`...)
			b = appendDraws(b, e.Draws[:min(int(e.SupplyN), MaxDraws)])
			at = int(e.SupplyN)
		}
		b = append(b, `,"factories":[`...)
		for i := range int(min(e.NumFactories, MaxFactories)) {
			if i > 0 {
				b = append(b, ',')
			}
			n := int(e.FactoryN[i])
			b = appendDraws(b, e.Draws[min(at, MaxDraws):min(at+n, MaxDraws)])
			at += n
		}
		b = append(b, ']')
		if e.Poured > 0 {
			b = append(b, `,"tower_to_bag":`...)
			b = appendInt(b, int(e.Poured))
		}
		b = append(b, '}')
	case EvTilesTaken:
		b = append(b, `{"seat":`...)
		b = appendInt(b, int(e.Seat))
		b = append(b, `,"factory":`...)
		b = appendSource(b, e.Source)
		b = append(b, `,"color":`...)
		b = appendColour(b, e.Colour)
		b = append(b, `,"count":`...)
		b = appendInt(b, int(e.Count))
		b = append(b, `,"wild":`...)
		b = appendInt(b, int(e.WildTaken))
		if e.Source != Center {
			b = append(b, `,"to_center":`...)
			b = appendTileList(b, e.Tiles)
		}
		b = append(b, `,"token":`...)
		b = strconv.AppendBool(b, e.Token)
		b = append(b, `,"points_lost":`...)
		b = appendInt(b, int(e.Lost))
		b = append(b, `,"score":`...)
		b = appendInt(b, int(e.Score))
		b = append(b, '}')
	case EvAcquisitionEnded:
		b = append(b, `{"first_seat":`...)
		b = appendInt(b, int(e.Seat))
		b = append(b, `,"token":`...)
		b = strconv.AppendBool(b, e.Token)
		b = append(b, '}')
	case EvTilePlaced:
		b = append(b, `{"seat":`...)
		b = appendInt(b, int(e.Seat))
		b = append(b, `,"star":`...)
		b = appendInt(b, int(e.Star))
		b = append(b, `,"space":`...)
		b = appendInt(b, int(e.Space))
		b = append(b, `,"color":`...)
		b = appendColour(b, e.Colour)
		b = append(b, `,"cost":`...)
		b = appendInt(b, int(e.Cost))
		b = append(b, `,"wilds":`...)
		b = appendInt(b, int(e.Wilds))
		b = append(b, `,"points":`...)
		b = appendInt(b, int(e.Points))
		b = append(b, `,"score":`...)
		b = appendInt(b, int(e.Score))
		b = append(b, `,"features":[`...)
		first := true
		for f := range NumFeatures {
			if e.Features&(1<<uint(f)) == 0 {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, `{"kind":"`...)
			b = append(b, FeatureKind(f)...)
			b = append(b, `","star":`...)
			b = appendInt(b, FeatureStar(f))
			b = append(b, '}')
		}
		b = append(b, `],"bonus_earned":`...)
		b = appendInt(b, int(e.Earned))
		b = append(b, '}')
	case EvBonusTaken:
		b = append(b, `{"seat":`...)
		b = appendInt(b, int(e.Seat))
		b = append(b, `,"tiles":`...)
		b = appendTileList(b, e.Tiles)
		b = append(b, `,"earned":`...)
		b = appendInt(b, int(e.Earned))
		if e.Auto {
			b = append(b, `,"auto":true`...)
		}
		b = append(b, '}')
	case EvSupplyRefilled:
		b = append(b, `{"tiles":`...)
		b = appendDraws(b, e.Draws[:min(int(e.SupplyN), MaxDraws)])
		if e.Poured > 0 {
			b = append(b, `,"tower_to_bag":`...)
			b = appendInt(b, int(e.Poured))
		}
		b = append(b, '}')
	case EvPassed:
		b = append(b, `{"seat":`...)
		b = appendInt(b, int(e.Seat))
		b = append(b, `,"kept":`...)
		b = appendTileList(b, e.Tiles)
		b = append(b, `,"discarded":`...)
		b = appendTileList(b, e.Discarded)
		b = append(b, `,"points_lost":`...)
		b = appendInt(b, int(e.Lost))
		b = append(b, `,"score":`...)
		b = appendInt(b, int(e.Score))
		if e.Auto {
			b = append(b, `,"auto":true`...)
		}
		b = append(b, '}')
	case EvResigned:
		b = append(b, `{"seat":`...)
		b = appendInt(b, int(e.Seat))
		b = append(b, '}')
	case EvGameEnded:
		b = appendFinalJSON(b, e)
	default:
		b = append(b, "null"...)
	}
	return b
}

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

func appendColour(b []byte, c Colour) []byte {
	b = append(b, '"')
	if c.Valid() {
		b = append(b, colourNames[c]...)
	}
	return append(b, '"')
}

func appendDraws(b []byte, draws []Colour) []byte {
	b = append(b, '[')
	for i, c := range draws {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendColour(b, c)
	}
	return append(b, ']')
}
