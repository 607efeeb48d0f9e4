package main

import (
	"bytes"
	"context"
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
	for _, ok := range []string{"random", "greedy", "search", "search:100ms", "search:500p"} {
		if _, err := parseBot(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"oracle", "greedy:100ms", "search:0p", "search:5s", "search:soon"} {
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
