package compose

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"
)

func TestColumns(t *testing.T) {
	var cells []string
	for i := range 7 {
		cells = append(cells, fmt.Sprintf("%d. F%d red", i+1, i+1))
	}
	got := Columns(cells, 31)
	want := "1. F1 red  4. F4 red  7. F7 red\n" +
		"2. F2 red  5. F5 red\n" +
		"3. F3 red  6. F6 red\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, line := range strings.Split(strings.TrimSuffix(Columns(cells, 25), "\n"), "\n") {
		if len(line) > 25 {
			t.Errorf("line %q is wider than 25", line)
		}
	}
	if got := Columns(cells[:1], 5); got != "1. F1 red\n" {
		t.Errorf("a cell wider than the width: %q", got)
	}
	if got := Columns(nil, 80); got != "" {
		t.Errorf("no cells: %q", got)
	}
}

func TestTable(t *testing.T) {
	got := Table([][]string{
		{"RANK", "NAME", "RATING", ""},
		{"1", "Zoë", "1,234.5", ""},
		{"2", "日本語の名前", "987", ""},
		{"just one cell"},
		{},
		{"a", "b", "last cell, unpadded"},
	})
	want := "RANK  NAME    RATING   \n" +
		"1     Zoë     1,234.5  \n" +
		"2     日本語の名前  987      \n" +
		"just one cell\n" +
		"\n" +
		"a  b  last cell, unpadded\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if got := Table(nil); got != "" {
		t.Errorf("no rows: %q", got)
	}
}

// Table draws what text/tabwriter drew for the listings it replaced
// (minimum width 0, padding 2, spaces, no flags), byte for byte: ragged
// rows, empty cells, wide and combining runes, rows of one cell or none.
func TestTableIsTabwriters(t *testing.T) {
	words := []string{"", "a", "ab", "Zoë", "e\u0301", "日本", "🙂🙂", "two words", "1,234.5", "—", "  lead", "trail  "}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		rows := make([][]string, rng.IntN(8))
		for i := range rows {
			rows[i] = make([]string, rng.IntN(6))
			for j := range rows[i] {
				rows[i][j] = words[rng.IntN(len(words))]
			}
		}
		var want bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
		for _, row := range rows {
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := Table(rows); got != want.String() {
			t.Fatalf("case %d %q:\ngot\n%q\ntabwriter\n%q", n, rows, got, want.String())
		}
	}
}
