package pavilion

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/jsonstrict"
)

// CmdKind is the kind of a command.
type CmdKind uint8

// Command kinds. The zero kind is no command at all.
const (
	CmdTake CmdKind = iota + 1
	CmdPlace
	CmdBonus
	CmdPass
	CmdResign
)

var cmdKindNames = [...]string{"", "take", "place", "bonus", "pass", "resign"}

// Cmd is a Summer Pavilion command in a fixed-size, comparable value. Only
// the fields of its kind are used; the others are zero in a canonical
// command (ParseCommand and ParseNotation produce canonical commands).
type Cmd struct {
	Kind CmdKind
	// Source (take) is the factory, 0-based, or Center.
	Source int8
	// Colour (take, place) is the colour taken or placed.
	Colour Colour
	// Star (place) is 0 for the centre star, 1..6 for the outer stars
	// clockwise from the purple star.
	Star int8
	// Space (place) is the space number 1..6.
	Space int8
	// Wilds (place) is how many of the paid tiles are wild.
	Wilds uint8
	// HasBonus (place) says the bonus tiles are chosen inside the move.
	HasBonus bool
	// Tiles is the bonus choice (place with HasBonus, bonus) or the tiles
	// kept (pass).
	Tiles Tiles
}

// Take is the command taking colour c from a factory (0-based) or Center.
func Take(source int, c Colour) Cmd { return Cmd{Kind: CmdTake, Source: int8(source), Colour: c} }

// Place is the command placing colour c on a space, paying wilds wild tiles.
func Place(star, space int, c Colour, wilds int) Cmd {
	return Cmd{Kind: CmdPlace, Star: int8(star), Space: int8(space), Colour: c, Wilds: uint8(wilds)}
}

// ChooseBonus is the command choosing bonus tiles.
func ChooseBonus(t Tiles) Cmd { return Cmd{Kind: CmdBonus, Tiles: t} }

// Pass is the command passing and keeping the tiles keep.
func Pass(keep Tiles) Cmd { return Cmd{Kind: CmdPass, Tiles: keep} }

// Resign is the command resigning the game.
func Resign() Cmd { return Cmd{Kind: CmdResign} }

// wellFormed checks the ranges every command of its kind must respect,
// whatever the state.
func (c Cmd) wellFormed() error {
	switch c.Kind {
	case CmdTake:
		if c.Source != Center && (c.Source < 0 || c.Source >= MaxFactories) {
			return fmt.Errorf("%w: factory %d does not exist", engine.ErrBadCommand, c.Source)
		}
		if !c.Colour.Valid() {
			return fmt.Errorf("%w: unknown colour %d", engine.ErrBadCommand, c.Colour)
		}
	case CmdPlace:
		if c.Star < 0 || c.Star >= NumStars {
			return fmt.Errorf("%w: star %d does not exist (0..6)", engine.ErrBadCommand, c.Star)
		}
		if c.Space < 1 || c.Space > 6 {
			return fmt.Errorf("%w: space %d does not exist (1..6)", engine.ErrBadCommand, c.Space)
		}
		if !c.Colour.Valid() {
			return fmt.Errorf("%w: unknown colour %d", engine.ErrBadCommand, c.Colour)
		}
	case CmdBonus, CmdPass, CmdResign:
	default:
		return fmt.Errorf("%w: unknown command kind %d", engine.ErrBadCommand, c.Kind)
	}
	return nil
}

// Notation is the canonical text notation, e.g. "F2 red", "place blue 6 w3".
func (c Cmd) Notation() string {
	if c.wellFormed() != nil {
		return "invalid"
	}
	return string(c.appendNotation(make([]byte, 0, 32)))
}

func (c Cmd) appendNotation(b []byte) []byte {
	switch c.Kind {
	case CmdTake:
		if c.Source == Center {
			b = append(b, 'C')
		} else {
			b = append(b, 'F')
			b = strconv.AppendInt(b, int64(c.Source)+1, 10)
		}
		b = append(b, ' ')
		b = append(b, colourNames[c.Colour]...)
	case CmdPlace:
		b = append(b, "place "...)
		b = append(b, colourNames[c.Colour]...)
		if int(c.Star) != StarOfColour(c.Colour) {
			b = append(b, " s"...)
			b = strconv.AppendInt(b, int64(c.Star), 10)
		}
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(c.Space), 10)
		if c.Wilds > 0 {
			b = append(b, " w"...)
			b = strconv.AppendInt(b, int64(c.Wilds), 10)
		}
		if c.HasBonus {
			b = append(b, " bonus"...)
			b = appendTileWords(b, c.Tiles)
		}
	case CmdBonus:
		b = append(b, "bonus"...)
		b = appendTileWords(b, c.Tiles)
	case CmdPass:
		b = append(b, "pass"...)
		if c.Tiles.Total() > 0 {
			b = append(b, " keep"...)
			b = appendTileWords(b, c.Tiles)
		}
	case CmdResign:
		b = append(b, "resign"...)
	}
	return b
}

func appendTileWords(b []byte, t Tiles) []byte {
	for col, n := range t {
		for range n {
			b = append(b, ' ')
			b = append(b, colourNames[col]...)
		}
	}
	return b
}

// String is the notation.
func (c Cmd) String() string { return c.Notation() }

// MarshalJSON is the canonical JSON of docs/architecture.md §5.4.
func (c Cmd) MarshalJSON() ([]byte, error) {
	if err := c.wellFormed(); err != nil {
		return nil, err
	}
	return c.appendJSON(make([]byte, 0, 64)), nil
}

func (c Cmd) appendJSON(b []byte) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, cmdKindNames[c.Kind]...)
	b = append(b, '"')
	switch c.Kind {
	case CmdTake:
		b = append(b, `,"factory":`...)
		b = appendSource(b, c.Source)
		b = append(b, `,"color":"`...)
		b = append(b, colourNames[c.Colour]...)
		b = append(b, '"')
	case CmdPlace:
		b = append(b, `,"star":`...)
		b = strconv.AppendInt(b, int64(c.Star), 10)
		b = append(b, `,"space":`...)
		b = strconv.AppendInt(b, int64(c.Space), 10)
		b = append(b, `,"color":"`...)
		b = append(b, colourNames[c.Colour]...)
		b = append(b, `","wilds":`...)
		b = strconv.AppendInt(b, int64(c.Wilds), 10)
		if c.HasBonus {
			b = append(b, `,"bonus":`...)
			b = appendTileList(b, c.Tiles)
		}
	case CmdBonus:
		b = append(b, `,"tiles":`...)
		b = appendTileList(b, c.Tiles)
	case CmdPass:
		b = append(b, `,"keep":`...)
		b = appendTileList(b, c.Tiles)
	}
	return append(b, '}')
}

func appendSource(b []byte, source int8) []byte {
	if source == Center {
		return append(b, `"center"`...)
	}
	return strconv.AppendInt(b, int64(source), 10)
}

// appendTileList writes tiles as a JSON list of colour names in colour order.
func appendTileList(b []byte, t Tiles) []byte {
	b = append(b, '[')
	first := true
	for col, n := range t {
		for range n {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, '"')
			b = append(b, colourNames[col]...)
			b = append(b, '"')
		}
	}
	return append(b, ']')
}

// cmdWire is the JSON of every command kind; presence is checked per kind.
type cmdWire struct {
	Type    *string          `json:"type"`
	Factory *json.RawMessage `json:"factory"`
	Colour  *string          `json:"color"`
	Star    *json.RawMessage `json:"star"`
	Space   *int             `json:"space"`
	Wilds   *int             `json:"wilds"`
	Bonus   *[]string        `json:"bonus"`
	Tiles   *[]string        `json:"tiles"`
	Keep    *[]string        `json:"keep"`
}

func badCommand(format string, args ...any) error {
	return fmt.Errorf("%w: %s", engine.ErrBadCommand, fmt.Sprintf(format, args...))
}

// ParseCommand reads a command in its JSON form (docs/architecture.md §5.4).
func ParseCommand(data []byte) (Cmd, error) {
	var w cmdWire
	if err := jsonstrict.Unmarshal(data, &w); errors.Is(err, jsonstrict.ErrTrailing) {
		return Cmd{}, badCommand("move JSON: data after the move object")
	} else if err != nil {
		return Cmd{}, badCommand("move JSON: %v", err)
	}
	if w.Type == nil {
		return Cmd{}, badCommand(`move JSON: "type" is missing`)
	}
	var c Cmd
	allowed := map[string]bool{}
	switch *w.Type {
	case "take":
		c.Kind = CmdTake
		allowed["factory"], allowed["color"] = true, true
		if w.Factory == nil || w.Colour == nil {
			return Cmd{}, badCommand(`take needs "factory" and "color"`)
		}
		src, err := parseSourceJSON(*w.Factory)
		if err != nil {
			return Cmd{}, err
		}
		c.Source = src
		if c.Colour, err = parseColourJSON(*w.Colour); err != nil {
			return Cmd{}, err
		}
	case "place":
		c.Kind = CmdPlace
		allowed["star"], allowed["space"], allowed["color"], allowed["wilds"], allowed["bonus"] = true, true, true, true, true
		if w.Star == nil || w.Space == nil || w.Colour == nil {
			return Cmd{}, badCommand(`place needs "star", "space" and "color"`)
		}
		star, err := parseStarJSON(*w.Star)
		if err != nil {
			return Cmd{}, err
		}
		c.Star = star
		if *w.Space < 1 || *w.Space > 6 {
			return Cmd{}, badCommand("space %d does not exist (1..6)", *w.Space)
		}
		c.Space = int8(*w.Space)
		if c.Colour, err = parseColourJSON(*w.Colour); err != nil {
			return Cmd{}, err
		}
		if w.Wilds != nil {
			if *w.Wilds < 0 || *w.Wilds > 5 {
				return Cmd{}, badCommand("wilds %d is out of range (0..5)", *w.Wilds)
			}
			c.Wilds = uint8(*w.Wilds)
		}
		if w.Bonus != nil {
			c.HasBonus = true
			if c.Tiles, err = parseTileListJSON("bonus", *w.Bonus); err != nil {
				return Cmd{}, err
			}
		}
	case "bonus":
		c.Kind = CmdBonus
		allowed["tiles"] = true
		if w.Tiles == nil {
			return Cmd{}, badCommand(`bonus needs "tiles"`)
		}
		var err error
		if c.Tiles, err = parseTileListJSON("tiles", *w.Tiles); err != nil {
			return Cmd{}, err
		}
	case "pass":
		c.Kind = CmdPass
		allowed["keep"] = true
		if w.Keep != nil {
			var err error
			if c.Tiles, err = parseTileListJSON("keep", *w.Keep); err != nil {
				return Cmd{}, err
			}
		}
	case "resign":
		c.Kind = CmdResign
	default:
		return Cmd{}, badCommand("unknown move type %q (take, place, bonus, pass, resign)", *w.Type)
	}
	present := map[string]bool{
		"factory": w.Factory != nil, "color": w.Colour != nil, "star": w.Star != nil,
		"space": w.Space != nil, "wilds": w.Wilds != nil, "bonus": w.Bonus != nil,
		"tiles": w.Tiles != nil, "keep": w.Keep != nil,
	}
	for _, name := range []string{"factory", "color", "star", "space", "wilds", "bonus", "tiles", "keep"} {
		if present[name] && !allowed[name] {
			return Cmd{}, badCommand("field %q is not part of a %s move", name, *w.Type)
		}
	}
	return c, nil
}

func parseSourceJSON(raw json.RawMessage) (int8, error) {
	var name string
	if json.Unmarshal(raw, &name) == nil {
		switch strings.ToLower(name) {
		case "center", "centre":
			return Center, nil
		}
		return 0, badCommand(`factory %q: give a 0-based number or "center"`, name)
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, badCommand(`factory: give a 0-based number or "center"`)
	}
	if n < 0 || n >= MaxFactories {
		return 0, badCommand("factory %d does not exist (0..%d)", n, MaxFactories-1)
	}
	return int8(n), nil
}

func parseStarJSON(raw json.RawMessage) (int8, error) {
	var name string
	if json.Unmarshal(raw, &name) == nil {
		switch strings.ToLower(name) {
		case "center", "centre":
			return CentreStar, nil
		}
		c, ok := ParseColour(name)
		if !ok || len(name) == 1 {
			return 0, badCommand("star %q: give 0..6, a colour name or \"center\"", name)
		}
		return starOfColour[c], nil
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, badCommand("star: give 0..6, a colour name or \"center\"")
	}
	if n < 0 || n >= NumStars {
		return 0, badCommand("star %d does not exist (0..6)", n)
	}
	return int8(n), nil
}

func parseColourJSON(name string) (Colour, error) {
	c, ok := ParseColour(name)
	if !ok || len(strings.TrimSpace(name)) == 1 {
		return 0, badCommand("unknown colour %q (purple, green, orange, yellow, blue, red)", name)
	}
	return c, nil
}

func parseTileListJSON(field string, names []string) (Tiles, error) {
	var t Tiles
	for _, name := range names {
		c, err := parseColourJSON(name)
		if err != nil {
			return Tiles{}, fmt.Errorf("%s: %w", field, err)
		}
		if t[c] >= TilesPerColour {
			return Tiles{}, badCommand("%s: more %s tiles than the game has", field, c)
		}
		t[c]++
	}
	return t, nil
}

// ParseNotation reads a command in text notation, case-insensitively:
//
//	F1 orange          take orange from factory 1 (JSON factory 0)
//	C orange           take orange from the centre
//	place blue 6 w3    place blue on space 6 of the blue star, 3 wilds paid
//	place blue s0 6    the star given explicitly (s0 = centre, s1..s6)
//	place red 4 bonus blue purple   with the bonus tiles chosen at once
//	bonus blue purple  choose bonus tiles
//	pass keep green green
//	pass
//	resign
//
// Colours may be written by their initial letter (p g o y b r).
func ParseNotation(text string) (Cmd, error) {
	words := strings.Fields(strings.ToLower(text))
	if len(words) == 0 {
		return Cmd{}, badCommand("empty move")
	}
	if words[0] == "take" {
		words = words[1:]
		if len(words) == 0 {
			return Cmd{}, badCommand("take what? e.g. \"F1 orange\" or \"C orange\"")
		}
	}
	switch w := words[0]; {
	case w == "place":
		return parsePlaceWords(words[1:])
	case w == "bonus":
		t, err := parseTileWords("bonus", words[1:])
		if err != nil {
			return Cmd{}, err
		}
		return ChooseBonus(t), nil
	case w == "pass":
		rest := words[1:]
		if len(rest) > 0 {
			if rest[0] != "keep" {
				return Cmd{}, badCommand("pass: expected \"keep\" and colours, got %q", rest[0])
			}
			rest = rest[1:]
		}
		t, err := parseTileWords("keep", rest)
		if err != nil {
			return Cmd{}, err
		}
		return Pass(t), nil
	case w == "resign":
		if len(words) > 1 {
			return Cmd{}, badCommand("resign takes nothing more")
		}
		return Resign(), nil
	case w == "c" || w == "center" || w == "centre" || strings.HasPrefix(w, "f"):
		return parseTakeWords(words)
	}
	return Cmd{}, badCommand("unknown move %q (F1 orange, C orange, place blue 6 w3, bonus blue, pass keep green, resign)", words[0])
}

func parseTakeWords(words []string) (Cmd, error) {
	src := int8(Center)
	if w := words[0]; w != "c" && w != "center" && w != "centre" {
		n, err := strconv.Atoi(w[1:])
		if err != nil || n < 1 || n > MaxFactories {
			return Cmd{}, badCommand("unknown source %q: factories are F1..F%d, the centre is C", words[0], MaxFactories)
		}
		src = int8(n - 1)
	}
	if len(words) != 2 {
		return Cmd{}, badCommand("take: give the source and one colour, e.g. \"F1 orange\"")
	}
	c, ok := ParseColour(words[1])
	if !ok {
		return Cmd{}, badCommand("unknown colour %q", words[1])
	}
	return Take(int(src), c), nil
}

func parsePlaceWords(words []string) (Cmd, error) {
	if len(words) < 2 {
		return Cmd{}, badCommand("place: give a colour and a space, e.g. \"place blue 6 w3\"")
	}
	c, ok := ParseColour(words[0])
	if !ok {
		return Cmd{}, badCommand("unknown colour %q", words[0])
	}
	cmd := Cmd{Kind: CmdPlace, Colour: c, Star: starOfColour[c]}
	rest := words[1:]
	if w := rest[0]; len(w) > 1 && w[0] == 's' {
		n, err := strconv.Atoi(w[1:])
		if err != nil || n < 0 || n >= NumStars {
			return Cmd{}, badCommand("unknown star %q: s0 is the centre, s1..s6 the outer stars", w)
		}
		cmd.Star = int8(n)
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return Cmd{}, badCommand("place: the space number 1..6 is missing")
	}
	n, err := strconv.Atoi(rest[0])
	if err != nil || n < 1 || n > 6 {
		return Cmd{}, badCommand("place: space %q is not 1..6", rest[0])
	}
	cmd.Space = int8(n)
	rest = rest[1:]
	if len(rest) > 0 && len(rest[0]) > 1 && rest[0][0] == 'w' {
		n, err := strconv.Atoi(rest[0][1:])
		if err != nil || n < 0 || n > 5 {
			return Cmd{}, badCommand("place: wilds %q is not w0..w5", rest[0])
		}
		cmd.Wilds = uint8(n)
		rest = rest[1:]
	}
	if len(rest) > 0 {
		if rest[0] != "bonus" {
			return Cmd{}, badCommand("place: unexpected %q (expected w<n> or bonus)", rest[0])
		}
		cmd.HasBonus = true
		if cmd.Tiles, err = parseTileWords("bonus", rest[1:]); err != nil {
			return Cmd{}, err
		}
	}
	return cmd, nil
}

func parseTileWords(field string, words []string) (Tiles, error) {
	var t Tiles
	for _, w := range words {
		c, ok := ParseColour(w)
		if !ok {
			return Tiles{}, badCommand("%s: unknown colour %q", field, w)
		}
		if t[c] >= TilesPerColour {
			return Tiles{}, badCommand("%s: more %s tiles than the game has", field, c)
		}
		t[c]++
	}
	return t, nil
}
