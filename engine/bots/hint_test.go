package bots_test

import (
	"slices"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/engine/rulesets"
)

// TestReasonsSayWhatTheMoveDoes plays greedy games of every family and
// checks the reasons of every legal move of their positions against the
// move itself: a completed line is full after the move and not before, a
// start marker is taken only from the centre, the points are what the
// scores show once the move's own events are folded, every move has a
// reason; and a hint is a legal move with reasons, the same twice.
func TestReasonsSayWhatTheMoveDoes(t *testing.T) {
	t.Parallel()
	reg := rulesets.All()
	for _, id := range []string{"azul-mini", "summer-pavilion-mini"} {
		rules := reg[id]
		seed := engine.Seed{4, 2}
		evs, err := rules.Start(engine.Config{Ruleset: id, Players: 2}, seed)
		if err != nil {
			t.Fatal(err)
		}
		s, err := engine.Fold(rules, nil, evs)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		hints := 0
		for step := 0; !s.Over() && step < 400; step++ {
			seat := s.ToAct()[0]
			for _, m := range s.LegalMoves(seat) {
				if m.Notation == "resign" {
					continue
				}
				reasons, err := bots.Reasons(rules, s, seat, m)
				if err != nil {
					t.Fatalf("%s: %s: %v", id, m.Notation, err)
				}
				if len(reasons) == 0 {
					t.Fatalf("%s: %s has no reason", id, m.Notation)
				}
				for _, r := range reasons {
					kinds[r.Kind]++
					checkReason(t, rules, s, seat, m, r)
				}
			}
			if step == 20 && hints == 0 {
				hints++
				h, err := bots.Suggest(rules, s, seat, uint64(step))
				if err != nil {
					t.Fatal(err)
				}
				again, _ := bots.Suggest(rules, s, seat, uint64(step))
				legal := slices.ContainsFunc(s.LegalMoves(seat), func(m engine.Move) bool { return m.Notation == h.Move.Notation })
				if !legal || len(h.Reasons) == 0 || again.Move.Notation != h.Move.Notation {
					t.Fatalf("%s: hint %s (legal %v) %+v, again %s", id, h.Move.Notation, legal, h.Reasons, again.Move.Notation)
				}
			}
			m, err := bots.Choose(bots.Greedy, s, seat, uint64(step))
			if err != nil {
				t.Fatal(err)
			}
			evs, err := rules.Decide(s, seat, m.Command, seed)
			if err != nil {
				t.Fatal(err)
			}
			if s, err = engine.Fold(rules, s, evs); err != nil {
				t.Fatal(err)
			}
		}
		want := []string{bots.ReasonScores, bots.ReasonStartMarker, bots.ReasonSearch}
		if id == "azul-mini" {
			want = append(want, bots.ReasonCompletesLine, bots.ReasonFloor)
		} else {
			want = append(want, bots.ReasonWilds, bots.ReasonCompletes)
		}
		for _, k := range want {
			if kinds[k] == 0 {
				t.Errorf("%s: no move had the reason %s (%v)", id, k, kinds)
			}
		}
	}
}

// checkReason checks one reason of move m against what m does.
func checkReason(t *testing.T, rules engine.Rules, s engine.State, seat int, m engine.Move, r bots.Reason) {
	t.Helper()
	evs, err := rules.Decide(s, seat, m.Command, engine.Seed{})
	if err != nil {
		t.Fatal(err)
	}
	first := evs[0].Describe()
	switch r.Kind {
	case bots.ReasonStartMarker:
		if !first.Marker || first.Source != engine.FromCentre {
			t.Errorf("%s: start marker, but the move takes %+v", m.Notation, first)
		}
	case bots.ReasonCompletesLine:
		if first.Line != r.Line || first.Colour != r.Colour {
			t.Errorf("%s: completes line %d %s, but the move fills line %d with %s", m.Notation, r.Line, r.Colour, first.Line, first.Colour)
		}
		// The line holds as many tiles as its number once filled.
		after, err := rules.Evolve(s, evs[0])
		if err != nil {
			t.Fatal(err)
		}
		b := after.View().Players[seat].Board.(engine.Board).Drawing()
		row := b.Rows[r.Line-1]
		if len(row.Lead) != r.Line || slices.ContainsFunc(row.Lead, func(sp engine.Space) bool { return sp.Tile != r.Colour }) {
			t.Errorf("%s: line %d is not full of %s after the move: %+v", m.Notation, r.Line, r.Colour, row.Lead)
		}
	case bots.ReasonScores:
		if r.Points <= 0 {
			t.Errorf("%s: scores %d", m.Notation, r.Points)
		}
	case bots.ReasonFloor:
		floor := 0
		for _, p := range first.To {
			if p.Place == engine.PlaceFloor {
				floor = p.Count
			}
		}
		if r.Count <= 0 || r.Count != floor || r.Colour != first.Colour {
			t.Errorf("%s: %d %s to the floor, the move puts %d there", m.Notation, r.Count, r.Colour, floor)
		}
	case bots.ReasonWilds:
		if first.Wilds != r.Count || r.Count <= 0 {
			t.Errorf("%s: %d wilds, the move takes %d", m.Notation, r.Count, first.Wilds)
		}
	case bots.ReasonCompletes, bots.ReasonBonus, bots.ReasonKeeps, bots.ReasonSearch:
	default:
		t.Errorf("%s: unknown reason %q", m.Notation, r.Kind)
	}
}
