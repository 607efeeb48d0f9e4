package bots

import (
	"math/bits"
	"math/rand/v2"

	"github.com/azuld/azuld/engine/pavilion"
)

// The checklist bot is the yardstick the Summer Pavilion bots are measured
// against: a one-move lookahead that judges each legal move by a player's
// checklist, written apart from the greedy estimate (no plan of the hand,
// no search):
//
//   - points now (the run a placement scores, the token's cost);
//   - each tile in hand that has an empty space of its colour on the
//     board is worth something, wilds with it; one that has none will be
//     discarded at a point;
//   - stars and the numbered-space bonuses by how far along they are;
//   - windows, statues and pillars one space from their bonus tiles;
//   - kept tiles (next round's wild colour more), bonus tiles due;
//   - denial: a take that removes tiles the next player could use.
//
// In Azul Mini it plays as the greedy bot.

// Checklist weights, in points.
const (
	clHandTile   = 1.0
	clWildTile   = 2.0
	clDeadTile   = 0.8
	clStarShare  = 0.45
	clCostShare  = 0.3
	clNearFeat   = 0.3
	clKeep       = 1.0
	clKeepWild   = 2.0
	clBonusTile  = 1.0
	clDenialTile = 0.2
)

// checklist is the legal move of seat with the best checklist value; the
// first in the engine's order among equals.
func checklist(s *pavilion.State, seat int) (pavilion.Cmd, bool) {
	legal := pavilion.AppendLegal(nil, s, seat)
	rng := rand.New(rand.NewPCG(0x636865636b, uint64(seat)))
	var best pavilion.Cmd
	bestV, found := 0.0, false
	var evs []pavilion.Event
	for _, c := range legal {
		next := *s
		var err error
		if evs, err = (pavilionFamily{}).play(&next, seat, c, rng, evs); err != nil {
			continue
		}
		v := checklistValue(&next, seat)
		if c.Kind == pavilion.CmdTake {
			v += clDenialTile * float64(checklistDenial(s, seat, c))
		}
		if !found || v > bestV {
			best, bestV, found = c, v, true
		}
	}
	return best, found
}

// checklistDenial counts the tiles a take removes that the next seat to
// take could place.
func checklistDenial(s *pavilion.State, seat int, c pavilion.Cmd) int {
	players := s.Players()
	other := (seat + 1) % players
	var src pavilion.Tiles
	if c.Source == pavilion.Center {
		src = s.Centre()
	} else {
		src = s.Factory(int(c.Source))
	}
	p := s.Seat(other)
	b := newSPBoard(&p, s.Monochrome())
	if checklistFree(&b, c.Colour) == 0 {
		return 0
	}
	return int(src[c.Colour])
}

// checklistRoom is what the empty spaces colour c may go on cost in all.
func checklistRoom(b *spBoard, c pavilion.Colour) int {
	n := 0
	for star := range pavilion.NumStars {
		if !b.fits(star, c) {
			continue
		}
		for sp := ^(b.covered >> (star * 6)) & 0x3f; sp != 0; sp &= sp - 1 {
			n += pavilionSpaceCost(b.mono, star, bits.TrailingZeros64(sp)+1)
		}
	}
	return n
}

// checklistFree counts the empty spaces colour c may go on.
func checklistFree(b *spBoard, c pavilion.Colour) int {
	n := 0
	for star := range pavilion.NumStars {
		if b.fits(star, c) {
			n += 6 - bits.OnesCount64(b.covered>>(star*6)&0x3f)
		}
	}
	return n
}

// checklistValue is the checklist's verdict on seat's position.
func checklistValue(s *pavilion.State, seat int) float64 {
	p := s.Seat(seat)
	v := float64(p.Score)
	if s.Over() {
		return v
	}
	mono := s.Monochrome()
	round := s.Round()
	last := round >= pavilion.Rounds
	b := newSPBoard(&p, mono)
	wild := s.Wild()
	// The hand: a tile counts when a free space of its colour can take
	// it (up to what those spaces cost), a wild when any tile of the hand
	// fits; the others will be discarded. While tiles are placed, those
	// beyond the four a player may keep count less: they are lost unless
	// placed.
	usable, dead := 0.0, 0.0
	for c, n := range p.Hand {
		if n == 0 || pavilion.Colour(c) == wild {
			continue
		}
		room := checklistRoom(&b, pavilion.Colour(c))
		use := min(int(n), room)
		usable += clHandTile * float64(use)
		dead += float64(int(n) - use)
	}
	if w := float64(p.Hand[wild]); usable > 0 || checklistRoom(&b, wild) > 0 {
		usable += clWildTile * w
	} else {
		dead += w
	}
	if s.Phase() == pavilion.PhasePlay && p.Hand.Total() > pavilion.KeepLimit {
		usable *= 0.5 + 0.5*float64(pavilion.KeepLimit)/float64(p.Hand.Total())
	}
	v += usable - clDeadTile*dead
	if bs, due := s.BonusDue(); s.Phase() == pavilion.PhaseBonus && bs == seat {
		v += clBonusTile * float64(due)
	}
	// Kept tiles.
	if last {
		v -= float64(p.Kept.Total())
	} else {
		next := s.WildOrder()[round]
		v += clKeep*float64(p.Kept.Total()) + (clKeepWild-clKeep)*float64(p.Kept[next])
	}
	// Stars, numbered spaces, features.
	for star := range pavilion.NumStars {
		k := bits.OnesCount64(b.covered >> (star * 6) & 0x3f)
		value := float64(b.starValue(mono, star))
		if k == 6 {
			v += value
		} else if !last {
			v += clStarShare * value * float64(k*k) / 36
		}
	}
	side := 0
	if mono {
		side = 1
	}
	for n := 1; n <= 4; n++ {
		m := spCostMasks[side][n-1]
		k, total := bits.OnesCount64(b.covered&m), bits.OnesCount64(m)
		if k == total {
			v += float64(4 * n)
		} else if !last {
			v += clCostShare * float64(4*n) * float64(k*k) / float64(total*total)
		}
	}
	for f, m := range spFeatureMasks {
		if bits.OnesCount64(m&^b.covered) == 1 {
			v += clNearFeat * float64(spFeatureTiles[f])
		}
	}
	return v
}
