package bots

import (
	"fmt"
	"strconv"

	"github.com/azuld/azuld/engine"
)

// HintPlayouts bounds the search of a hint: the strongest level (level 6)
// with a playout bound instead of its thinking time, so that a hint costs
// a known, modest amount of CPU (about 100 ms, what 1,000 playouts took in
// Azul Mini on a loaded machine; less in Summer Pavilion) and the same
// position always gets the same hint.
const HintPlayouts = 1000

// Hint is the strongest level's suggestion for seat in s (a seat that
// must act), with the reasons for it in language-neutral form.
type Hint struct {
	Move    engine.Move
	Reasons []Reason
}

// The kinds of a hint's reasons, each a fact of what the move does.
const (
	// ReasonCompletesLine: the tiles fill pattern line Line (Colour).
	ReasonCompletesLine = "completes_line"
	// ReasonScores: the seat scores Points with the move and what it
	// brings about at once (the wall tiling of a round it ends, a
	// placement's points).
	ReasonScores = "scores"
	// ReasonCompletes: a placement completes Feature.
	ReasonCompletes = "completes"
	// ReasonStartMarker: the move takes the start marker (Azul) or the
	// start token (Summer Pavilion), and with it the next round's first
	// turn.
	ReasonStartMarker = "start_marker"
	// ReasonWilds: the take brings Count wild tiles beside its colour.
	ReasonWilds = "wilds"
	// ReasonBonus: a placement earns bonus tiles (Tiles).
	ReasonBonus = "bonus"
	// ReasonKeeps: a pass keeps Tiles for the next round.
	ReasonKeeps = "keeps"
	// ReasonFloor: Count tiles of Colour go to the floor line: a cost the
	// hint says rather than hides.
	ReasonFloor = "floor"
	// ReasonSearch: nothing above applies; the search rates the move
	// best (keeping options, denying the others).
	ReasonSearch = "search"
)

// Reason is one fact of a hint's move. Only the fields its Kind speaks of
// are set.
type Reason struct {
	Kind    string
	Colour  string
	Line    int
	Count   int
	Points  int
	Feature engine.Feature
	// Family is the rule set's family word for the start marker's kind:
	// "azul" or "pavilion" (from the event's phrase, not the state's type).
	Family string
	Tiles  []engine.Tiles
}

// Suggest is the hint for seat in s under rules: level 6's choice with
// HintPlayouts playouts (salt varies it between turns, as a bot's) and
// the reasons read from what the move does.
func Suggest(rules engine.Rules, s engine.State, seat int, salt uint64) (Hint, error) {
	m, err := Bot{Kind: Level6, Playouts: HintPlayouts}.Choose(s, seat, salt)
	if err != nil {
		return Hint{}, fmt.Errorf("hint for seat %d: %w", seat, err)
	}
	reasons, err := Reasons(rules, s, seat, m)
	if err != nil {
		return Hint{}, fmt.Errorf("hint for seat %d: %w", seat, err)
	}
	return Hint{Move: m, Reasons: reasons}, nil
}

// Reasons reads what move m of seat does in s through the engine's seams
// alone: the events Decide makes of it (their Descriptions) and the board
// after its own event (the seat's Drawing). Decide is given a zero seed:
// a move that ends a round draws the next deal from it, which the reasons
// never read, so no reason can tell what the real seed will deal.
func Reasons(rules engine.Rules, s engine.State, seat int, m engine.Move) ([]Reason, error) {
	events, err := rules.Decide(s, seat, m.Command, engine.Seed{})
	if err != nil {
		return nil, fmt.Errorf("reasons of %s: %w", m.Notation, err)
	}
	var out []Reason
	points := 0
	for i, ev := range events {
		d := ev.Describe()
		if d.Phrase == engine.PhraseRoundStarted {
			break // the next deal: drawn from the zero seed, not the game's
		}
		if d.Seat != seat {
			continue
		}
		if d.Scoring || d.Phrase == engine.PhrasePavilionPlaced {
			points += d.Points
		}
		switch d.Phrase {
		case engine.PhraseAzulTaken:
			if d.Marker {
				out = append(out, Reason{Kind: ReasonStartMarker, Family: "azul"})
			}
			if i == 0 && placedTo(d, engine.PlaceLine) > 0 {
				full, err := lineFull(rules, s, ev, seat, d.Line)
				if err != nil {
					return nil, fmt.Errorf("reasons of %s: %w", m.Notation, err)
				}
				if full {
					out = append(out, Reason{Kind: ReasonCompletesLine, Line: d.Line, Colour: d.Colour})
				}
			}
			if n := placedTo(d, engine.PlaceFloor); n > 0 {
				out = append(out, Reason{Kind: ReasonFloor, Count: n, Colour: d.Colour})
			}
		case engine.PhrasePavilionTaken:
			if d.Marker {
				out = append(out, Reason{Kind: ReasonStartMarker, Family: "pavilion"})
			}
			if d.Wilds > 0 {
				out = append(out, Reason{Kind: ReasonWilds, Count: d.Wilds})
			}
		case engine.PhrasePavilionPlaced:
			for _, f := range d.Features {
				out = append(out, Reason{Kind: ReasonCompletes, Feature: f})
			}
		case engine.PhrasePavilionBonus:
			if len(d.Tiles) > 0 {
				out = append(out, Reason{Kind: ReasonBonus, Tiles: d.Tiles})
			}
		case engine.PhrasePavilionPassed:
			if len(d.Tiles) > 0 {
				out = append(out, Reason{Kind: ReasonKeeps, Tiles: d.Tiles})
			}
		}
	}
	if points > 0 {
		// First: the points are what a player weighs first.
		out = append([]Reason{{Kind: ReasonScores, Points: points}}, out...)
	}
	if len(out) == 0 || (len(out) == 1 && out[0].Kind == ReasonFloor) {
		out = append(out, Reason{Kind: ReasonSearch})
	}
	return out, nil
}

// placedTo is how many of a take's tiles went to a place.
func placedTo(d engine.Description, place string) int {
	for _, p := range d.To {
		if p.Place == place {
			return p.Count
		}
	}
	return 0
}

// lineFull reports whether pattern line (1-based) of seat is full once
// the take ev is applied to s: every space of the row's lead in the
// seat's drawing holds a tile.
func lineFull(rules engine.Rules, s engine.State, ev engine.Event, seat, line int) (bool, error) {
	after, err := rules.Evolve(s, ev)
	if err != nil {
		return false, err
	}
	players := after.View().Players
	if seat < 0 || seat >= len(players) {
		return false, nil
	}
	b, ok := players[seat].Board.(engine.Board)
	if !ok {
		return false, nil
	}
	label := strconv.Itoa(line)
	for _, row := range b.Drawing().Rows {
		if row.Label != label || len(row.Lead) == 0 {
			continue
		}
		for _, sp := range row.Lead {
			if sp.Tile == "" {
				return false, nil
			}
		}
		return true, nil
	}
	return false, nil
}
