package bots

import (
	"math/bits"

	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/pavilion"
)

// The greedy estimates. Each is a player's score now, plus what the state
// makes certain or nearly certain (the round's end scoring, end-game
// bonuses already earned), plus small terms for progress that only break
// ties between moves of equal immediate gain. They read only what every
// player at the table sees.

// Weights of the progress terms, well below one point so that they only
// order moves whose immediate gains are (nearly) equal.
const (
	lineProgress  = 0.3  // per pattern line, by how full it is
	bonusProgress = 0.25 // share of an end bonus, by its square of progress
)

// azulEval is seat's score once the complete pattern lines are tiled and
// the floor is scored, plus the end bonuses of the wall that makes.
func azulEval(s *azul.State, seat int) float64 {
	b := s.Board(seat)
	score := float64(b.Score)
	if s.Over() {
		return score
	}
	grey := s.Grey()
	var rowTiles [5]uint8 // bit per column
	for r := range 5 {
		for col := range 5 {
			if b.Wall[r][col] != azul.NoColour {
				rowTiles[r] |= 1 << col
			}
		}
	}
	points := 0
	progress := 0.0
	for r := range 5 {
		n := int(b.LineCount[r])
		if n == 0 {
			continue
		}
		if n < r+1 {
			progress += lineProgress * float64(n) / float64(r+1)
			continue
		}
		c := b.LineColour[r]
		col, best := -1, -1
		if grey {
			for cols := b.LegalColumns(r+1, true); cols != 0; cols &= cols - 1 {
				k := bits.TrailingZeros8(cols)
				// The most points; among equal ones the column that keeps
				// the most colours open below (fewest tiles in it).
				p := 10*placement(&rowTiles, r, k) - columnFill(&rowTiles, k)
				if p > best {
					col, best = k, p
				}
			}
		} else if b.LegalColumns(r+1, false) != 0 {
			col = azul.WallColumn(r, c)
		}
		if col < 0 {
			continue // the engine sends the line to the floor; rare
		}
		points += placement(&rowTiles, r, col)
		rowTiles[r] |= 1 << col
		b.Wall[r][col] = c
	}
	floor := azul.FloorPenalty(int(b.FloorLen))
	score = float64(max(0, int(b.Score)+points-floor))
	// End bonuses: those the wall has are certain; partial ones count a
	// little, growing with the square of their progress.
	var perColour [azul.NumColours]int
	for r := range 5 {
		for col := range 5 {
			if c := b.Wall[r][col]; c.IsTile() {
				perColour[c]++
			}
		}
	}
	for r := range 5 {
		n := bits.OnesCount8(rowTiles[r])
		score += bonusShare(n, azul.RowBonus)
	}
	for col := range 5 {
		score += bonusShare(columnFill(&rowTiles, col), azul.ColumnBonus)
	}
	for _, n := range perColour {
		score += bonusShare(n, azul.ColourBonus)
	}
	return score + progress
}

// bonusShare is the full bonus when n of 5 is reached, a share growing
// with the square of n otherwise.
func bonusShare(n, bonus int) float64 {
	if n >= 5 {
		return float64(bonus)
	}
	return bonusProgress * float64(bonus) * float64(n*n) / 25
}

// placement is what a tile put at row r, column col scores.
func placement(rowTiles *[5]uint8, r, col int) int {
	h, v := 1, 1
	for c := col - 1; c >= 0 && rowTiles[r]&(1<<c) != 0; c-- {
		h++
	}
	for c := col + 1; c < 5 && rowTiles[r]&(1<<c) != 0; c++ {
		h++
	}
	for rr := r - 1; rr >= 0 && rowTiles[rr]&(1<<col) != 0; rr-- {
		v++
	}
	for rr := r + 1; rr < 5 && rowTiles[rr]&(1<<col) != 0; rr++ {
		v++
	}
	return azul.PlacementPoints(h, v)
}

func columnFill(rowTiles *[5]uint8, col int) int {
	n := 0
	for r := range 5 {
		if rowTiles[r]&(1<<col) != 0 {
			n++
		}
	}
	return n
}

// Star values at the end (docs/rules.md §3.7), by outer star 1..6 and for the
// centre or a multicoloured star.
var (
	outerStarValue = [pavilion.NumStars]int{12, 20, 17, 14, 15, 16, 18}
	monoOuterCost  = [6]int{3, 2, 1, 4, 5, 6}
)

// pavilionSpaceCost is the printed cost of a space (1..6).
func pavilionSpaceCost(mono bool, star, space int) int {
	switch {
	case !mono:
		return space
	case star == pavilion.CentreStar:
		return 3
	}
	return monoOuterCost[space-1]
}
