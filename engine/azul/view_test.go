package azul

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/azuld/azuld/engine"
)

// TestView: the state JSON of docs/architecture.md §5.4.
func TestView(t *testing.T) {
	s := newTable(t, 2, false).
		wallRow(0, 1, Red).
		line(0, 2, Yellow, 1).
		line(1, 5, White, 3).
		factory(0, Blue, Blue, Red, Black).
		center(Yellow, Yellow).
		lid(Red, 3).
		score(0, 4).
		state()
	play(t, s, 0, Take(Center, Yellow, 2))
	v := s.View()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Ruleset   string           `json:"ruleset"`
		Round     int              `json:"round"`
		Phase     string           `json:"phase"`
		ToAct     []int            `json:"to_act"`
		Factories []map[string]int `json:"factories"`
		Center    struct {
			Tiles  map[string]int `json:"tiles"`
			Marker bool           `json:"marker"`
		} `json:"center"`
		Bag     int `json:"bag"`
		Discard int `json:"discard"`
		Players []struct {
			Seat   int  `json:"seat"`
			Score  int  `json:"score"`
			Marker bool `json:"marker"`
			Board  struct {
				Lines []struct {
					Colour *string `json:"color"`
					Count  int     `json:"count"`
				} `json:"lines"`
				Wall  [][]*string `json:"wall"`
				Floor []string    `json:"floor"`
			} `json:"board"`
		} `json:"players"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Ruleset != Ruleset || got.Round != 1 || got.Phase != "offer" || !slices.Equal(got.ToAct, []int{1}) {
		t.Fatalf("head %+v", got)
	}
	if len(got.Factories) != 5 || got.Factories[0]["blue"] != 2 || got.Factories[0]["black"] != 1 || len(got.Factories[1]) != 0 {
		t.Fatalf("factories %v", got.Factories)
	}
	if got.Center.Marker || len(got.Center.Tiles) != 0 {
		t.Fatalf("centre %+v: seat 0 took the yellow and the marker", got.Center)
	}
	if got.Bag != 100-4-2-1-1-3-3 || got.Discard != 3 {
		t.Fatalf("bag %d, discard %d", got.Bag, got.Discard)
	}
	p0 := got.Players[0]
	if !p0.Marker || got.Players[1].Marker || p0.Score != 4 {
		t.Fatalf("seat 0 %+v should hold the marker", p0)
	}
	if len(p0.Board.Lines) != 5 || p0.Board.Lines[0].Colour != nil || *p0.Board.Lines[1].Colour != "yellow" || p0.Board.Lines[1].Count != 2 {
		t.Fatalf("lines %s", data)
	}
	if len(p0.Board.Wall) != 5 || len(p0.Board.Wall[0]) != 5 || *p0.Board.Wall[0][2] != "red" || p0.Board.Wall[0][0] != nil {
		t.Fatalf("wall %s", data)
	}
	if !slices.Equal(p0.Board.Floor, []string{"marker", "yellow"}) {
		t.Fatalf("floor %v, want the marker then the overflowing yellow", p0.Board.Floor)
	}
	if !strings.Contains(string(data), `"lines":[{"color":null,"count":0}`) {
		t.Fatalf("an empty line should have a null colour: %s", data)
	}
}

// TestText: every line fits 72 columns and the labels match the notation.
func TestText(t *testing.T) {
	check := func(s *State) string {
		t.Helper()
		text := s.Text()
		for i, line := range strings.Split(text, "\n") {
			if n := utf8.RuneCountInString(line); n > 72 {
				t.Fatalf("line %d has %d columns: %q", i+1, n, line)
			}
		}
		return text
	}
	for _, grey := range []bool{false, true} {
		log := recordGame(t, 4, grey, 40)
		var s State
		for i, e := range log {
			if err := s.Apply(e); err != nil {
				t.Fatal(err)
			}
			if i%9 == 0 || i == len(log)-1 {
				check(&s)
			}
		}
		text := check(&s)
		for _, label := range []string{"F1 ", "F9 ", "C   ", "  1  ", "  5  ", "floor", "Final result", "Seat 3"} {
			if !strings.Contains(text, label) {
				t.Fatalf("no %q in\n%s", label, text)
			}
		}
	}
	s := newTable(t, 2, false).wallRow(0, 1, Red).line(0, 3, Blue, 2).floor(0, Marker, Black).factory(1, Red, White).state()
	text := check(s)
	for _, want := range []string{
		"Seat 0 to take tiles.",
		"F2  1 red, 1 white",
		"  1          . | b y R k w",
		"  3      . B B | k w b y r",
		"  floor M K . . . . .  (-2)",
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("no %q in\n%s", want, text)
		}
	}
	if !strings.Contains(greyTilingTable(t).Text(), "seat 0 (line 1), seat 1 (line 2)") {
		t.Fatalf("the grey tiling text should say who chooses:\n%s", greyTilingTable(t).Text())
	}
}

// TestLegalMoves: the type-erased moves carry canonical JSON and notation,
// end with resign, and are empty for a seat that may not act.
func TestLegalMoves(t *testing.T) {
	s := newTable(t, 2, false).factory(0, Red, Red, Blue, Blue).state()
	moves := s.LegalMoves(0)
	if len(moves) != 2*6+1 || moves[len(moves)-1].Notation != "resign" {
		t.Fatalf("%d moves, last %q: want 12 takes and resign", len(moves), moves[len(moves)-1].Notation)
	}
	for _, m := range moves {
		c, err := ParseNotation(m.Notation)
		if err != nil || c != m.Command {
			t.Fatalf("move %q: %v", m.Notation, err)
		}
		j, err := ParseCommand(m.JSON)
		if err != nil || j != m.Command {
			t.Fatalf("move %s: %v", m.JSON, err)
		}
	}
	if string(moves[0].JSON) != `{"type":"take","factory":0,"color":"blue","line":1}` || moves[0].Notation != "F1 blue 1" {
		t.Fatalf("first move %s %q", moves[0].JSON, moves[0].Notation)
	}
	if got := s.LegalMoves(1); len(got) != 0 {
		t.Fatalf("seat 1 is not to act but has %d moves", len(got))
	}
	var _ engine.State = s
}

// TestSummary: every event reads as one line of English.
func TestSummary(t *testing.T) {
	s := newTable(t, 2, false).floor(1, Red, Red, Red, Red, Red, Red).factory(1, Red, Red, Red, Blue).factory(0, Black).state()
	s.turn = 1
	e := play(t, s, 1, Take(1, Red, 2))[0]
	if got, want := e.Summary(), "seat 1 took 3 red from F2: 2 to line 2, 1 to the floor; 1 blue to the centre"; got != want {
		t.Fatalf("summary %q, want %q", got, want)
	}
	for _, e := range recordGame(t, 3, true, 60) {
		if sum := e.Summary(); strings.Contains(sum, "unknown") || strings.Contains(sum, "%!") || strings.Contains(sum, "\n") {
			t.Fatalf("%s: %q", e.Kind, sum)
		}
	}
}
