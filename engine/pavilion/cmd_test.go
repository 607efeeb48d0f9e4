package pavilion

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/azuld/azuld/engine"
)

func TestCommandJSONAndNotation(t *testing.T) {
	for _, tc := range []struct {
		in       string // JSON or notation
		json     string // canonical JSON
		notation string // canonical notation
	}{
		{`{"type":"take","factory":1,"color":"orange"}`, `{"type":"take","factory":1,"color":"orange"}`, "F2 orange"},
		{`{"type":"take","factory":"center","color":"orange"}`, `{"type":"take","factory":"center","color":"orange"}`, "C orange"},
		{`{"type":"place","star":4,"space":6,"color":"blue","wilds":3}`, `{"type":"place","star":4,"space":6,"color":"blue","wilds":3}`, "place blue 6 w3"},
		{`{"type":"place","star":"blue","space":6,"color":"blue","wilds":3}`, `{"type":"place","star":4,"space":6,"color":"blue","wilds":3}`, "place blue 6 w3"},
		{`{"type":"place","star":0,"space":6,"color":"blue"}`, `{"type":"place","star":0,"space":6,"color":"blue","wilds":0}`, "place blue s0 6"},
		{`{"type":"place","star":"center","space":2,"color":"red","wilds":1}`, `{"type":"place","star":0,"space":2,"color":"red","wilds":1}`, "place red s0 2 w1"},
		{`{"type":"place","star":2,"space":1,"color":"red","wilds":0}`, `{"type":"place","star":2,"space":1,"color":"red","wilds":0}`, "place red s2 1"},
		{`{"type":"place","star":4,"space":6,"color":"blue","wilds":3,"bonus":["blue","purple"]}`, `{"type":"place","star":4,"space":6,"color":"blue","wilds":3,"bonus":["purple","blue"]}`, "place blue 6 w3 bonus purple blue"},
		{`{"type":"bonus","tiles":["blue","purple"]}`, `{"type":"bonus","tiles":["purple","blue"]}`, "bonus purple blue"},
		{`{"type":"pass","keep":["green","green"]}`, `{"type":"pass","keep":["green","green"]}`, "pass keep green green"},
		{`{"type":"pass"}`, `{"type":"pass","keep":[]}`, "pass"},
		{`{"type":"resign"}`, `{"type":"resign"}`, "resign"},
		{"F1 orange", `{"type":"take","factory":0,"color":"orange"}`, "F1 orange"},
		{"  take c  O ", `{"type":"take","factory":"center","color":"orange"}`, "C orange"},
		{"f9 Purple", `{"type":"take","factory":8,"color":"purple"}`, "F9 purple"},
		{"PLACE Blue S4 6 W3", `{"type":"place","star":4,"space":6,"color":"blue","wilds":3}`, "place blue 6 w3"},
		{"place b 6 w0", `{"type":"place","star":4,"space":6,"color":"blue","wilds":0}`, "place blue 6"},
		{"place y s0 5 w2 bonus b p p", `{"type":"place","star":0,"space":5,"color":"yellow","wilds":2,"bonus":["purple","purple","blue"]}`, "place yellow s0 5 w2 bonus purple purple blue"},
		{"place red 6 bonus", `{"type":"place","star":3,"space":6,"color":"red","wilds":0,"bonus":[]}`, "place red 6 bonus"},
		{"bonus b p", `{"type":"bonus","tiles":["purple","blue"]}`, "bonus purple blue"},
		{"Pass Keep G g", `{"type":"pass","keep":["green","green"]}`, "pass keep green green"},
		{"pass keep", `{"type":"pass","keep":[]}`, "pass"},
		{"resign", `{"type":"resign"}`, "resign"},
	} {
		var c Cmd
		var err error
		if tc.in[0] == '{' {
			c, err = ParseCommand([]byte(tc.in))
		} else {
			c, err = ParseNotation(tc.in)
		}
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		j, err := c.MarshalJSON()
		if err != nil || string(j) != tc.json || c.Notation() != tc.notation {
			t.Errorf("%s: JSON %s, notation %q; want %s, %q", tc.in, j, c.Notation(), tc.json, tc.notation)
		}
		checkRoundTrip(t, c)
	}
}

// checkRoundTrip: parse(print(c)) == c for both forms.
func checkRoundTrip(t testing.TB, c Cmd) {
	t.Helper()
	j, err := c.MarshalJSON()
	if err != nil {
		t.Fatalf("%+v: %v", c, err)
	}
	back, err := ParseCommand(j)
	if err != nil || back != c {
		t.Fatalf("JSON %s reads back as %+v (%v), want %+v", j, back, err, c)
	}
	back, err = ParseNotation(c.Notation())
	if err != nil || back != c {
		t.Fatalf("notation %q reads back as %+v (%v), want %+v", c.Notation(), back, err, c)
	}
}

func TestMalformedCommands(t *testing.T) {
	for _, in := range []string{
		``, `null`, `[]`, `{}`, `{"type":"fly"}`, `{"type":7}`,
		`{"type":"take","factory":9,"color":"red"}`,
		`{"type":"take","factory":-1,"color":"red"}`,
		`{"type":"take","factory":1.5,"color":"red"}`,
		`{"type":"take","factory":"middle","color":"red"}`,
		`{"type":"take","factory":1,"color":"black"}`,
		`{"type":"take","factory":1,"color":"r"}`,
		`{"type":"take","factory":1}`,
		`{"type":"take","factory":1,"color":"red","line":3}`,
		`{"type":"take","factory":1,"color":"red","wilds":3}`,
		`{"type":"place","star":7,"space":1,"color":"red"}`,
		`{"type":"place","star":"black","space":1,"color":"red"}`,
		`{"type":"place","star":1,"space":0,"color":"red"}`,
		`{"type":"place","star":1,"space":1,"color":"red","wilds":6}`,
		`{"type":"place","star":1,"space":1}`,
		`{"type":"bonus"}`,
		`{"type":"bonus","tiles":["red","black"]}`,
		`{"type":"pass","keep":["red"],"tiles":["red"]}`,
		`{"type":"pass","keep":"red"}`,
		`{"type":"resign"} {}`,
		`{"type":"resign","seat":1}`,
	} {
		if c, err := ParseCommand([]byte(in)); !errors.Is(err, engine.ErrBadCommand) {
			t.Errorf("JSON %s: %+v, %v; want ErrBadCommand", in, c, err)
		}
	}
	for _, in := range []string{
		"", "   ", "F0 red", "F10 red", "Fx red", "F1", "F1 red blue", "F1 black", "C", "take",
		"place", "place red", "place black 1", "place red 7", "place red s9 1", "place red s 1",
		"place red s1", "place red 1 w9", "place red 1 wx", "place red 1 x", "place red 1 w1 bonus black",
		"pass red", "pass keep black", "bonus black", "resign now", "hello",
	} {
		if c, err := ParseNotation(in); !errors.Is(err, engine.ErrBadCommand) {
			t.Errorf("notation %q: %+v, %v; want ErrBadCommand", in, c, err)
		}
	}
	// Commands built by hand with out-of-range fields don't print.
	for _, c := range []Cmd{{}, {Kind: 9}, {Kind: CmdTake, Source: 12}, {Kind: CmdPlace, Star: 3, Space: 9}, {Kind: CmdPlace, Star: 3, Space: 1, Colour: 6}} {
		if _, err := c.MarshalJSON(); err == nil || c.Notation() != "invalid" {
			t.Errorf("%+v printed", c)
		}
	}
}

// Every move listed in random games prints and parses back to itself.
func TestLegalMovesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for game := range 20 {
		cfg := engine.Config{Ruleset: RulesetPavilion, Players: 2 + game%3}
		if game%2 == 1 {
			cfg.Options.Board = "monochrome"
		}
		evs, err := Start(cfg, engine.Seed{byte(game)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var s State
		for i := range evs {
			_ = s.Apply(&evs[i])
		}
		for !s.Over() {
			seat := s.actor()
			moves := s.LegalMoves(seat)
			for _, m := range moves {
				c := m.Command.(Cmd)
				checkRoundTrip(t, c)
				if m.Notation != c.Notation() {
					t.Fatalf("move notation %q != %q", m.Notation, c.Notation())
				}
			}
			c := moves[rng.IntN(len(moves))].Command.(Cmd)
			evs, err := Decide(&s, seat, c, engine.Seed{byte(game)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range evs {
				if err := s.Apply(&evs[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{
		`{"type":"take","factory":1,"color":"orange"}`,
		`{"type":"take","factory":"center","color":"purple"}`,
		`{"type":"place","star":4,"space":6,"color":"blue","wilds":3}`,
		`{"type":"place","star":"red","space":1,"color":"red","bonus":["blue","purple"]}`,
		`{"type":"bonus","tiles":["blue","purple"]}`,
		`{"type":"pass","keep":["green","green"]}`,
		`{"type":"pass"}`, `{"type":"resign"}`, `{"type":"take"}`, `{`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCommand(data)
		if err != nil {
			if !errors.Is(err, engine.ErrBadCommand) {
				t.Fatalf("error without ErrBadCommand: %v", err)
			}
			return
		}
		checkRoundTrip(t, c)
		j, _ := c.MarshalJSON()
		c2, _ := ParseCommand(j)
		j2, _ := c2.MarshalJSON()
		if string(j) != string(j2) {
			t.Fatalf("print(parse(print)) %s != %s", j2, j)
		}
	})
}

func FuzzParseNotation(f *testing.F) {
	for _, s := range []string{
		"F1 orange", "C orange", "place blue 6 w3", "place blue s0 6", "place red 4 bonus blue purple",
		"bonus blue purple", "pass keep green green", "pass", "resign", "take f2 g", "place", "F",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseNotation(text)
		if err != nil {
			if !errors.Is(err, engine.ErrBadCommand) {
				t.Fatalf("error without ErrBadCommand: %v", err)
			}
			return
		}
		checkRoundTrip(t, c)
		back, _ := ParseNotation(c.Notation())
		if back.Notation() != c.Notation() {
			t.Fatalf("print(parse(print)) %q != %q", back.Notation(), c.Notation())
		}
	})
}
