package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestWilson(t *testing.T) {
	for _, c := range []struct{ wins, n, lo, hi float64 }{
		{50, 100, 0.404, 0.596},
		{100, 100, 0.963, 1},
		{0, 20, 0, 0.161},
	} {
		lo, hi := wilson(c.wins, c.n)
		if math.Abs(lo-c.lo) > 0.001 || math.Abs(hi-c.hi) > 0.001 {
			t.Errorf("wilson(%v, %v) = %.3f–%.3f, want %.3f–%.3f", c.wins, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

func TestParseBot(t *testing.T) {
	for _, ok := range []string{"random", "greedy", "search", "search:100ms", "search:500p", "checklist", "level1", "level6", "level6:500p"} {
		if _, err := parseBot(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"oracle", "greedy:100ms", "search:0p", "search:5s", "search:soon", "checklist:100p", "level3:100p", "level6:100ms"} {
		if _, err := parseBot(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestRunPrintsARow plays a few games of greedy against random and checks
// the Markdown row.
func TestRunPrintsARow(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-ruleset", "azul-mini", "-games", "4", "-a", "greedy", "-b", "random"}, &out); err != nil {
		t.Fatal(err)
	}
	row := out.String()
	if !strings.HasPrefix(row, "| azul-mini | standard | 2 | greedy | random | 4 | ") || strings.Count(row, "|") != 11 {
		t.Fatalf("row %q", row)
	}
	if err := run(context.Background(), []string{"-ruleset", "chess"}, &out); err == nil {
		t.Fatal("unknown rule set accepted")
	}
}

// TestOneSeat: with -one the first bot holds exactly one seat, the next
// one each game (without it, every other seat), and the row says so.
func TestOneSeat(t *testing.T) {
	for _, c := range []struct {
		players, g int
		one        bool
		want       string
	}{
		{3, 0, true, "A--"}, {3, 1, true, "-A-"}, {3, 2, true, "--A"}, {3, 3, true, "A--"},
		{4, 1, true, "-A--"}, {4, 3, true, "---A"},
		{3, 0, false, "A-A"}, {4, 1, false, "-A-A"},
	} {
		got := ""
		for _, a := range seatsOfA(c.players, c.g, c.one) {
			got += map[bool]string{true: "A", false: "-"}[a]
		}
		if got != c.want {
			t.Errorf("%d players, game %d, one %v: %s, want %s", c.players, c.g, c.one, got, c.want)
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-ruleset", "summer-pavilion-mini", "-players", "3", "-one", "-games", "3", "-a", "random", "-b", "greedy"}, &out); err != nil {
		t.Fatal(err)
	}
	// Random's one seat never beats two greedy ones.
	if row := out.String(); !strings.HasPrefix(row, "| summer-pavilion-mini | standard | 3 | random (one seat) | greedy | 3 | 0.0 % | ") {
		t.Fatalf("row %q", row)
	}
}

func TestElo(t *testing.T) {
	if d := elo(0.5); d != 0 {
		t.Fatalf("elo(0.5) = %v", d)
	}
	if d := elo(0.76); math.Abs(d-200) > 1 {
		t.Fatalf("elo(0.76) = %v", d)
	}
	if !math.IsInf(elo(1), 1) || !math.IsInf(elo(0), -1) || signed(elo(1)) != "+∞" || signed(-200) != "-200" {
		t.Fatal("a sweep's difference")
	}
	if p := clampShare(40, 40); p != 39.5/40 {
		t.Fatalf("clampShare(40, 40) = %v", p)
	}
	// Neighbours only: the fit is the sum of the gaps, each a little
	// nearer 0 for the half win and loss added.
	r := fitRatings(3, []pairing{{a: 1, b: 0, wins: 76, games: 100}, {a: 2, b: 1, wins: 50, games: 100}})
	if r[0] != 0 || math.Abs(r[1]-elo(76.5/101)) > 1 || math.Abs(r[2]-r[1]) > 1 {
		t.Fatalf("ratings %v", r)
	}
}

// TestLadder plays a short ladder and checks its rows and ratings.
func TestLadder(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-ruleset", "azul-mini", "-games", "4", "-ladder", "random,level1,greedy", "-all"}, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"| level1 | random | 4 | 100.0 % | 51.0–100.0 % | +338 | +7 … +∞ | ", "| greedy | random | 4 | ", "| greedy | level1 | 4 | ", "| random | +0 |\n", "| level1 | +"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	for _, bad := range [][]string{{"-ladder", "greedy"}, {"-ladder", "greedy,oracle"}, {"-ladder", "greedy,random", "-one"}} {
		if err := run(context.Background(), append([]string{"-games", "2"}, bad...), &out); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestLosses: -losses adds a line with the points each bot lost; in Summer
// Pavilion the token costs its holder a point a tile, so the seats lose
// some every game.
func TestLosses(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-ruleset", "summer-pavilion", "-games", "2", "-a", "greedy", "-b", "checklist", "-losses"}, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "points lost a game: greedy ") {
		t.Fatalf("output %q", out.String())
	}
	var ga, gb, ca, cb float64
	if _, err := fmt.Sscanf(lines[1], "points lost a game: greedy %f to the start player, %f to discards; checklist %f and %f", &ga, &gb, &ca, &cb); err != nil {
		t.Fatalf("%q: %v", lines[1], err)
	}
	if ga+ca <= 0 || ga < 0 || gb < 0 || ca < 0 || cb < 0 {
		t.Fatalf("losses %v %v %v %v", ga, gb, ca, cb)
	}
}
