package bots

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/pavilion"
)

// MoveValue is the search's verdict on one legal move.
type MoveValue struct {
	Move engine.Move `json:"-"`
	// Notation and JSON are the move's canonical forms.
	Notation string `json:"notation"`
	// Visits is how many playouts tried the move.
	Visits int `json:"visits"`
	// ScoreDiff is the mean final score of the mover minus the best other
	// seat's over those playouts.
	ScoreDiff float64 `json:"score_diff"`
	// ScoreDiffMargin is the half-width of the 95 % confidence interval
	// of ScoreDiff, from the spread of the playouts' differences (0 for a
	// move that was not searched).
	ScoreDiffMargin float64 `json:"score_diff_margin"`
	// WinRate is the share of those playouts the mover won (ties half).
	WinRate float64 `json:"win_rate"`
	// Rank is the move's place in the analysis, 1 for the best.
	Rank int `json:"rank"`
	// Searched: the search tried the move at least MinSearchedVisits
	// times. The figures of a move that was not searched rest on a
	// playout or a few and say little.
	Searched bool `json:"searched"`
}

// MinSearchedVisits is the fewest playouts of a move whose figures an
// analysis reports as searched. Every legal move gets one playout before
// the search narrows down to the most promising ones; a single playout
// of the rest of a game can end anywhere (a 20-point win among them is
// no rarity), so such a move is ranked by its playouts, never by its
// figures.
const MinSearchedVisits = 8

// z95 is the standard normal quantile of a two-sided 95 % interval.
const z95 = 1.959964

// Analysis is the search's evaluation of a position for the seat to move.
type Analysis struct {
	Seat      int         `json:"seat"`
	Playouts  int         `json:"playouts"`
	Moves     []MoveValue `json:"moves"`
	Best      string      `json:"best"`
	Evaluated int         `json:"evaluated"`
}

// Analyse evaluates every legal move of seat in s with the search bot:
// playouts shared among the moves by the tree search, with the salt as its
// seed. In Azul Mini the playouts go to the game's end, so that the score
// differences are final ones; in Summer Pavilion they go to the round's
// end as the bot's do, and the score differences are those of the
// estimated final scores. Every move is tried; then the search goes on
// among the best few by the estimate, as the bot's does.
//
// The moves are ranked by what the search trusts: by their playouts,
// which it gives to the moves it rates best (the robust choice of tree
// search); among moves tried as often, the searched ones by mean reward
// and the others in the estimate's order. Best is the first of them, so
// the verdict on a move and the ranking never disagree, and a move that
// was not searched never ranks above one that was.
func Analyse(s engine.State, seat int, playouts int, salt uint64) (Analysis, error) {
	if playouts <= 0 {
		return Analysis{}, fmt.Errorf("%w: playouts must be positive", ErrBadBot)
	}
	switch st := s.(type) {
	case *azul.State:
		return analyse(azulFamily{}, st, seat, playouts, salt)
	case *pavilion.State:
		return analyse(pavilionFamily{}, st, seat, playouts, salt)
	case nil:
		return Analysis{}, fmt.Errorf("%w: the game has not started", ErrNoMove)
	}
	return Analysis{}, fmt.Errorf("%w: no analysis for %T", ErrBadBot, s)
}

func analyse[S any, C command, E any, F family[S, C, E]](f F, s *S, seat int, playouts int, salt uint64) (Analysis, error) {
	a := Analysis{Seat: seat, Playouts: playouts}
	legal := f.legal(nil, s, seat)
	if f.over(s) || len(legal) == 0 {
		return a, fmt.Errorf("%w for seat %d", ErrNoMove, seat)
	}
	if f.actor(s) != seat {
		// Grey-wall tiling with several seats to choose at once: the tree
		// follows the lowest seat.
		return a, fmt.Errorf("%w: seat %d chooses at the same time as a lower seat", ErrNoMove, seat)
	}
	x := newSearcher(f, s, salt)
	x.horizon = f.analysisHorizon()
	// Every legal move is a root child here, not only the best few.
	x.rootAll = true
	x.run(playouts, time.Time{})
	// The root's children are every legal move, in the estimate's order:
	// the order the stable sort keeps among unsearched moves tried alike.
	stats := x.rootStats()
	slices.SortStableFunc(stats, func(p, q rootStat[C]) int {
		if p.visits != q.visits {
			return q.visits - p.visits
		}
		if p.visits >= MinSearchedVisits && p.reward != q.reward {
			if p.reward > q.reward {
				return -1
			}
			return 1
		}
		return 0
	})
	for i, st := range stats {
		m := MoveValue{Move: engine.NewMove(st.move), Notation: st.move.Notation(), Visits: st.visits,
			ScoreDiff: st.diff, WinRate: st.win, Rank: i + 1, Searched: st.visits >= MinSearchedVisits}
		if m.Searched {
			m.ScoreDiffMargin = z95 * st.diffSD / math.Sqrt(float64(st.visits))
		}
		if st.visits > 0 {
			a.Evaluated++
		}
		a.Moves = append(a.Moves, m)
	}
	// A root the search could not expand (it always can: the arena is
	// empty then) would leave moves out; they are listed, untried, last.
	for _, c := range legal {
		if !slices.ContainsFunc(stats, func(st rootStat[C]) bool { return st.move == c }) {
			a.Moves = append(a.Moves, MoveValue{Move: engine.NewMove(c), Notation: c.Notation(), Rank: len(a.Moves) + 1})
		}
	}
	if len(a.Moves) > 0 && a.Moves[0].Visits > 0 {
		a.Best = a.Moves[0].Notation
	}
	return a, nil
}
