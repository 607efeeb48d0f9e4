package main

import (
	"regexp"
	"strings"
)

// ANSI colours of the tiles of both games.
var tileColours = map[string]string{
	"blue": "34", "yellow": "33", "red": "31", "black": "90", "white": "97",
	"purple": "35", "green": "32", "orange": "38;5;208",
}

// letterColours are the tile letters of the boards: Azul's B Y R K W
// and Summer Pavilion's P G O Y B R (M, the start marker, is bold).
var letterColours = map[byte]string{
	'B': "34", 'Y': "33", 'R': "31", 'K': "90", 'W': "97",
	'P': "35", 'G': "32", 'O': "38;5;208", 'M': "1",
}

var (
	colourWord = regexp.MustCompile(`\b(blue|yellow|red|black|white|purple|green|orange)\b`)
	// boardRow matches the rows of a board: Azul's pattern lines
	// ("  3      R R |") and floor, Summer Pavilion's stars ("  S2 ...").
	boardRow   = regexp.MustCompile(`^  (\d  |floor|S\d )`)
	tileLetter = regexp.MustCompile(`\b[BYRKWPGOMbyrkw]\b`)
)

// colourize adds ANSI colours to the engine's text rendering: colour
// names and the tile letters of the boards (an empty wall space's small
// letter dimmed). Without colour the text is returned as it is.
func colourize(text string, on bool) string {
	if !on {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if boardRow.MatchString(line) {
			head, rest := line[:5], line[5:]
			rest = tileLetter.ReplaceAllStringFunc(rest, func(l string) string {
				c := l[0]
				if c >= 'a' && c <= 'z' {
					return "\x1b[2;" + letterColours[c-('a'-'A')] + "m" + l + "\x1b[0m"
				}
				return "\x1b[1;" + letterColours[c] + "m" + l + "\x1b[0m"
			})
			line = head + rest
		}
		lines[i] = colourWord.ReplaceAllStringFunc(line, func(w string) string {
			return "\x1b[" + tileColours[w] + "m" + w + "\x1b[0m"
		})
	}
	return strings.Join(lines, "\n")
}
