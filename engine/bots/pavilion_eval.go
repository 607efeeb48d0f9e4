package bots

import (
	"math/bits"

	"github.com/azuld/azuld/engine/pavilion"
)

// The Summer Pavilion estimate of a seat's final score. It reads what a
// player weighs at the table:
//
//   - the score, with the token's cost already in it;
//   - the hand: what the tiles in it will become this round. A short plan
//     places them the way a careful player would (the placement worth
//     most per tile first: the run it scores, the bonus tiles of the
//     windows, statues and pillars it completes, the star and numbered
//     bonuses it brings nearer), with the wild colour standing in; what
//     the plan cannot place is kept (up to four) or discarded at a point
//     each;
//   - the board the plan leaves: completed stars and "all 1s … 4s" bonuses
//     count in full, partial ones by their progress and by whether the
//     rounds left can still bring the tiles their empty spaces cost;
//   - kept tiles (more for next round's wild colour), bonus tiles due;
//   - when a seat compares its own takes (pavilionDenial): the best take
//     each leaves to the next seat.
//
// In the last round nothing is worth keeping (a point each at the end) and
// partial bonuses are worth nothing.

// Weights of the Summer Pavilion estimate, in points. The weights of
// bonus tiles, wilds, keeps, leftovers, numbered-space progress and denial
// were set by tournaments of greedy against the checklist bot, 1,000 games
// each on the coloured board, the monochrome board and the Mini with the
// wild colours in another order (docs/BENCHMARKS.md): with the weights
// before (bonus tile 0.9, leftover 0.6, wild 2.0, denial 2.5, numbered
// spaces 0.45) greedy won 71, 65 and 53 %, with these 80, 70 and 64 %.
// Denial weighed most: with the wild colours in another order the next
// seat's best take matters more than the estimate gave it.
const (
	// spBonusTile is a bonus tile from the supply (chosen freely).
	spBonusTile = 1.2
	// spKeep is a tile kept for the next round; spKeepWild one of the next
	// round's wild colour.
	spKeep     = 1.0
	spKeepWild = 2.0
	// spLeftAcquire is a tile the plan cannot place yet while tiles are
	// still being taken: more of its colour may come.
	spLeftAcquire = 1.0
	// spWildAcquire is what a wild tile taken adds beyond its use in the
	// plan: it turns the tiles still to come into placements.
	spWildAcquire = 0.5
	// spDeny weighs the best take left to the next seat to act: taking
	// what the others need is worth something too.
	spDeny = 5.0
	// spTilesPerRound is about how many tiles a player places in a round:
	// it bounds what partial bonuses can still become.
	spTilesPerRound = 14.0
	// spStarShare and spCostShare weigh the progress of partial star and
	// numbered-space bonuses.
	spStarShare = 0.55
	spCostShare = 0.7
	// spTileCost is what a placement's tiles cost the plan per tile:
	// tiles spent on one space are not spent on another.
	spTileCost = 0.35
	// spFirstPick is moving first in a round, judged at the round's start:
	// the first choice of the fresh factories, which the token's cost paid
	// for in the round before. Without it the search's playouts counted the
	// cost and not what it buys (docs/BENCHMARKS.md, "The first pick").
	spFirstPick = 2.0
)

// spFeatureMasks are the spaces around each window, statue and pillar
// (docs/rules.md §3.3) and spFeatureTiles the bonus tiles each brings.
var spFeatureMasks, spFeatureTiles = buildFeatures()

func spBit(star, space int) uint64 { return 1 << uint(star*6+space-1) }

// spCyc maps an integer onto 1..6 cyclically.
func spCyc(k int) int { return ((k-1)%6+6)%6 + 1 }

func buildFeatures() (masks [pavilion.NumFeatures]uint64, tiles [pavilion.NumFeatures]int) {
	for s := 1; s <= 6; s++ {
		t := spCyc(s + 1)
		masks[s-1] = spBit(s, 5) | spBit(s, 6)
		tiles[s-1] = 3
		masks[6+s-1] = spBit(s, 1) | spBit(s, 2) | spBit(t, 3) | spBit(t, 4)
		tiles[6+s-1] = 2
		masks[12+s-1] = spBit(s, 2) | spBit(s, 3) | spBit(pavilion.CentreStar, spCyc(s-2)) | spBit(pavilion.CentreStar, spCyc(s-1))
		tiles[12+s-1] = 1
	}
	return masks, tiles
}

// spCostMasks[side][n-1] are the spaces of printed cost n (side 1:
// monochrome).
var spCostMasks = func() (m [2][4]uint64) {
	for side := range 2 {
		for star := range pavilion.NumStars {
			for space := 1; space <= 6; space++ {
				if c := pavilionSpaceCost(side == 1, star, space); c <= 4 {
					m[side][c-1] |= spBit(star, space)
				}
			}
		}
	}
	return m
}()

// spSpaceFeatures lists, per space bit, the features around it (at most
// three), -1 past the end.
var spSpaceFeatures = func() (out [pavilion.NumStars * 6][3]int8) {
	for i := range out {
		out[i] = [3]int8{-1, -1, -1}
		k := 0
		for f, m := range spFeatureMasks {
			if m&(1<<i) != 0 {
				out[i][k] = int8(f)
				k++
			}
		}
	}
	return out
}()

// featureTiles is the number of bonus tiles covering space b earns.
func featureTiles(covered, b uint64) int {
	after := covered | b
	n := 0
	for _, f := range spSpaceFeatures[bits.TrailingZeros64(b)] {
		if f < 0 {
			break
		}
		if m := spFeatureMasks[f]; after&m == m {
			n += spFeatureTiles[f]
		}
	}
	return n
}

// spBoard is what the estimate needs of a board: covered spaces and the
// colours on each star.
type spBoard struct {
	covered uint64
	on      [pavilion.NumStars]pavilion.Tiles
	mono    bool
	// fit has bit c set for each colour c that may go on the star, once
	// the star's bit in known says it was worked out.
	fit   [pavilion.NumStars]uint8
	known uint8
}

func newSPBoard(p *pavilion.Player, mono bool) spBoard {
	b := spBoard{covered: p.Covered, mono: mono}
	for star := range pavilion.NumStars {
		if p.Covered>>(star*6)&0x3f == 0 {
			continue
		}
		for _, cell := range p.Board[star] {
			if !cell.Empty() {
				b.on[star][cell.Colour()]++
			}
		}
	}
	return b
}

// fits reports whether colour c may go on star.
func (b *spBoard) fits(star int, c pavilion.Colour) bool {
	if b.known&(1<<star) == 0 {
		b.fit[star] = 0
		for c := range pavilion.Colour(pavilion.NumColours) {
			if b.colourFits(b.mono, star, c) {
				b.fit[star] |= 1 << c
			}
		}
		b.known |= 1 << star
	}
	return b.fit[star]&(1<<c) != 0
}

// colourFits reports whether colour c may go on star (docs/rules.md §3.5, §3.8).
func (b *spBoard) colourFits(mono bool, star int, c pavilion.Colour) bool {
	on := &b.on[star]
	if !mono {
		if star == pavilion.CentreStar {
			return on[c] == 0
		}
		sc, _ := pavilion.StarColour(star)
		return c == sc
	}
	total, colours := 0, 0
	for _, n := range on {
		total += int(n)
		if n > 0 {
			colours++
		}
	}
	switch {
	case total < 2:
		return true
	case colours == 1:
		return on[c] > 0
	}
	return on[c] == 0
}

// starValue is what a completed star is worth: its colour's value, or 12
// for the centre or a multicoloured star.
func (b *spBoard) starValue(mono bool, star int) int {
	if star == pavilion.CentreStar {
		return 12
	}
	if !mono {
		return outerStarValue[star]
	}
	colours, last := 0, 0
	for c, n := range b.on[star] {
		if n > 0 {
			colours++
			last = c
		}
	}
	switch colours {
	case 0:
		return 14 // either kind is still open: about their mean
	case 1:
		return outerStarValue[pavilion.StarOfColour(pavilion.Colour(last))]
	}
	return 12
}

// planGain is what the plan sees in covering space of star (whatever the
// colour): the run it scores, the bonus tiles, and the step towards the
// star and numbered bonuses (a completed one in full).
func (b *spBoard) planGain(mono bool, star, space int) float64 {
	bit := spBit(star, space)
	g := float64(runLengthOf(b.covered, star, space))
	g += spBonusTile * float64(featureTiles(b.covered, bit))
	after := b.covered | bit
	if after>>(star*6)&0x3f == 0x3f {
		g += float64(b.starValue(mono, star))
	} else {
		k := bits.OnesCount64(after >> (star * 6) & 0x3f)
		g += 0.25 * float64(b.starValue(mono, star)) * float64(2*k-1) / 36
	}
	side := 0
	if mono {
		side = 1
	}
	for n := 1; n <= 4; n++ {
		if m := spCostMasks[side][n-1]; m&bit != 0 {
			k := bits.OnesCount64(after & m)
			g += 0.25 * float64(4*n) * float64(2*k-1) / 49
			if after&m == m {
				g += float64(4 * n)
			}
		}
	}
	return g
}

// runLengthOf is the run a tile on space of star scores.
func runLengthOf(covered uint64, star, space int) int {
	spaces := covered>>(star*6)&0x3f | 1<<(space-1)
	if spaces == 0x3f {
		return 6
	}
	run := 1
	for i := 1; i < 6 && spaces&(1<<((space-1+i)%6)) != 0; i++ {
		run++
	}
	for i := 1; i < 6 && spaces&(1<<((space-1-i+6)%6)) != 0; i++ {
		run++
	}
	return run
}

// spPlan places hand on b the way a careful player would, one placement
// at a time, the best gain less the tiles' cost first, while one is worth
// making. It returns the points the placements score (runs and bonus
// tiles) and leaves the rest in hand.
func spPlan(b *spBoard, hand *pavilion.Tiles, wild pavilion.Colour, mono bool) float64 {
	points := 0.0
	for {
		bestStar, bestSpace, bestC := -1, 0, pavilion.Colour(0)
		bestNet, bestUse := 0.0, 0
		for star := range pavilion.NumStars {
			free := ^(b.covered >> (star * 6)) & 0x3f
			if free == 0 {
				continue
			}
			for c := range pavilion.Colour(pavilion.NumColours) {
				if hand[c] == 0 || !b.fits(star, c) {
					continue
				}
				have := int(hand[c])
				if c != wild {
					have += int(hand[wild])
				}
				for sp := free; sp != 0; sp &= sp - 1 {
					space := bits.TrailingZeros64(sp) + 1
					cost := pavilionSpaceCost(mono, star, space)
					if cost > have {
						continue
					}
					net := b.planGain(mono, star, space) - spTileCost*float64(cost)
					if net > bestNet {
						bestStar, bestSpace, bestC, bestNet, bestUse = star, space, c, net, cost
					}
				}
			}
		}
		if bestStar < 0 {
			return points
		}
		bit := spBit(bestStar, bestSpace)
		points += float64(runLengthOf(b.covered, bestStar, bestSpace)) +
			spBonusTile*float64(featureTiles(b.covered, bit))
		own := min(int(hand[bestC]), bestUse)
		hand[bestC] -= uint8(own)
		hand[wild] -= uint8(bestUse - own)
		b.covered |= bit
		b.on[bestStar][bestC]++
		b.known &^= 1 << bestStar
	}
}

// pavilionEval estimates seat's final score from s, as a seat judges its
// moves in the course of a round: the tiles in hand become this round's
// placements, the rounds after it bring the tiles partial bonuses need.
func pavilionEval(s *pavilion.State, seat int) float64 {
	return pavilionEstimate(s, seat, pavilion.Rounds-s.Round())
}

// pavilionRoundStartEval estimates seat's final score at the start of a
// round, before a tile is taken: where the search's playouts stop (see
// pavilionFamily.stretch). The round's own tiles are still to come, so
// partial bonuses may draw on them as on the later rounds'. Judged as in
// the course of a round, every partial star and numbered bonus would be
// worthless at the last round's start, though a whole round of tiles can
// still complete it, and judged a round short before. Counting the round
// won the search five to seven points more of its games against greedy
// in three variants of four (docs/BENCHMARKS.md, "The round ahead at a
// playout's end").
//
// The seat that moves first in the round gets spFirstPick.
func pavilionRoundStartEval(s *pavilion.State, seat int) float64 {
	v := pavilionEstimate(s, seat, pavilion.Rounds-s.Round()+1)
	if s.Actor() == seat {
		v += spFirstPick
	}
	return v
}

// pavilionEstimate estimates seat's final score from s with roundsAhead
// rounds of tiles still to come after the hand.
func pavilionEstimate(s *pavilion.State, seat int, roundsAhead int) float64 {
	p := s.Seat(seat)
	score := float64(p.Score)
	if s.Over() {
		return score
	}
	mono := s.Monochrome()
	round := s.Round()
	last := round >= pavilion.Rounds
	b := newSPBoard(&p, mono)
	hand := p.Hand
	phase := s.Phase()
	if phase == pavilion.PhaseAcquire || phase == pavilion.PhasePlay || phase == pavilion.PhaseBonus {
		if !p.Passed {
			score += spPlan(&b, &hand, s.Wild(), mono)
		}
	}
	if bs, due := s.BonusDue(); phase == pavilion.PhaseBonus && bs == seat {
		score += spBonusTile * float64(due)
	}
	// What the plan leaves: kept (the best four) or lost.
	left := hand.Total()
	switch {
	case phase == pavilion.PhaseAcquire:
		score += spLeftAcquire*float64(left) + spWildAcquire*float64(p.Hand[s.Wild()])
	case last:
		score -= float64(left)
	default:
		score += spKeep*float64(min(left, pavilion.KeepLimit)) - float64(max(0, left-pavilion.KeepLimit))
	}
	if last {
		score -= float64(p.Kept.Total())
	} else {
		next := s.WildOrder()[round]
		score += spKeep*float64(p.Kept.Total()) + (spKeepWild-spKeep)*float64(p.Kept[next])
	}
	return score + spBonuses(&b, mono, roundsAhead)
}

// pavilionDenial is what the best take left to the next seat to act
// costs seat while tiles are taken: a move that takes what the others
// need is worth that much more than one that leaves it.
func pavilionDenial(s *pavilion.State, seat int) float64 {
	if s.Phase() != pavilion.PhaseAcquire {
		return 0
	}
	if next := s.Actor(); next >= 0 && next != seat {
		return spDeny * spBestTake(s, next)
	}
	return 0
}

// spBestTake is the most tiles seat could take now that its board has
// room for, a wild counting double.
func spBestTake(s *pavilion.State, seat int) float64 {
	p := s.Seat(seat)
	b := newSPBoard(&p, s.Monochrome())
	var room [pavilion.NumColours]int
	for c := range room {
		room[c] = checklistRoom(&b, pavilion.Colour(c))
	}
	wild := s.Wild()
	best := 0.0
	for f := -1; f < s.NumFactories(); f++ {
		src := s.Centre()
		if f >= 0 {
			src = s.Factory(f)
		}
		w := 0.0
		if src[wild] > 0 {
			w = 2
		}
		for c, n := range src {
			if n == 0 || pavilion.Colour(c) == wild {
				continue
			}
			best = max(best, float64(min(int(n), room[c]))+w)
		}
	}
	return best
}

// spBonuses are the end bonuses of board b: in full when earned, by
// progress when the roundsLeft can still bring the tiles they need.
func spBonuses(b *spBoard, mono bool, roundsLeft int) float64 {
	ahead := spTilesPerRound * float64(roundsLeft)
	v := 0.0
	for star := range pavilion.NumStars {
		spaces := b.covered >> (star * 6) & 0x3f
		value := float64(b.starValue(mono, star))
		if spaces == 0x3f {
			v += value
			continue
		}
		if roundsLeft == 0 || spaces == 0 {
			continue
		}
		need := 0
		for sp := ^spaces & 0x3f; sp != 0; sp &= sp - 1 {
			need += pavilionSpaceCost(mono, star, bits.TrailingZeros64(sp)+1)
		}
		k := float64(bits.OnesCount64(spaces))
		v += spStarShare * value * (k * k / 36) * reach(need, ahead/3)
	}
	side := 0
	if mono {
		side = 1
	}
	for n := 1; n <= 4; n++ {
		m := spCostMasks[side][n-1]
		k := bits.OnesCount64(b.covered & m)
		total := bits.OnesCount64(m)
		if k == total {
			v += float64(4 * n)
			continue
		}
		if roundsLeft == 0 {
			continue
		}
		share := float64(k) / float64(total)
		v += spCostShare * float64(4*n) * share * share * reach(n*(total-k), ahead/2)
	}
	return v
}

// reach is how likely need tiles are to come when about budget may go to
// them: 1 when easily, falling to 0 when far out of reach.
func reach(need int, budget float64) float64 {
	if budget <= 0 {
		return 0
	}
	r := budget / float64(need)
	return min(1, r*r)
}
