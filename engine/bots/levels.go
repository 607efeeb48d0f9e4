package bots

import (
	"math"
	"math/rand/v2"
	"time"
)

// The levels: bots of graded strength, from level 1 (a player who knows
// the rules should win about half its games) to level 6 (the search at its
// default budget). A weaker level plays the way a weaker person does. It
// looks less far ahead: the levels just below 6 play their search's
// choice with a small budget of playouts to the round's end (Azul levels
// 4 and 5; Summer Pavilion level 5), the others judge each move only one
// move ahead, by the greedy estimate. And levels 1–3 do not always play
// what they rate best: they draw a move by a softmax of the estimates, in
// points, with a temperature (the higher, the more often a weaker move),
// among the moves the estimate rates at most LevelGuard points below its
// best. So they never play an absurd move, such as a needless dump of
// tiles on the floor line while a good move exists: a weak player's
// mistakes, not a random one's.
//
// Like every bot a level sees only what players see. Its softmax draws
// from the salt and the seat, never from the game's seed, so levels 1–5
// choose a function of the position and the salt; level 6, like the
// search bot, thinks for a time, unless a playout bound is given
// (tournaments).

// The level kinds, weakest first.
const (
	Level1 = "level1"
	Level2 = "level2"
	Level3 = "level3"
	Level4 = "level4"
	Level5 = "level5"
	Level6 = "level6"
)

// Levels lists the level kinds, weakest first.
func Levels() []string { return []string{Level1, Level2, Level3, Level4, Level5, Level6} }

// LevelGuard is how far, in points of the greedy estimate, below the
// estimate's best move the move of a level may be. A level's softmax
// chooses only among the moves within it.
const LevelGuard = 3.0

// level is how a level plays.
type level struct {
	// playouts is the search's budget; 0: no search, every move judged
	// one move ahead by the greedy estimate and drawn by the softmax;
	// -1: the search bot's default budget (time).
	playouts int
	// temperature, in points, of a level without search: a move v points
	// below the best is exp(-v/temperature) times as likely. 0: the best.
	temperature float64
}

// levelOf is the level a kind names (1–6), 0 for other kinds.
func levelOf(kind string) int {
	for i, k := range Levels() {
		if k == kind {
			return i + 1
		}
	}
	return 0
}

// levelRNG is the draw of a level's softmax: from the salt and the seat
// alone, a value in [0, 1). It allocates nothing.
func levelRNG(salt uint64, seat int) float64 {
	var p rand.PCG
	p.Seed(salt, uint64(seat)^0x1e7e1b075)
	return float64(p.Uint64()>>11) / (1 << 53)
}

// softmaxPick is the index of the move drawn from values (the greedy
// estimates, in points) by a softmax with the temperature, among the
// moves within LevelGuard of the best; u in [0, 1) is the draw. With a
// temperature of 0 it is the best value's first move. It allocates
// nothing.
func softmaxPick(values []float64, temperature, u float64) int {
	best, bestV := 0, math.Inf(-1)
	for i, v := range values {
		if v > bestV {
			best, bestV = i, v
		}
	}
	if temperature <= 0 {
		return best
	}
	total := 0.0
	for _, v := range values {
		if v >= bestV-LevelGuard {
			total += math.Exp((v - bestV) / temperature)
		}
	}
	target := u * total
	for i, v := range values {
		if v < bestV-LevelGuard {
			continue
		}
		target -= math.Exp((v - bestV) / temperature)
		if target < 0 {
			return i
		}
	}
	return best
}

// chooseLevel is the move of a level lv (1–6) for seat in s, which has at
// least two legal moves.
func chooseLevel[S any, C command, E any, F family[S, C, E]](f F, s *S, seat int, legal []C, lv int, b Bot, salt uint64) C {
	l := f.levels()[lv-1]
	if l.playouts == 0 || f.actor(s) != seat {
		temperature := l.temperature
		if l.playouts != 0 {
			// Grey-wall tiling, several seats at once: the searching
			// levels choose as greedy does there, as the search bot does.
			temperature = 0
		}
		ranked := greedyRank(f, s, seat, legal)
		if len(ranked) == 0 {
			return legal[0] // the engine listed only moves it then refused
		}
		values := make([]float64, len(ranked))
		for i, m := range ranked {
			values[i] = m.value
		}
		return ranked[softmaxPick(values, temperature, levelRNG(salt, seat))].move
	}
	x := newSearcher(f, s, salt^uint64(seat)<<56)
	switch {
	case l.playouts > 0:
		x.run(l.playouts, time.Time{})
	case b.Playouts > 0:
		x.run(b.Playouts, time.Time{})
	default:
		x.run(1<<30, time.Now().Add(DefaultBudget))
	}
	if c, ok := x.best(); ok {
		return c
	}
	c, _ := greedy(f, s, seat)
	return c
}

// The levels of each family. Levels 1–3 judge moves one ahead by the
// greedy estimate and draw among them by a softmax; Azul's levels 4 and 5
// search with a small budget; level 6 is the search bot at its default
// budget. In Summer Pavilion a search of 20 playouts is already within
// about 200–275 rating points of the default budget's (350 playouts were
// level with it), so level 5 is that search and level 4 plays the
// estimate's best move, as greedy does. The families' estimates differ in scale, and
// so do their temperatures.
// The temperatures and budgets were set by tournaments of the levels
// against each other (docs/BENCHMARKS.md, "Levels").
var (
	azulLevels = [6]level{
		{temperature: 3.0},
		{temperature: 0.7},
		{temperature: 0.2},
		{playouts: 30},
		{playouts: 100},
		{playouts: -1},
	}
	pavilionLevels = [6]level{
		{temperature: 8.0},
		{temperature: 1.5},
		{temperature: 0.7},
		{temperature: 0},
		{playouts: 20},
		{playouts: -1},
	}
)

func (azulFamily) levels() *[6]level     { return &azulLevels }
func (pavilionFamily) levels() *[6]level { return &pavilionLevels }
