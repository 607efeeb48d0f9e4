package compose

import (
	"strings"
	"unicode/utf8"
)

// Columns lays cells out down the columns (like ls), as many columns as
// fit in width runes with two spaces between them, each line ending in a
// newline and without trailing spaces: the numbered legal moves of a turn
// mail and of `azul moves`, which would otherwise take a line each. It
// stands beside the mail's board so that azuld's text tables are all
// drawn in this one package.
func Columns(cells []string, width int) string {
	cellWidth := 0
	for _, c := range cells {
		cellWidth = max(cellWidth, utf8.RuneCountInString(c))
	}
	cols := max(1, (width+2)/(cellWidth+2))
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
				line.WriteString("  ")
			}
			line.WriteString(cells[i])
			line.WriteString(strings.Repeat(" ", cellWidth-utf8.RuneCountInString(cells[i])))
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}
