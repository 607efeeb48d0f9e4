package bots

import (
	"math"
	"math/rand/v2"

	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/pavilion"
)

// family is what the greedy and the search bots need of a game family,
// on its typed fast path: S is the state (a plain value, so assignment
// branches it), C a command and E an event. The adapters are empty structs,
// so generic code over them is compiled per family and calls nothing
// through an interface value.
type family[S any, C comparable, E any] interface {
	// actor is the seat that must act now, -1 when the game is over. When
	// several seats may act (grey-wall tiling) it is the lowest: their
	// choices do not interact.
	actor(s *S) int
	// legal appends the legal moves of seat (never resign).
	legal(dst []C, s *S, seat int) []C
	// play applies seat's move, with every random reveal of the batch
	// drawn from rng; buf is a scratch buffer for the events.
	play(s *S, seat int, c C, rng *rand.Rand, buf []E) ([]E, error)
	over(s *S) bool
	players(s *S) int
	score(s *S, seat int) int
	// eval is the estimate of seat's final score from s where a playout
	// stopped (with a horizon, the end of its stretch): points now, what
	// the round's end will bring, what is still to lose; where a round
	// starts, what moving first in it is worth.
	eval(s *S, seat int) float64
	// judge is eval with what matters only when one seat compares its
	// own moves (what a take leaves to the next seat): the greedy choice
	// and the ranking of a node's moves. It must not judge the seats of a
	// playout's end against each other, where the seat to act next would
	// stand apart.
	judge(s *S, seat int) float64
	// playoutMoves appends the moves a playout chooses among: the legal
	// moves, or a subset of them that leaves out the obviously poor.
	playoutMoves(dst []C, s *S, seat int) []C
	// horizon is 1 when a playout stops at the end of its segment, where
	// the greedy estimates judge the position, 0 when it plays to the end.
	horizon() int
	// analysisHorizon is the horizon of the analysis of a finished game.
	analysisHorizon() int
	// segment numbers the stretches of play the tree and the playouts
	// stop at: a move that changes it ends the tree's branch (a move that
	// draws hidden tiles must).
	segment(s *S) int
	// stretch numbers what a playout plays through before the estimates
	// judge it (with a horizon): one segment or several. A playout draws
	// its own tiles, so it may go on past a draw that must end the tree's
	// branch.
	stretch(s *S) int
	// rootWidth is how many moves the bot's search tries at its root: the
	// best by the greedy estimate.
	rootWidth() int
	// switchMargin is how much better (in mean reward) the search's
	// choice must be than the greedy estimate's for an analysis to prefer
	// it (see selectChild).
	switchMargin() float64
	// overrules reports whether the bot's search plays its most tried
	// move, with the verdict best, instead of the greedy estimate's
	// choice, with the verdict est.
	overrules(best, est verdict) bool
	// spread is how far the estimated margin between two seats at a
	// playout's end may still move before the game ends, in points: a
	// playout's win is then the chance the margin gives, not its sign. 0
	// where the playout ended the game or the sign is to be counted.
	spread(s *S) float64
	// exploration is the UCB1 constant of the search's selection, for
	// rewards in [0, 1].
	exploration() float64
	// quick picks a playout move among playoutMoves cheaply.
	quick(s *S, seat int, legal []C, rng *rand.Rand) C
	// levels is how levels 1–6 play (levels.go).
	levels() *[6]level
}

type azulFamily struct{}

func (azulFamily) actor(s *azul.State) int {
	mask := s.ToActMask()
	for seat := 0; mask != 0; seat++ {
		if mask&(1<<seat) != 0 {
			return seat
		}
	}
	return -1
}

func (azulFamily) legal(dst []azul.Cmd, s *azul.State, seat int) []azul.Cmd {
	return azul.AppendLegal(dst, s, seat)
}

func (azulFamily) play(s *azul.State, seat int, c azul.Cmd, rng *rand.Rand, buf []azul.Event) ([]azul.Event, error) {
	buf, err := azul.DecideRand(s, seat, c, rng, buf[:0])
	if err != nil {
		return buf, err
	}
	for i := range buf {
		if err := s.Apply(buf[i]); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

func (azulFamily) playoutMoves(dst []azul.Cmd, s *azul.State, seat int) []azul.Cmd {
	return azul.AppendLegal(dst, s, seat)
}

// Azul playouts stop at the next deal too: the round's end is where the
// points are scored, and the estimate of the walls then judges better than
// the random rest of a game (measured: search beats greedy far more often).
func (azulFamily) horizon() int { return 1 }

func (azulFamily) switchMargin() float64 { return 0.03 }

// An Azul search plays its choice when its mean reward is ahead of the
// estimate's by the switch margin.
func (f azulFamily) overrules(best, est verdict) bool {
	return best.reward >= est.reward+f.switchMargin()
}

// An Azul playout wins by the sign of the estimated margin (its figures
// were measured so).
func (azulFamily) spread(*azul.State) float64 { return 0 }

// The Azul search's exploration constant (its figures were measured with
// it).
func (azulFamily) exploration() float64 { return 0.7 }

// An Azul search tries the 16 best moves at its root.
func (azulFamily) rootWidth() int { return 16 }

// An Azul analysis plays whole games: final scores, not estimates.
func (azulFamily) analysisHorizon() int { return 0 }

// An Azul segment is a round: from one deal to the next.
func (azulFamily) segment(s *azul.State) int { return s.Reveals() }

// An Azul playout stops at the next deal: a segment.
func (azulFamily) stretch(s *azul.State) int { return s.Reveals() }

func (azulFamily) over(s *azul.State) bool               { return s.Over() }
func (azulFamily) players(s *azul.State) int             { return s.Players() }
func (azulFamily) score(s *azul.State, seat int) int     { return s.Score(seat) }
func (azulFamily) eval(s *azul.State, seat int) float64  { return azulEval(s, seat) }
func (azulFamily) judge(s *azul.State, seat int) float64 { return azulEval(s, seat) }

// quick draws three legal moves and keeps the one that wastes the fewest
// tiles on the floor: random play that still fills its pattern lines.
func (azulFamily) quick(s *azul.State, seat int, legal []azul.Cmd, rng *rand.Rand) azul.Cmd {
	best := legal[rng.IntN(len(legal))]
	if best.Kind != azul.CmdTake {
		return best
	}
	b := s.Board(seat)
	bestWaste := azulWaste(s, &b, best)
	for range 2 {
		c := legal[rng.IntN(len(legal))]
		if w := azulWaste(s, &b, c); w < bestWaste {
			best, bestWaste = c, w
		}
	}
	return best
}

// azulWaste is how many tiles a take would put on the floor.
func azulWaste(s *azul.State, b *azul.Board, c azul.Cmd) int {
	var n int
	if c.Source == azul.Center {
		n = int(s.Center()[c.Colour])
	} else {
		n = int(s.Factory(int(c.Source))[c.Colour])
	}
	if c.Line == azul.Floor {
		return n
	}
	r := int(c.Line) - 1
	return max(0, n-(r+1-int(b.LineCount[r])))
}

type pavilionFamily struct{}

func (pavilionFamily) actor(s *pavilion.State) int { return s.Actor() }

func (pavilionFamily) legal(dst []pavilion.Cmd, s *pavilion.State, seat int) []pavilion.Cmd {
	return pavilion.AppendLegal(dst, s, seat)
}

func (pavilionFamily) play(s *pavilion.State, seat int, c pavilion.Cmd, rng *rand.Rand, buf []pavilion.Event) ([]pavilion.Event, error) {
	buf, err := pavilion.DecideRand(s, seat, c, rng, buf[:0])
	if err != nil {
		return buf, err
	}
	for i := range buf {
		if err := s.Apply(&buf[i]); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// playoutMoves are the placements while there are any; then a single
// pass that keeps the most useful tiles (next round's wild colour first,
// then the most numerous colours) instead of the hundreds of ways to pass.
func (pavilionFamily) playoutMoves(dst []pavilion.Cmd, s *pavilion.State, seat int) []pavilion.Cmd {
	if s.Phase() != pavilion.PhasePlay {
		return pavilion.AppendLegal(dst, s, seat)
	}
	n := len(dst)
	dst = pavilion.AppendPlaces(dst, s, seat)
	if len(dst) > n {
		return dst
	}
	return append(dst, pavilion.Pass(keepChoice(s, seat)))
}

// keepChoice is the tiles a playout keeps when it passes.
func keepChoice(s *pavilion.State, seat int) pavilion.Tiles {
	hand := s.Seat(seat).Hand
	var keep pavilion.Tiles
	room := pavilion.KeepLimit
	if s.Round() >= pavilion.Rounds {
		return keep // kept tiles cost a point each at the end
	}
	next := s.WildOrder()[s.Round()]
	take := func(c int) {
		n := min(int(hand[c]), room)
		keep[c] += uint8(n)
		hand[c] -= uint8(n)
		room -= n
	}
	take(int(next))
	for room > 0 {
		most := -1
		for c := range hand {
			if hand[c] > 0 && (most < 0 || hand[c] > hand[most]) {
				most = c
			}
		}
		if most < 0 {
			break
		}
		take(most)
	}
	return keep
}

// Pavilion playouts stop at the next deal (see stretch): six rounds of
// random play say little about a move, the estimates of the round's
// outcome say more.
func (pavilionFamily) horizon() int { return 1 }

// The Summer Pavilion estimate is good enough that a few hundred
// playouts of a heuristic policy overrule it wrongly more often than not
// at a smaller margin (measured at 350 playouts: with 0.03, 70 % against
// the checklist bot and 23 % as one seat among greedy ones at 3 players;
// with 0.1, 79.5 % and 37.5 %).
func (pavilionFamily) switchMargin() float64 { return 0.1 }

// spSwitchPoints is the mean margin, in points against the best other
// seat, by which the bot's search must rate its choice above the
// estimate's to play it; spSwitchTolerance is how much mean reward it may
// give up for them. Judged by mean reward alone (the switch margin), the
// search kept to the estimate's choice wherever the game looked won or
// lost, since points change the reward little there; judged by points
// alone, it took chances that lost as many games as the points won
// (docs/BENCHMARKS.md, "A lead's chance, and the search's choice by
// points").
const (
	spSwitchPoints    = 1.0
	spSwitchTolerance = 0.02
)

func (pavilionFamily) overrules(best, est verdict) bool {
	return best.diff >= est.diff+spSwitchPoints && best.reward >= est.reward-spSwitchTolerance
}

// spSpreadPerRound is how far, in points, the margin between two seats
// may move in a round still to play; over k rounds it moves √k times as
// far. At a round's end the estimate judges walls that five, four, …
// rounds will change: a lead of two points is far from a won game, and
// counting it as one made the search indifferent to every move that kept
// a lead or left a deficit (docs/BENCHMARKS.md). 8 judged worse than 4.
const spSpreadPerRound = 4.0

func (pavilionFamily) spread(s *pavilion.State) float64 {
	if s.Over() {
		return 0
	}
	return spSpreadPerRound * math.Sqrt(float64(pavilion.Rounds-s.Round()+1))
}

// The Summer Pavilion search's exploration constant. At 3,500 playouts
// against greedy, 200 games each on the same seeds, 1.0 won 80.5 % on the
// coloured board (0.7: 76.0 %) and 82.5 % on the monochrome one (0.7:
// 87.0 %): 326 of 400 games either way, each difference about one
// standard error. At 350 playouts they were no different either (the Mini
// with another wild order against the checklist, 75.0 % both; one search
// seat among greedy at 3 players, 67.2 % against 66.5 %; 0.4: 65.5 %). No
// worse taken together, so 1.0 (docs/BENCHMARKS.md).
func (pavilionFamily) exploration() float64 { return 1.0 }

// A Pavilion search spends its budget on the four best moves by the
// estimate: the estimate is good enough that the fifth and later are
// rarely better, and among sixteen a few hundred playouts overrule it on
// noise (measured at 350 playouts against the checklist bot in the Mini
// with the wild colours in another order, 200 games each: 66.8 % with the
// 16 best, 71–75 % with the 3–8 best, 75 % with the 4 best).
func (pavilionFamily) rootWidth() int { return 4 }

// A Pavilion analysis is the search the bot plays: playouts to the
// round's end, judged by the estimate of the final score. (With whole-game
// playouts the analysis named the move a search ten times as deep named
// in 62.5 % of positions, with these far more often: docs/BENCHMARKS.md.)
func (pavilionFamily) analysisHorizon() int { return 1 }

// A Pavilion segment runs from one draw to the next. (Judging takes by
// the hand they leave at the end of the acquisition was measured: much
// weaker.)
func (pavilionFamily) segment(s *pavilion.State) int { return s.Reveals() }

// A Pavilion playout goes on to the round's end, through the supply's
// refills after bonus tiles: stopped at a refill, in the middle of the
// play phase, the estimate judged hands that were about to become points
// (measured: search beat greedy in 89 % of Mini games instead of 67 %).
func (pavilionFamily) stretch(s *pavilion.State) int { return s.Round() }

func (pavilionFamily) over(s *pavilion.State) bool           { return s.Over() }
func (pavilionFamily) players(s *pavilion.State) int         { return s.Players() }
func (pavilionFamily) score(s *pavilion.State, seat int) int { return s.Score(seat) }
func (pavilionFamily) judge(s *pavilion.State, seat int) float64 {
	return pavilionEval(s, seat) - pavilionDenial(s, seat)
}

// A Pavilion playout stops at a round's start (see stretch), where the
// round's tiles are still to come; the game's end scores itself.
func (pavilionFamily) eval(s *pavilion.State, seat int) float64 {
	if s.Phase() == pavilion.PhaseAcquire {
		return pavilionRoundStartEval(s, seat)
	}
	return pavilionEval(s, seat)
}

// spPlayoutRandomEvery: a playout plays the better of two random moves
// one move in this many, the cheap score's best otherwise. With 4 the
// search won less in three variants of four and about the same in
// monochrome (docs/BENCHMARKS.md, "The greedier playout policy"); 64 won
// no more than 16 on a first screen.
const spPlayoutRandomEvery = 16

// quick is the playout policy: mostly the move a careful player would
// make by a cheap score (takes by the tiles they bring that have a space
// to go to, less the token's cost; placements by the plan's gain less the
// tiles they cost), one move in spPlayoutRandomEvery the better of two
// random moves, so that the playouts of one move still differ.
func (pavilionFamily) quick(s *pavilion.State, seat int, legal []pavilion.Cmd, rng *rand.Rand) pavilion.Cmd {
	if len(legal) == 1 || (legal[0].Kind != pavilion.CmdTake && legal[0].Kind != pavilion.CmdPlace) {
		return legal[rng.IntN(len(legal))]
	}
	p := s.Seat(seat)
	b := newSPBoard(&p, s.Monochrome())
	if rng.IntN(spPlayoutRandomEvery) == 0 {
		a, c := legal[rng.IntN(len(legal))], legal[rng.IntN(len(legal))]
		if quickValue(s, &b, c) > quickValue(s, &b, a) {
			return c
		}
		return a
	}
	// A space's gain is the same whatever the number of wilds paid.
	var gain [pavilion.NumStars * 6]float64
	var known uint64
	best, bestV, ties := legal[0], math.Inf(-1), 0
	for _, c := range legal {
		var v float64
		if c.Kind == pavilion.CmdPlace {
			i := int(c.Star)*6 + int(c.Space) - 1
			if known&(1<<i) == 0 {
				gain[i] = quickValue(s, &b, pavilion.Place(int(c.Star), int(c.Space), c.Colour, 0))
				known |= 1 << i
			}
			v = gain[i] - 0.3*float64(c.Wilds)
		} else {
			v = quickValue(s, &b, c)
		}
		switch {
		case v > bestV:
			best, bestV, ties = c, v, 1
		case v == bestV:
			// Among equals each is as likely.
			ties++
			if rng.IntN(ties) == 0 {
				best = c
			}
		}
	}
	return best
}

// quickValue is the playout policy's score of a take or a placement.
func quickValue(s *pavilion.State, b *spBoard, c pavilion.Cmd) float64 {
	mono := s.Monochrome()
	switch c.Kind {
	case pavilion.CmdTake:
		var src pavilion.Tiles
		if c.Source == pavilion.Center {
			src = s.Centre()
		} else {
			src = s.Factory(int(c.Source))
		}
		wild := s.Wild()
		n := float64(src[c.Colour])
		if checklistFree(b, c.Colour) == 0 {
			n = -0.5 * n // nowhere to go: discarded
		}
		if c.Colour != wild && src[wild] > 0 {
			n += 1.2 // one wild comes along
		}
		if c.Source == pavilion.Center && s.TokenHolder() < 0 {
			n -= float64(src[c.Colour]) // the token costs a point per tile
			if c.Colour != wild && src[wild] > 0 {
				n--
			}
		}
		return n
	case pavilion.CmdPlace:
		star, space := int(c.Star), int(c.Space)
		cost := pavilionSpaceCost(mono, star, space)
		return b.planGain(mono, star, space) - spTileCost*float64(cost) - 0.3*float64(c.Wilds)
	}
	return 0
}
