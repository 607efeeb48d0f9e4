package pavilion

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/azuld/azuld/engine"
)

// Drawing is the board as rows of spaces: one row per star, the centre
// star S0 first.
func (b BoardView) Drawing() engine.Drawing {
	d := engine.Drawing{Columns: 6}
	for star := range NumStars {
		row := engine.DrawingRow{Label: "S" + strconv.Itoa(star), Spaces: make([]engine.Space, 6), Centre: star == CentreStar}
		if c := b.StarColours[star]; c != nil {
			row.Colour = *c
		}
		for sp := range 6 {
			if c := b.Stars[star][sp]; c != nil {
				row.Spaces[sp].Tile = *c
			}
		}
		d.Rows = append(d.Rows, row)
	}
	return d
}

// DecodeBoard reads a board from the state JSON.
func (Rules) DecodeBoard(data []byte, _ engine.Options) (engine.Board, error) {
	var b BoardView
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%w: pavilion board: %w", engine.ErrBadCommand, err)
	}
	return b, nil
}
