package azul

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine"
)

// TestCommandJSON: the move JSON of docs/architecture.md §5.4, both ways.
func TestCommandJSON(t *testing.T) {
	for _, c := range []struct {
		cmd  Cmd
		json string
	}{
		{Take(2, Red, 3), `{"type":"take","factory":2,"color":"red","line":3}`},
		{Take(0, White, 1), `{"type":"take","factory":0,"color":"white","line":1}`},
		{Take(Center, Blue, Floor), `{"type":"take","factory":"center","color":"blue","line":"floor"}`},
		{Tile(2, 4), `{"type":"tile","line":2,"column":4}`},
		{Resign(), `{"type":"resign"}`},
	} {
		got, err := c.cmd.MarshalJSON()
		if err != nil || string(got) != c.json {
			t.Errorf("%v: JSON %s (%v), want %s", c.cmd, got, err, c.json)
		}
		back, err := ParseCommand([]byte(c.json))
		if err != nil || back != c.cmd {
			t.Errorf("ParseCommand(%s) = %+v, %v; want %+v", c.json, back, err, c.cmd)
		}
		if std, _ := json.Marshal(c.cmd); string(std) != c.json {
			t.Errorf("json.Marshal gives %s", std)
		}
	}
	// Accepted variants.
	for text, want := range map[string]Cmd{
		` { "line" : "FLOOR", "color":"Red", "factory":"centre", "type":"Take" } `: Take(Center, Red, Floor),
		`{"type":"take","factory":8,"color":"black","line":5}`:                     Take(8, Black, 5),
	} {
		if got, err := ParseCommand([]byte(text)); err != nil || got != want {
			t.Errorf("ParseCommand(%s) = %v, %v; want %v", text, got, err, want)
		}
	}
	for _, bad := range []string{
		``, `null`, `[]`, `{}`, `"take"`, `{"type":"pass"}`, `{"type":5}`,
		`{"type":"take","factory":2,"color":"red"}`,
		`{"type":"take","factory":9,"color":"red","line":3}`,
		`{"type":"take","factory":-1,"color":"red","line":3}`,
		`{"type":"take","factory":1.5,"color":"red","line":3}`,
		`{"type":"take","factory":"f2","color":"red","line":3}`,
		`{"type":"take","factory":2,"color":"purple","line":3}`,
		`{"type":"take","factory":2,"color":"r","line":3}`,
		`{"type":"take","factory":2,"color":"red","line":6}`,
		`{"type":"take","factory":2,"color":"red","line":0}`,
		`{"type":"take","factory":2,"color":"red","line":"roof"}`,
		`{"type":"take","factory":2,"color":"red","line":3,"column":1}`,
		`{"type":"take","factory":2,"color":"red","line":3,"extra":1}`,
		`{"type":"take","factory":2,"color":"red","line":3}{}`,
		`{"type":"resign"}}`,
		`{"type":"resign"}]`,
		`{"type":"tile","line":2}`,
		`{"type":"tile","line":"floor","column":2}`,
		`{"type":"tile","line":2,"column":6}`,
		`{"type":"tile","line":2,"column":4,"color":"red"}`,
		`{"type":"resign","line":1}`,
	} {
		if c, err := ParseCommand([]byte(bad)); !errors.Is(err, engine.ErrBadCommand) {
			t.Errorf("ParseCommand(%s) = %v, %v; want ErrBadCommand", bad, c, err)
		}
	}
}

// TestNotation: canonical forms, accepted variants, clear errors.
func TestNotation(t *testing.T) {
	for _, c := range []struct {
		cmd  Cmd
		text string
	}{
		{Take(1, Red, 3), "F2 red 3"},
		{Take(0, Yellow, 5), "F1 yellow 5"},
		{Take(8, Black, Floor), "F9 black floor"},
		{Take(Center, Blue, Floor), "C blue floor"},
		{Take(Center, White, 1), "C white 1"},
		{Tile(2, 4), "tile 2 4"},
		{Resign(), "resign"},
	} {
		if got := c.cmd.Notation(); got != c.text {
			t.Errorf("%+v prints %q, want %q", c.cmd, got, c.text)
		}
		if back, err := ParseNotation(c.text); err != nil || back != c.cmd {
			t.Errorf("ParseNotation(%q) = %+v, %v", c.text, back, err)
		}
	}
	for text, want := range map[string]Cmd{
		"f2 RED 3":             Take(1, Red, 3),
		"  F2   red   3  ":     Take(1, Red, 3),
		"take F2 red 3":        Take(1, Red, 3),
		"F 2 red 3":            Take(1, Red, 3),
		"factory 2 red line 3": Take(1, Red, 3),
		"F2 r 3":               Take(1, Red, 3),
		"F2 red to 3":          Take(1, Red, 3),
		"F2 red -> l3":         Take(1, Red, 3),
		"F2, red, 3.":          Take(1, Red, 3),
		"center blue floor":    Take(Center, Blue, Floor),
		"Centre b f":           Take(Center, Blue, Floor),
		"c k fl":               Take(Center, Black, Floor),
		"F1 w floor":           Take(0, White, Floor),
		"TILE 2 4":             Tile(2, 4),
		"tile 2,4":             Tile(2, 4),
		"tile line 2 column 4": Tile(2, 4),
		"tile l2 c4":           Tile(2, 4),
		"tile 2 col 4":         Tile(2, 4),
		"Resign":               Resign(),
		"resign.":              Resign(),
	} {
		got, err := ParseNotation(text)
		if err != nil || got != want {
			t.Errorf("ParseNotation(%q) = %v, %v; want %v", text, got, err, want)
		}
	}
	for _, bad := range []string{
		"", "   ", "F0 red 3", "F10 red 3", "F2 purple 3", "F2 red 6", "F2 red 0", "F2 red", "F2",
		"red 3", "G2 red 3", "F2 red 3 4", "tile 2", "tile 2 6", "tile 0 1", "tile 1 2 3", "resign now",
		"pass", "C", "Fx red 3", "f red 3", "F2 bl 3",
	} {
		_, err := ParseNotation(bad)
		if !errors.Is(err, engine.ErrBadCommand) {
			t.Errorf("ParseNotation(%q): %v, want ErrBadCommand", bad, err)
		} else if !strings.Contains(err.Error(), "malformed command: ") || len(err.Error()) < 30 {
			t.Errorf("ParseNotation(%q): unclear error %q", bad, err)
		}
	}
}

// TestEventJSON: every event of recorded games encodes the same through
// json.Marshal and MarshalJSON, decodes back equal, also after a store
// reformats it (spaces, another key order); broken data is rejected.
func TestEventJSON(t *testing.T) {
	rules := New()
	for i, grey := range []bool{false, true} {
		for _, e := range recordGame(t, 2+i*2, grey, byte(20+i)) {
			std, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			own, _ := e.MarshalJSON()
			if !bytes.Equal(std, own) {
				t.Fatalf("%s: json.Marshal %s, MarshalJSON %s", e.Kind, std, own)
			}
			back, err := rules.DecodeEvent(e.EventType(), e.SchemaVersion(), std)
			if err != nil || *back.(*Event) != e {
				t.Fatalf("%s %s: decoded %+v, %v", e.Kind, std, back, err)
			}
			// Reformat as a store might: indent and reverse the key order.
			var m map[string]json.RawMessage
			if err := json.Unmarshal(std, &m); err != nil {
				t.Fatal(err)
			}
			reformatted, _ := json.MarshalIndent(m, "", "  ") // keys sorted, not in written order
			if back, err := DecodeEvent(e.EventType(), 1, reformatted); err != nil || back != e {
				t.Fatalf("%s reformatted %s: %+v, %v", e.Kind, reformatted, back, err)
			}
		}
	}
	for _, c := range []struct{ typ, data string }{
		{"tiles_taken", `{"seat":0,"factory":1,"color":"red","count":2,"line":3,"to_line":2,"to_floor":0}`},
		{"tiles_taken", `{"seat":0,"factory":1,"color":"red","count":2,"line":3,"to_line":2,"to_floor":0,"to_lid":0,"bonus":1}`},
		{"tiles_taken", `{"seat":0,"factory":1,"color":"pink","count":2,"line":3,"to_line":2,"to_floor":0,"to_lid":0}`},
		{"tiles_taken", `{"seat":9,"factory":1,"color":"red","count":2,"line":3,"to_line":2,"to_floor":0,"to_lid":0}`},
		{"tiles_taken", `{"seat":0,"factory":1,"color":"red","count":2,"line":3,"to_line":2,"to_floor":0,"to_lid":0} x`},
		{"wall_tiled", `{"seat":0,"line":1,"color":"red","column":6,"points":1,"horizontal":1,"vertical":1,"to_lid":0,"score":1}`},
		{"factories_filled", `{"round":1,"start_seat":0,"factories":[["red","red","red","red","red"]]}`},
		{"factories_filled", `{"round":1,"start_seat":0,"factories":[]}`},
		{"floor_scored", `{"seat":0,"tiles":[],"penalty":0,"points_lost":0,"to_lid":0,"score":0}`},
		{"game_started", `{"ruleset":"azul-mini","players":7,"options":{},"first_seat":0}`},
		{"game_started", `{"ruleset":"azul-mini","players":2,"options":{"wall":"purple"},"first_seat":0}`},
		{"game_ended", `{"round":3,"reason":"bored","players":[],"winners":[]}`},
		{"tiles_taken", `{`},
		{"tiles_taken", `"`},
	} {
		if _, err := DecodeEvent(c.typ, 1, []byte(c.data)); err == nil {
			t.Errorf("%s %s decoded", c.typ, c.data)
		}
	}
	escaped := `{"seat":0,"factory":"\u0063enter","color":"\u0072ed","count":2,"line":"floor","to_line":0,"to_floor":2,"to_lid":0}`
	if e, err := DecodeEvent("tiles_taken", 1, []byte(escaped)); err != nil || e.Colour != Red || e.Source != Center {
		t.Errorf("escaped strings: %+v, %v", e, err)
	}
	if _, err := DecodeEvent("tiles_taken", 2, []byte(`{}`)); err == nil {
		t.Errorf("an unknown schema version decoded")
	}
	if _, err := DecodeEvent("place", 1, []byte(`{}`)); err == nil {
		t.Errorf("an unknown event type decoded")
	}
}

// TestEventReadable: the JSON of a take holds what an audit line needs.
func TestEventReadable(t *testing.T) {
	s := newTable(t, 2, false).floor(1, Red, Red, Red, Red, Red, Red).factory(1, Red, Red, Red, Blue).factory(0, Black).state()
	s.turn = 1
	e := play(t, s, 1, Take(1, Red, 2))[0]
	data, _ := e.MarshalJSON()
	want := `{"seat":1,"factory":1,"color":"red","count":3,"line":2,"to_line":2,"to_floor":1,"to_lid":0,"to_center":{"blue":1}}`
	if string(data) != want {
		t.Fatalf("tiles_taken JSON\n %s, want\n %s", data, want)
	}
}

// TestSnapshot: DecodeState(MarshalJSON(s)) == s, and broken snapshots
// are rejected.
func TestSnapshot(t *testing.T) {
	rules := New()
	if rules.StateFormat() != StateFormat {
		t.Fatalf("StateFormat")
	}
	log := recordGame(t, 4, true, 30)
	var s State
	for i, e := range log {
		if err := s.Apply(e); err != nil {
			t.Fatal(err)
		}
		if i%7 != 0 && i != len(log)-1 {
			continue
		}
		data, err := s.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		back, err := rules.DecodeState(data)
		if err != nil || *back.(*State) != s {
			t.Fatalf("after event %d: round trip %v\n%s", i, err, data)
		}
	}
	data, _ := s.MarshalJSON()
	for _, c := range []struct{ from, to string }{
		{`"format":1`, `"format":2`},
		{`"players":4`, `"players":5`},
		{`"wall":"grey"`, `"wall":"gray"`},
		{`"phase":"over"`, `"phase":"offer"`},
		{`"score":`, `"score":-`},
		{`"bag":{`, `"bag":{"red":20,`},
		{`"turn":`, `"turn":9`},
		{`"format"`, `"extra":1,"format"`},
	} {
		broken := strings.Replace(string(data), c.from, c.to, 1)
		if broken == string(data) {
			t.Fatalf("%s not in the snapshot %s", c.from, data)
		}
		if _, err := DecodeState([]byte(broken)); !errors.Is(err, engine.ErrInconsistent) {
			t.Errorf("snapshot with %s → %s decoded: %v", c.from, c.to, err)
		}
	}
	var zero State
	if _, err := zero.MarshalJSON(); err == nil {
		t.Errorf("a game that has not started has no snapshot")
	}
}
