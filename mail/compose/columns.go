package compose

import (
	"strings"
	"unicode/utf8"
)

// gap is the space between two columns, in Columns and Table alike.
const gap = "  "

// cellWidth is the width of a cell: its runes (a wide rune counts one,
// as text/tabwriter counts it).
func cellWidth(s string) int { return utf8.RuneCountInString(s) }

// pad writes a cell and the spaces that fill it to width.
func pad(b *strings.Builder, cell string, width int) {
	b.WriteString(cell)
	b.WriteString(strings.Repeat(" ", width-cellWidth(cell)))
}

// Columns lays cells out down the columns (like ls), as many columns as
// fit in width runes with two spaces between them, each line ending in a
// newline and without trailing spaces: the numbered legal moves of a turn
// mail and of `azul moves`, which would otherwise take a line each. It
// stands beside the mail's board so that azuld's text tables are all
// drawn in this one package (see also Table).
func Columns(cells []string, width int) string {
	widest := 0
	for _, c := range cells {
		widest = max(widest, cellWidth(c))
	}
	cols := max(1, (width+len(gap))/(widest+len(gap)))
	rows := (len(cells) + cols - 1) / cols
	var b strings.Builder
	for r := range rows {
		var line strings.Builder
		for c := range cols {
			i := c*rows + r
			if i >= len(cells) {
				break
			}
			if c > 0 {
				line.WriteString(gap)
			}
			pad(&line, cells[i], widest)
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

// Table lays rows of cells out as a table, a line each: every cell but
// a row's last is filled with spaces to its column's width and followed
// by two more; a row's last cell is written as it is (a row that ends
// in an empty cell keeps the padding before it). A column's width is
// its widest cell over the unbroken run of rows that have a padded cell
// in it, so a row with fewer cells starts the columns it lacks afresh.
// This is text/tabwriter's layout with no minimum width, a padding of two
// spaces and no flags, which the command line's and azuld's listings
// have always had. A cell is text: a tab in it is no column's end.
func Table(rows [][]string) string {
	// widths[i][j] is the width of column j in row i.
	widths := make([][]int, len(rows))
	for i, row := range rows {
		widths[i] = make([]int, max(0, len(row)-1))
	}
	padded := func(i, j int) bool { return j < len(rows[i])-1 }
	for j := 0; ; j++ {
		found := false
		for i := 0; i < len(rows); {
			if !padded(i, j) {
				i++
				continue
			}
			found = true
			end, widest := i, 0
			for ; end < len(rows) && padded(end, j); end++ {
				widest = max(widest, cellWidth(rows[end][j]))
			}
			for ; i < end; i++ {
				widths[i][j] = widest
			}
		}
		if !found {
			break
		}
	}
	var b strings.Builder
	for i, row := range rows {
		for j, cell := range row {
			if !padded(i, j) {
				b.WriteString(cell)
				break
			}
			pad(&b, cell, widths[i][j])
			b.WriteString(gap)
		}
		b.WriteString("\n")
	}
	return b.String()
}
