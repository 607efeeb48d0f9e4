package azul

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/jsonstrict"
)

// CmdKind says which move a Cmd is.
type CmdKind uint8

// The move kinds. The zero value is not a move, so a zero Cmd is rejected.
const (
	CmdTake   CmdKind = iota + 1 // take tiles from a factory or the centre
	CmdTile                      // grey wall: choose the wall space of a line
	CmdResign                    // give up the game
)

// Source and line values with a meaning of their own.
const (
	// Center is the Source of a take from the centre of the table.
	Center int8 = -1
	// Floor is the Line of a take that puts every tile on the floor line.
	Floor int8 = 6
)

// MaxFactories is the number of factories of a 4-player game.
const MaxFactories = 9

// Cmd is an Azul Mini move. It is a small comparable value; fields a kind
// does not use are zero.
//
//	take:   Source 0..8 or Center, Colour, Line 1..5 or Floor
//	tile:   Line 1..5 (the pattern line), Column 1..5 (the wall column)
//	resign: nothing
type Cmd struct {
	Kind   CmdKind
	Source int8
	Colour Colour
	Line   int8
	Column int8
}

// Take is the command taking every tile of colour c from source (a factory
// index 0..8 or Center) onto line (1..5 or Floor).
func Take(source int8, c Colour, line int8) Cmd {
	return Cmd{Kind: CmdTake, Source: source, Colour: c, Line: line}
}

// Tile is the grey-wall command placing the tile of pattern line line
// (1..5) on wall column column (1..5).
func Tile(line, column int8) Cmd { return Cmd{Kind: CmdTile, Line: line, Column: column} }

// Resign is the command giving up the game.
func Resign() Cmd { return Cmd{Kind: CmdResign} }

// check reports why c is not a well-formed command (nil if it is).
// Whether the move is legal is Decide's business.
func (c Cmd) check() error {
	switch c.Kind {
	case CmdTake:
		if c.Column != 0 {
			return fmt.Errorf("%w: a take has no column", engine.ErrBadCommand)
		}
		if c.Source < Center || c.Source >= MaxFactories {
			return fmt.Errorf("%w: factory %d: factories are numbered 0..%d", engine.ErrBadCommand, c.Source, MaxFactories-1)
		}
		if !c.Colour.IsTile() {
			return fmt.Errorf("%w: colour %d: colours are %s", engine.ErrBadCommand, c.Colour, colourList)
		}
		if (c.Line < 1 || c.Line > 5) && c.Line != Floor {
			return fmt.Errorf("%w: line %d: lines are 1..5 or the floor", engine.ErrBadCommand, c.Line)
		}
	case CmdTile:
		if c.Source != 0 || c.Colour != 0 {
			return fmt.Errorf("%w: a tile command has no factory or colour", engine.ErrBadCommand)
		}
		if c.Line < 1 || c.Line > 5 {
			return fmt.Errorf("%w: line %d: pattern lines are 1..5", engine.ErrBadCommand, c.Line)
		}
		if c.Column < 1 || c.Column > 5 {
			return fmt.Errorf("%w: column %d: wall columns are 1..5", engine.ErrBadCommand, c.Column)
		}
	case CmdResign:
		if c != (Cmd{Kind: CmdResign}) {
			return fmt.Errorf("%w: resign takes no arguments", engine.ErrBadCommand)
		}
	default:
		return fmt.Errorf("%w: unknown move kind %d", engine.ErrBadCommand, c.Kind)
	}
	return nil
}

// Notation is the canonical text notation: "F2 red 3" (factories numbered
// from 1), "C blue floor", "tile 2 4", "resign". A malformed command prints
// as "invalid".
func (c Cmd) Notation() string {
	if c.check() != nil {
		return "invalid"
	}
	switch c.Kind {
	case CmdTake:
		var b strings.Builder
		if c.Source == Center {
			b.WriteString("C ")
		} else {
			b.WriteByte('F')
			b.WriteString(strconv.Itoa(int(c.Source) + 1))
			b.WriteByte(' ')
		}
		b.WriteString(c.Colour.String())
		b.WriteByte(' ')
		if c.Line == Floor {
			b.WriteString("floor")
		} else {
			b.WriteString(strconv.Itoa(int(c.Line)))
		}
		return b.String()
	case CmdTile:
		return "tile " + strconv.Itoa(int(c.Line)) + " " + strconv.Itoa(int(c.Column))
	default:
		return "resign"
	}
}

// String is the notation.
func (c Cmd) String() string { return c.Notation() }

// MarshalJSON is the canonical move JSON of docs/architecture.md §5.4.
func (c Cmd) MarshalJSON() ([]byte, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	b := make([]byte, 0, 64)
	switch c.Kind {
	case CmdTake:
		b = append(b, `{"type":"take","factory":`...)
		b = appendSource(b, c.Source)
		b = append(b, `,"color":"`...)
		b = append(b, c.Colour.String()...)
		b = append(b, `","line":`...)
		b = appendLine(b, c.Line)
		b = append(b, '}')
	case CmdTile:
		b = append(b, `{"type":"tile","line":`...)
		b = strconv.AppendInt(b, int64(c.Line), 10)
		b = append(b, `,"column":`...)
		b = strconv.AppendInt(b, int64(c.Column), 10)
		b = append(b, '}')
	default:
		b = append(b, `{"type":"resign"}`...)
	}
	return b, nil
}

func appendSource(b []byte, source int8) []byte {
	if source == Center {
		return append(b, `"center"`...)
	}
	return strconv.AppendInt(b, int64(source), 10)
}

func appendLine(b []byte, line int8) []byte {
	if line == Floor {
		return append(b, `"floor"`...)
	}
	return strconv.AppendInt(b, int64(line), 10)
}

// cmdJSON is every field a move JSON may hold; which ones must be present
// depends on the type.
type cmdJSON struct {
	Type    *string         `json:"type"`
	Factory json.RawMessage `json:"factory"`
	Colour  *string         `json:"color"`
	Line    json.RawMessage `json:"line"`
	Column  json.RawMessage `json:"column"`
}

// ParseCommand reads a move in its JSON form (docs/architecture.md §5.4). Unknown
// fields, fields of another move type and trailing data are errors.
func ParseCommand(data []byte) (Cmd, error) {
	var j cmdJSON
	if err := jsonstrict.Unmarshal(data, &j); err != nil {
		return Cmd{}, fmt.Errorf("%w: move JSON: %v", engine.ErrBadCommand, err)
	}
	if j.Type == nil {
		return Cmd{}, fmt.Errorf(`%w: move JSON: "type" is missing (take, tile or resign)`, engine.ErrBadCommand)
	}
	switch strings.ToLower(*j.Type) {
	case "take":
		if j.Column != nil {
			return Cmd{}, fmt.Errorf(`%w: a take has no "column"`, engine.ErrBadCommand)
		}
		if j.Factory == nil || j.Colour == nil || j.Line == nil {
			return Cmd{}, fmt.Errorf(`%w: a take needs "factory", "color" and "line"`, engine.ErrBadCommand)
		}
		source, err := jsonSource(j.Factory)
		if err != nil {
			return Cmd{}, err
		}
		colour, ok := ParseColour(*j.Colour)
		if !ok || len(*j.Colour) == 1 {
			return Cmd{}, fmt.Errorf("%w: color %q: colours are %s", engine.ErrBadCommand, *j.Colour, colourList)
		}
		line, err := jsonLine(j.Line, true)
		if err != nil {
			return Cmd{}, err
		}
		return Take(source, colour, line), nil
	case "tile":
		if j.Factory != nil || j.Colour != nil {
			return Cmd{}, fmt.Errorf(`%w: a tile command has no "factory" or "color"`, engine.ErrBadCommand)
		}
		if j.Line == nil || j.Column == nil {
			return Cmd{}, fmt.Errorf(`%w: a tile command needs "line" and "column"`, engine.ErrBadCommand)
		}
		line, err := jsonLine(j.Line, false)
		if err != nil {
			return Cmd{}, err
		}
		column, err := jsonNumber(j.Column, "column", 1, 5)
		if err != nil {
			return Cmd{}, err
		}
		return Tile(line, column), nil
	case "resign":
		if j.Factory != nil || j.Colour != nil || j.Line != nil || j.Column != nil {
			return Cmd{}, fmt.Errorf("%w: resign takes no other fields", engine.ErrBadCommand)
		}
		return Resign(), nil
	}
	return Cmd{}, fmt.Errorf("%w: move type %q: Azul moves are take, tile and resign", engine.ErrBadCommand, *j.Type)
}

// jsonSource reads "factory": a 0-based number or "center".
func jsonSource(raw json.RawMessage) (int8, error) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		switch strings.ToLower(text) {
		case "center", "centre":
			return Center, nil
		}
		return 0, fmt.Errorf(`%w: factory %q: give a factory number 0..%d or "center"`, engine.ErrBadCommand, text, MaxFactories-1)
	}
	return jsonNumber(raw, "factory", 0, MaxFactories-1)
}

// jsonLine reads "line": 1..5, or "floor" when floorOK.
func jsonLine(raw json.RawMessage, floorOK bool) (int8, error) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		if floorOK && strings.EqualFold(text, "floor") {
			return Floor, nil
		}
		if floorOK {
			return 0, fmt.Errorf(`%w: line %q: give a line 1..5 or "floor"`, engine.ErrBadCommand, text)
		}
		return 0, fmt.Errorf("%w: line %q: give a pattern line 1..5", engine.ErrBadCommand, text)
	}
	return jsonNumber(raw, "line", 1, 5)
}

// jsonNumber reads an integer in lo..hi.
func jsonNumber(raw json.RawMessage, field string, lo, hi int) (int8, error) {
	var n int
	if err := json.Unmarshal(raw, &n); err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%w: %s %s: give a whole number %d..%d", engine.ErrBadCommand, field, raw, lo, hi)
	}
	return int8(n), nil
}

// ParseNotation reads a move in text notation, case-insensitive:
//
//	F2 red 3        take red from factory F2 (JSON factory 1) onto line 3
//	C blue floor    take blue from the centre onto the floor line
//	tile 2 4        grey wall: tile of line 2 on column 4
//	resign
//
// Variants: "take" before a take; "factory 2", "f 2"; "center", "centre";
// the colour letters b y r k w; "to", "->" or "line" before the line;
// "f" or "fl" for the floor; "tile line 2 column 4", "tile 2,4", "tile l2 c4".
func ParseNotation(text string) (Cmd, error) {
	words := notationWords(text)
	if len(words) == 0 {
		return Cmd{}, fmt.Errorf("%w: empty move: write e.g. \"F2 red 3\", \"C blue floor\", \"tile 2 4\" or \"resign\"", engine.ErrBadCommand)
	}
	switch words[0] {
	case "resign":
		if len(words) > 1 {
			return Cmd{}, fmt.Errorf("%w: %q: resign takes no arguments", engine.ErrBadCommand, text)
		}
		return Resign(), nil
	case "tile":
		return parseTileNotation(text, words[1:])
	case "take":
		words = words[1:]
	}
	return parseTakeNotation(text, words)
}

// notationWords lower-cases text, drops trailing sentence punctuation and
// splits it into words at spaces and commas.
func notationWords(text string) []string {
	text = strings.ToLower(strings.TrimSpace(text))
	text = strings.TrimRight(text, ".!")
	return strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == '\t' || r == ',' || r == ';' || r == '\r' || r == '\n'
	})
}

func parseTakeNotation(text string, words []string) (Cmd, error) {
	const form = `write a take as "F2 red 3" or "C blue floor"`
	if len(words) == 0 {
		return Cmd{}, fmt.Errorf("%w: %q: %s", engine.ErrBadCommand, text, form)
	}
	// Source: "c", "center", "centre", "f2", "f 2", "factory 2".
	var source int8
	switch w := words[0]; {
	case w == "c" || w == "center" || w == "centre":
		source, words = Center, words[1:]
	case (w == "f" || w == "factory") && len(words) > 1:
		n, err := factoryNumber(words[1])
		if err != nil {
			return Cmd{}, err
		}
		source, words = n, words[2:]
	case strings.HasPrefix(w, "f"):
		n, err := factoryNumber(w[1:])
		if err != nil {
			return Cmd{}, err
		}
		source, words = n, words[1:]
	default:
		return Cmd{}, fmt.Errorf("%w: %q: the move should start with a factory (F1..F9) or C for the centre; %s", engine.ErrBadCommand, text, form)
	}
	if len(words) == 0 {
		return Cmd{}, fmt.Errorf("%w: %q: the colour is missing; %s", engine.ErrBadCommand, text, form)
	}
	colour, ok := ParseColour(words[0])
	if !ok {
		return Cmd{}, fmt.Errorf("%w: %q: unknown colour %q (colours are %s)", engine.ErrBadCommand, text, words[0], colourList)
	}
	words = words[1:]
	for len(words) > 0 && (words[0] == "to" || words[0] == "->" || words[0] == "on" || words[0] == "line") {
		words = words[1:]
	}
	if len(words) != 1 {
		return Cmd{}, fmt.Errorf("%w: %q: give one line, 1..5 or floor; %s", engine.ErrBadCommand, text, form)
	}
	var line int8
	switch w := words[0]; w {
	case "floor", "fl", "f":
		line = Floor
	default:
		n, err := smallNumber(strings.TrimPrefix(w, "l"), 1, 5)
		if err != nil {
			return Cmd{}, fmt.Errorf("%w: %q: line %q: lines are 1..5 or floor", engine.ErrBadCommand, text, w)
		}
		line = n
	}
	return Take(source, colour, line), nil
}

// factoryNumber reads a factory as numbered in notation (1..9) and returns
// its index (0..8).
func factoryNumber(word string) (int8, error) {
	n, err := smallNumber(word, 1, MaxFactories)
	if err != nil {
		return 0, fmt.Errorf("%w: factory %q: factories are F1..F%d", engine.ErrBadCommand, word, MaxFactories)
	}
	return n - 1, nil
}

func parseTileNotation(text string, words []string) (Cmd, error) {
	var nums []int8
	for _, w := range words {
		switch w {
		case "line", "row", "column", "col", "l", "r", "c", "to", "at", "->":
			continue
		}
		if len(w) > 1 && (w[0] == 'l' || w[0] == 'c' || w[0] == 'r') {
			w = w[1:]
		}
		n, err := smallNumber(w, 1, 5)
		if err != nil {
			return Cmd{}, fmt.Errorf(`%w: %q: write "tile <line 1..5> <column 1..5>", e.g. "tile 2 4"`, engine.ErrBadCommand, text)
		}
		nums = append(nums, n)
	}
	if len(nums) != 2 {
		return Cmd{}, fmt.Errorf(`%w: %q: write "tile <line 1..5> <column 1..5>", e.g. "tile 2 4"`, engine.ErrBadCommand, text)
	}
	return Tile(nums[0], nums[1]), nil
}

// smallNumber reads a decimal number lo..hi written with at most 2 digits.
func smallNumber(word string, lo, hi int) (int8, error) {
	if len(word) == 0 || len(word) > 2 {
		return 0, fmt.Errorf("not a number 1..9")
	}
	n := 0
	for _, r := range word {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("not a number")
		}
		n = n*10 + int(r-'0')
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("out of range")
	}
	return int8(n), nil
}
