package engine

// Board is a seat's board in a View (PlayerView.Board): besides its JSON
// it draws itself as a family-neutral Drawing, so that a mail or a
// terminal can show any family's board without knowing its types.
type Board interface {
	Drawing() Drawing
}

// Drawing is a board as rows of spaces under numbered columns.
type Drawing struct {
	// Columns is the number of numbered columns heading the rows'
	// Spaces (Azul's wall columns, a star's spaces).
	Columns int
	// Lead is the widest Lead of the rows: the room to keep before the
	// columns (0: the rows have no lead).
	Lead int
	// Rows are the board's rows from the top.
	Rows []DrawingRow
	// Floor is the floor line, nil for a family without one.
	Floor *FloorDrawing
}

// DrawingRow is one row of a board.
type DrawingRow struct {
	// Label is the row's name in the notation: "1" (pattern line 1 and
	// wall row 1), "S0" (star 0).
	Label string
	// Lead are spaces before the columns, drawn right-aligned and apart
	// from them: Azul's pattern line beside its wall row.
	Lead []Space
	// Spaces are the row's spaces under the numbered columns.
	Spaces []Space
	// Colour is the row's printed colour (a star's), "" for none; Centre
	// marks Summer Pavilion's centre star.
	Colour string
	Centre bool
}

// Space is one space of a board.
type Space struct {
	// Tile is the colour of the tile on the space, "" when it is empty.
	Tile string
	// Printed is the colour printed on the space, shown while it is
	// empty ("" for none: a grey wall).
	Printed string
}

// FloorDrawing is a floor line.
type FloorDrawing struct {
	// Items are the floor's tiles from the left: colours and "marker".
	Items []string
	// Size is the number of spaces of the floor line.
	Size int
	// Penalty is what the items cost now (0 or negative).
	Penalty int
}
