package pavilion

import (
	"fmt"
	"strings"
)

// Colour is a tile colour. The order is the rulebooks' order of colours,
// which is also the default order of wild colours by round (docs/rules.md §3.2).
type Colour uint8

// The six tile colours.
const (
	Purple Colour = iota
	Green
	Orange
	Yellow
	Blue
	Red
	// NumColours is the number of tile colours.
	NumColours = 6
)

// TilesPerColour is how many tiles of each colour the game has (132 in all).
const TilesPerColour = 22

var colourNames = [NumColours]string{"purple", "green", "orange", "yellow", "blue", "red"}

// String is the lower-case English colour name used in JSON and notation.
func (c Colour) String() string {
	if c < NumColours {
		return colourNames[c]
	}
	return fmt.Sprintf("colour(%d)", uint8(c))
}

// Valid reports whether c is one of the six colours.
func (c Colour) Valid() bool { return c < NumColours }

// ParseColour reads a colour name, case-insensitively. The initial letter
// alone is accepted too (the six initials are distinct).
func ParseColour(text string) (Colour, bool) {
	t := strings.ToLower(strings.TrimSpace(text))
	for i, name := range colourNames {
		if t == name || (len(t) == 1 && t[0] == name[0]) {
			return Colour(i), true
		}
	}
	return 0, false
}

// Tiles is a multiset of tiles: a count per colour.
type Tiles [NumColours]uint8

// Total is the number of tiles.
func (t Tiles) Total() int {
	n := 0
	for _, c := range t {
		n += int(c)
	}
	return n
}

// Contains reports whether every tile of sub is in t.
func (t Tiles) Contains(sub Tiles) bool {
	for i := range t {
		if sub[i] > t[i] {
			return false
		}
	}
	return true
}

// Plus is t with the tiles of o added.
func (t Tiles) Plus(o Tiles) Tiles {
	for i := range t {
		t[i] += o[i]
	}
	return t
}

// Minus is t without the tiles of o; o must be contained in t.
func (t Tiles) Minus(o Tiles) Tiles {
	for i := range t {
		t[i] -= o[i]
	}
	return t
}

// colours counts the colours with at least one tile.
func (t Tiles) colours() int {
	n := 0
	for _, c := range t {
		if c > 0 {
			n++
		}
	}
	return n
}

// List is the tiles as colour names in colour order, e.g. [green green red].
func (t Tiles) List() []string {
	out := make([]string, 0, t.Total())
	for c, n := range t {
		for range n {
			out = append(out, colourNames[c])
		}
	}
	return out
}

// String is the tiles as space-separated colour names ("-" when empty).
func (t Tiles) String() string {
	if t.Total() == 0 {
		return "-"
	}
	return strings.Join(t.List(), " ")
}

// countsText is the tiles as "green 2, red 1" ("-" when empty).
func (t Tiles) countsText() string {
	var b strings.Builder
	for c, n := range t {
		if n == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", colourNames[c], n)
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

// countMap is the tiles as a colour→count map (only colours present).
func (t Tiles) countMap() map[string]int {
	m := make(map[string]int, t.colours())
	for c, n := range t {
		if n > 0 {
			m[colourNames[c]] = int(n)
		}
	}
	return m
}
