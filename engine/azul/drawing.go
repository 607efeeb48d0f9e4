package azul

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/azuld/azuld/engine"
)

// Drawing is the board as rows of spaces: each pattern line (filled from
// the right, ending at the wall) leads its wall row, and the floor line
// comes last.
func (b BoardView) Drawing() engine.Drawing {
	d := engine.Drawing{Columns: 5, Lead: 5}
	for r := range 5 {
		row := engine.DrawingRow{Label: strconv.Itoa(r + 1), Lead: make([]engine.Space, r+1), Spaces: make([]engine.Space, 5)}
		if r < len(b.Lines) && b.Lines[r].Colour != nil {
			for k := range min(b.Lines[r].Count, r+1) {
				row.Lead[r-k].Tile = *b.Lines[r].Colour
			}
		}
		for c := range 5 {
			if t := b.Wall[r][c]; t != nil {
				row.Spaces[c].Tile = *t
			}
			if !b.Grey {
				row.Spaces[c].Printed = WallColour(r, c).String()
			}
		}
		d.Rows = append(d.Rows, row)
	}
	d.Floor = &engine.FloorDrawing{Items: b.Floor, Size: FloorSize}
	if n := len(b.Floor); n > 0 {
		d.Floor.Penalty = -FloorPenalty(n)
	}
	return d
}

// DecodeBoard reads a board from the state JSON.
func (rules) DecodeBoard(data []byte, opts engine.Options) (engine.Board, error) {
	var b BoardView
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%w: azul board: %w", engine.ErrBadCommand, err)
	}
	b.Grey = opts.Wall == "grey"
	return b, nil
}
