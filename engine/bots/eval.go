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
	handWorth     = 0.4  // a usable tile in a Pavilion hand
	keptWorth     = 0.5  // a tile kept for the next Pavilion round
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
			if b.Wall[r][col] != azul.NoColor {
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
		c := b.LineColor[r]
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
	var perColor [azul.NumColors]int
	for r := range 5 {
		for col := range 5 {
			if c := b.Wall[r][col]; c.IsTile() {
				perColor[c]++
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
	for _, n := range perColor {
		score += bonusShare(n, azul.ColorBonus)
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

// Star values at the end (RULES.md §3.7), by outer star 1..6 and for the
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

// pavilionCost is the printed cost of a placement's space (0 otherwise).
func pavilionCost(s *pavilion.State, c pavilion.Cmd) int {
	if c.Kind != pavilion.CmdPlace {
		return 0
	}
	return pavilionSpaceCost(s.Monochrome(), int(c.Star), int(c.Space))
}

// pavilionEval is seat's score, plus the tiles in hand it can still use
// this round (the rest is lost when it passes), plus the kept tiles, plus
// small shares of the star and cost bonuses its board is working towards.
func pavilionEval(s *pavilion.State, seat int) float64 {
	p := s.Seat(seat)
	score := float64(p.Score)
	if s.Over() {
		return score
	}
	mono := s.Monochrome()
	wild := s.Wild()
	// Which colours still have a space on this board.
	var fits [pavilion.NumColours]bool
	for star := range pavilion.NumStars {
		free := 6 - bits.OnesCount64(p.Covered>>(star*6)&0x3f)
		if free == 0 {
			continue
		}
		if mono {
			fits = [pavilion.NumColours]bool{true, true, true, true, true, true}
			break
		}
		if star == pavilion.CentreStar {
			var on [pavilion.NumColours]bool
			for _, cell := range p.Board[star] {
				if !cell.Empty() {
					on[cell.Colour()] = true
				}
			}
			for c := range on {
				fits[c] = fits[c] || !on[c]
			}
			continue
		}
		if c, ok := pavilion.StarColour(star); ok {
			fits[c] = true
		}
	}
	usable, useless := 0, 0
	for c, n := range p.Hand {
		if pavilion.Colour(c) == wild || fits[c] {
			usable += int(n)
		} else {
			useless += int(n)
		}
	}
	switch s.Phase() {
	case pavilion.PhaseAcquire:
		// Tiles taken now are placed this round: nearly a point each.
		score += 2*handWorth*float64(usable) - 0.5*float64(useless)
	default:
		score += handWorth*float64(usable) - 0.5*float64(useless)
	}
	if s.Round() < pavilion.Rounds {
		score += keptWorth * float64(p.Kept.Total())
	} else {
		score -= float64(p.Kept.Total())
	}
	// Star bonuses and the "all spaces of cost n" bonuses.
	var costCovered [5]int
	for star := range pavilion.NumStars {
		k := bits.OnesCount64(p.Covered >> (star * 6) & 0x3f)
		value := outerStarValue[star]
		if mono {
			value = 14 // between a multicoloured star (12) and a single-coloured one
		}
		score += bonusProgress * float64(value) * float64(k*k) / 36
		for space := 1; space <= 6; space++ {
			if p.Covered&(1<<(star*6+space-1)) != 0 {
				if c := pavilionSpaceCost(mono, star, space); c <= 4 {
					costCovered[c]++
				}
			}
		}
	}
	for n := 1; n <= 4; n++ {
		k := costCovered[n]
		score += bonusProgress * float64(4*n) * float64(k*k) / 49
	}
	return score
}
