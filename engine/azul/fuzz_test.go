package azul

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/azuld/azuld/engine"
)

// The fuzz targets also run as ordinary tests on their seed corpora.

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{
		`{"type":"take","factory":2,"color":"red","line":3}`,
		`{"type":"take","factory":"center","color":"blue","line":"floor"}`,
		`{"type":"tile","line":2,"column":4}`,
		`{"type":"resign"}`,
		`{"type":"take","factory":"CENTRE","color":"White","line":"Floor"}`,
		`{"type":"take","factory":1e1,"color":"red","line":3}`,
		`{"type":"tile","line":2,"column":4,"line":3}`,
		`[1,2]`, `null`, `{"type":null}`, "{\"type\":\"take\",\"color\":\"\\u0072ed\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCommand(data)
		if err != nil {
			if !errors.Is(err, engine.ErrBadCommand) {
				t.Fatalf("error %v does not wrap ErrBadCommand", err)
			}
			return
		}
		checkCmdRoundTrip(t, c)
	})
}

func FuzzParseNotation(f *testing.F) {
	for _, s := range []string{
		"F2 red 3", "C blue floor", "tile 2 4", "resign", "take f 9 k fl", "centre w l5", "tile l1 c5",
		"F2, red -> 3.", "F99 red 3", "tile", "", "F2 red 3 3", "\x00", "F２ red 3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseNotation(text)
		if err != nil {
			if !errors.Is(err, engine.ErrBadCommand) {
				t.Fatalf("error %v does not wrap ErrBadCommand", err)
			}
			return
		}
		checkCmdRoundTrip(t, c)
	})
}

// checkCmdRoundTrip: a parsed command is well-formed, and both its forms
// parse back to it (so printing a parsed command is canonical).
func checkCmdRoundTrip(t *testing.T, c Cmd) {
	t.Helper()
	if err := c.check(); err != nil {
		t.Fatalf("parsed %+v is malformed: %v", c, err)
	}
	data, err := c.MarshalJSON()
	if err != nil {
		t.Fatalf("%+v: %v", c, err)
	}
	if back, err := ParseCommand(data); err != nil || back != c {
		t.Fatalf("JSON %s parses to %+v, %v; want %+v", data, back, err, c)
	}
	text := c.Notation()
	if back, err := ParseNotation(text); err != nil || back != c {
		t.Fatalf("notation %q parses to %+v, %v; want %+v", text, back, err, c)
	}
}

// randomState plays moves random legal moves of a random game.
func randomState(t testing.TB, players int, grey bool, seed engine.Seed, moves int) *State {
	cfg := engine.Config{Ruleset: Ruleset, Players: players}
	if grey {
		cfg.Options.Wall = "grey"
	}
	evs, err := Start(cfg, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	var s State
	for _, e := range evs {
		if err := s.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(seed[0]), uint64(moves)))
	for range moves {
		if s.Over() {
			break
		}
		seat := pickSeat(rng, s.ToActMask())
		legal := AppendLegal(nil, &s, seat)
		if evs, err = Decide(&s, seat, legal[rng.IntN(len(legal))], seed, evs[:0]); err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if err := s.Apply(e); err != nil {
				t.Fatal(err)
			}
		}
	}
	return &s
}

func FuzzDecide(f *testing.F) {
	f.Add(byte(0), uint8(0), int8(0), byte(1), int8(0), byte(2), int8(3), int8(0))
	f.Add(byte(1), uint8(40), int8(1), byte(1), int8(-1), byte(0), int8(6), int8(0))
	f.Add(byte(4), uint8(70), int8(0), byte(2), int8(0), byte(0), int8(1), int8(3))
	f.Add(byte(6), uint8(120), int8(3), byte(3), int8(0), byte(0), int8(0), int8(0))
	f.Add(byte(2), uint8(255), int8(-5), byte(200), int8(100), byte(9), int8(-7), int8(99))
	f.Fuzz(func(t *testing.T, game byte, moves uint8, seat int8, kind byte, source int8, colour byte, line, column int8) {
		var seed engine.Seed
		seed[0] = game
		s := randomState(t, 2+int(game%3), game&4 != 0, seed, int(moves))
		cmd := Cmd{Kind: CmdKind(kind), Source: source, Colour: Colour(colour), Line: line, Column: column}
		before := *s
		evs, err := Decide(s, int(seat), cmd, seed, nil)
		if *s != before {
			t.Fatalf("Decide changed the state")
		}
		erased, errErased := New().Decide(s, int(seat), cmd, seed)
		if (err == nil) != (errErased == nil) || len(erased) != len(evs) {
			t.Fatalf("typed and type-erased Decide disagree: %v / %v", err, errErased)
		}
		if err != nil {
			var re *engine.RuleError
			if !errors.As(err, &re) && !errors.Is(err, engine.ErrBadCommand) &&
				!errors.Is(err, engine.ErrNotYourTurn) && !errors.Is(err, engine.ErrGameOver) {
				t.Fatalf("error %v is none of the documented kinds", err)
			}
			return
		}
		for _, e := range evs {
			if err := s.Apply(e); err != nil {
				t.Fatalf("%s accepted but its events do not fold: %v", cmd, err)
			}
		}
		if err := countTiles(s); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzDecodeEvent(f *testing.F) {
	for _, e := range recordGame(f, 2, true, 50)[:12] {
		data, _ := e.MarshalJSON()
		f.Add(e.EventType(), data)
	}
	for _, e := range recordGame(f, 3, false, 51) {
		if e.Kind == EvGameEnded || e.Kind == EvFloorScored {
			data, _ := e.MarshalJSON()
			f.Add(e.EventType(), data)
		}
	}
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		e, err := DecodeEvent(typ, SchemaVersion, data)
		if err != nil {
			return
		}
		again, err := e.MarshalJSON()
		if err != nil {
			t.Fatalf("decoded %+v does not encode: %v", e, err)
		}
		back, err := DecodeEvent(typ, SchemaVersion, again)
		if err != nil || back != e {
			t.Fatalf("%s re-encoded as %s decodes to %+v, %v", data, again, back, err)
		}
		var s State // folding a lone event must fail cleanly or succeed, never panic
		_ = s.Apply(e)
	})
}

func FuzzDecodeState(f *testing.F) {
	for i, moves := range []int{0, 25, 60, 200} {
		var seed engine.Seed
		seed[0] = byte(i)
		data, _ := randomState(f, 2+i%3, i%2 == 1, seed, moves).MarshalJSON()
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeState(data)
		if err != nil {
			return
		}
		again, err := s.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeState(again)
		if err != nil || back != s {
			t.Fatalf("snapshot round trip: %v", err)
		}
		// Every method must work on any state DecodeState accepts.
		_ = s.Text()
		_ = s.View()
		for seat := range s.Players() {
			for _, m := range s.LegalMoves(seat) {
				if _, err := Decide(&s, seat, m.Command.(Cmd), engine.Seed{}, nil); err != nil {
					t.Fatalf("legal move %s rejected: %v", m.Notation, err)
				}
			}
		}
	})
}
