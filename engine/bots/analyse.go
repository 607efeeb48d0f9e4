package bots

import (
	"fmt"
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
	// WinRate is the share of those playouts the mover won (ties half).
	WinRate float64 `json:"win_rate"`
}

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
// among the best few by the estimate, as the bot's does. The moves are in
// the engine's order; Best is the one the playouts rate best (the most
// tried).
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
	byMove := make(map[C]rootStat[C])
	for _, st := range x.rootStats() {
		byMove[st.move] = st
	}
	for _, c := range legal {
		st := byMove[c]
		a.Moves = append(a.Moves, MoveValue{Move: engine.NewMove(c), Notation: c.Notation(), Visits: st.visits, ScoreDiff: st.diff, WinRate: st.win})
		if st.visits > 0 {
			a.Evaluated++
		}
	}
	if best, ok := x.best(); ok {
		a.Best = best.Notation()
	}
	return a, nil
}
