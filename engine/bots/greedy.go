package bots

import (
	"math/rand/v2"
)

// scored is a move with its greedy estimate.
type scored[C comparable] struct {
	move  C
	value float64
}

// rank appends to dst every legal move of seat with the greedy estimate
// of the state it leads to, in the engine's order of legal moves. A move
// that ends a round draws the next deal from rng: the estimates never look
// at the factories, so what is drawn does not change them. scratch holds
// each move's state (a caller's buffer: a local copy would escape).
func rank[S any, C comparable, E any, F family[S, C, E]](f F, s *S, seat int, legal []C, rng *rand.Rand, evs []E, dst []scored[C], scratch *S) ([]scored[C], []E) {
	for _, c := range legal {
		*scratch = *s
		var err error
		if evs, err = f.play(scratch, seat, c, rng, evs); err != nil {
			continue // AppendLegal lists only legal moves; skip rather than fail
		}
		dst = append(dst, scored[C]{c, f.judge(scratch, seat)})
	}
	return dst, evs
}

// greedy is the legal move with the best estimate; the first in the
// engine's order among equals, so the choice is a pure function of the
// position.
func greedy[S any, C comparable, E any, F family[S, C, E]](f F, s *S, seat int) (C, bool) {
	ranked := greedyRank(f, s, seat, f.legal(nil, s, seat))
	var best C
	if len(ranked) == 0 {
		return best, false
	}
	top := ranked[0]
	for _, m := range ranked[1:] {
		if m.value > top.value {
			top = m
		}
	}
	return top.move, true
}

// greedyRank is the greedy estimate of every legal move of seat, in the
// engine's order: the values greedy and the levels choose by. The draws
// of a round's end come from a fixed generator of the bot's own (the
// game's seed is never at hand), so that the values are a function of the
// position: the estimates do not look at the deal, though in Summer
// Pavilion what the next round's start is worth may.
func greedyRank[S any, C comparable, E any, F family[S, C, E]](f F, s *S, seat int, legal []C) []scored[C] {
	rng := rand.New(rand.NewPCG(0x6772656564, uint64(seat)))
	ranked, _ := rank(f, s, seat, legal, rng, nil, nil, new(S))
	return ranked
}
