package azul

import "strings"

// Color is a tile colour. The five colours are numbered in the order of the
// first row of the coloured wall (docs/rules.md §2.1), so a colour indexes the
// [5] count arrays of the state directly.
type Color uint8

// The tile colours, and two values that are not tile colours: Marker is the
// start player marker (it only appears on a floor line) and NoColor marks an
// empty wall space, pattern line or floor space.
const (
	Blue Color = iota
	Yellow
	Red
	Black
	White
	Marker
	NoColor
)

// NumColors is the number of tile colours.
const NumColors = 5

// String is the lower-case English name used in JSON and notation.
func (c Color) String() string {
	switch c {
	case Blue:
		return "blue"
	case Yellow:
		return "yellow"
	case Red:
		return "red"
	case Black:
		return "black"
	case White:
		return "white"
	case Marker:
		return "marker"
	case NoColor:
		return "none"
	}
	return "invalid"
}

// Letter is the one-letter code of the text board: B Y R K W (K for black,
// as B is blue), M for the marker, "." for nothing.
func (c Color) Letter() byte {
	if int(c) < len("BYRKWM.") {
		return "BYRKWM."[c]
	}
	return '?'
}

// IsTile reports whether c is one of the five tile colours.
func (c Color) IsTile() bool { return c < NumColors }

// ParseColor reads a tile colour: its English name or its letter (b, y, r,
// k, w), in any case.
func ParseColor(text string) (Color, bool) {
	switch strings.ToLower(text) {
	case "blue", "b":
		return Blue, true
	case "yellow", "y":
		return Yellow, true
	case "red", "r":
		return Red, true
	case "black", "k":
		return Black, true
	case "white", "w":
		return White, true
	}
	return NoColor, false
}

// colorList is the list of colour names for error messages.
const colorList = "blue, yellow, red, black, white"

// WallColor is the colour printed on the coloured wall at row r, column c
// (both 0-based): colour index (c − r) mod 5 (docs/rules.md §2.1).
func WallColor(r, c int) Color { return Color(((c-r)%5 + 5) % 5) }

// WallColumn is the 0-based column of colour c in row r of the coloured wall.
func WallColumn(r int, c Color) int { return (int(c) + r) % 5 }
