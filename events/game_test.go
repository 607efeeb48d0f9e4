package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/pavilion"
	"github.com/azuld/azuld/events"
)

// playedGame is a complete random game: its events batch by batch, as
// the command path appends them (the start, then one batch per move), and
// the engine's state after each event, for reference.
type playedGame struct {
	rules   engine.Rules
	batches [][]events.NewEvent
	// states[v] is the state JSON after the first v events (states[0] is
	// unused).
	states [][]byte
}

// events counts the game's events.
func (g *playedGame) events() int { return len(g.states) - 1 }

func rulesFor(tb testing.TB, ruleset string) engine.Rules {
	tb.Helper()
	if ruleset == "azul-mini" {
		return azul.New()
	}
	r, err := pavilion.New(ruleset)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// playRandomGame plays cfg to its end with uniformly random legal moves.
func playRandomGame(tb testing.TB, cfg engine.Config, rng *rand.Rand) *playedGame {
	tb.Helper()
	rules := rulesFor(tb, cfg.Ruleset)
	var seed engine.Seed
	for i := range seed {
		seed[i] = byte(rng.Uint32())
	}
	g := &playedGame{rules: rules, states: [][]byte{nil}}
	var state engine.State
	addBatch := func(evs []engine.Event) {
		batch := make([]events.NewEvent, len(evs))
		for i, e := range evs {
			data, err := json.Marshal(e)
			if err != nil {
				tb.Fatal(err)
			}
			batch[i] = events.NewEvent{Type: e.EventType(), Schema: e.SchemaVersion(), Data: data}
			if state, err = rules.Evolve(state, e); err != nil {
				tb.Fatal(err)
			}
			snap, err := state.MarshalJSON()
			if err != nil {
				tb.Fatal(err)
			}
			g.states = append(g.states, snap)
		}
		g.batches = append(g.batches, batch)
	}
	start, err := rules.Start(cfg, seed)
	if err != nil {
		tb.Fatal(err)
	}
	addBatch(start)
	for moves := 0; !state.Over(); moves++ {
		if moves > 5000 {
			tb.Fatalf("%s: no end after %d moves", cfg.Ruleset, moves)
		}
		toAct := state.ToAct()
		seat := toAct[rng.IntN(len(toAct))]
		// Nobody resigns: the games play to their natural end.
		var legal []engine.Move
		for _, m := range state.LegalMoves(seat) {
			if !strings.Contains(string(m.JSON), `"resign"`) {
				legal = append(legal, m)
			}
		}
		if len(legal) == 0 {
			tb.Fatalf("%s: seat %d must act but has no legal move", cfg.Ruleset, seat)
		}
		evs, err := rules.Decide(state, seat, legal[rng.IntN(len(legal))].Command, seed)
		if err != nil {
			tb.Fatal(err)
		}
		addBatch(evs)
	}
	return g
}

// appendGame appends a played game to a new stream, batch by batch.
func appendGame(tb testing.TB, store *events.Store, g *playedGame) string {
	tb.Helper()
	id := newStreamID()
	version := int64(0)
	for i, batch := range g.batches {
		res, err := store.Append(context.Background(), events.AppendRequest{
			StreamID: id, ExpectedVersion: version, Events: batch, Meta: testMeta(i % 4),
		})
		if err != nil {
			tb.Fatal(err)
		}
		version = res.Records[len(res.Records)-1].Version
	}
	return id
}

// engineFolding folds a stream through the engine rules.
func engineFolding(rules engine.Rules, every int) events.Folding[engine.State] {
	return events.Folding[engine.State]{
		Format: rules.StateFormat(),
		Fold: func(s engine.State, recs []events.Record) (engine.State, error) {
			for _, r := range recs {
				e, err := rules.DecodeEvent(r.Type, r.Schema, r.Data)
				if err != nil {
					return s, fmt.Errorf("event %d: %w", r.Version, err)
				}
				if s, err = rules.Evolve(s, e); err != nil {
					return s, fmt.Errorf("event %d: %w", r.Version, err)
				}
			}
			return s, nil
		},
		Decode:        rules.DecodeState,
		Encode:        func(s engine.State) ([]byte, error) { return s.MarshalJSON() },
		SnapshotEvery: every,
	}
}
