package azul

import "strings"

// Colour is a tile colour. The five colours are numbered in the order of the
// first row of the coloured wall (docs/rules.md §2.1), so a colour indexes the
// [5] count arrays of the state directly.
type Colour uint8

// The tile colours, and two values that are not tile colours: Marker is the
// start player marker (it only appears on a floor line) and NoColour marks an
// empty wall space, pattern line or floor space.
const (
	Blue Colour = iota
	Yellow
	Red
	Black
	White
	Marker
	NoColour
)

// NumColours is the number of tile colours.
const NumColours = 5

// String is the lower-case English name used in JSON and notation.
func (c Colour) String() string {
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
	case NoColour:
		return "none"
	}
	return "invalid"
}

// Letter is the one-letter code of the text board: B Y R K W (K for black,
// as B is blue), M for the marker, "." for nothing.
func (c Colour) Letter() byte {
	if int(c) < len("BYRKWM.") {
		return "BYRKWM."[c]
	}
	return '?'
}

// IsTile reports whether c is one of the five tile colours.
func (c Colour) IsTile() bool { return c < NumColours }

// ParseColour reads a tile colour: its English name or its letter (b, y, r,
// k, w), in any case.
func ParseColour(text string) (Colour, bool) {
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
	return NoColour, false
}

// colorList is the list of colour names for error messages.
const colourList = "blue, yellow, red, black, white"

// WallColour is the colour printed on the coloured wall at row r, column c
// (both 0-based): colour index (c − r) mod 5 (docs/rules.md §2.1).
func WallColour(r, c int) Colour { return Colour(((c-r)%5 + 5) % 5) }

// WallColumn is the 0-based column of colour c in row r of the coloured wall.
func WallColumn(r int, c Colour) int { return (int(c) + r) % 5 }
