package compose

import (
	"fmt"
	"strings"
	"testing"
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
