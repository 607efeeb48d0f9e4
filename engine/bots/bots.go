// Package bots chooses moves for bot seats. Bots are pure: given a state,
// a seat and a salt they always choose the same move, so a game with bots
// replays exactly.
package bots

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/azuld/azuld/engine"
)

// Random picks uniformly among the legal moves.
const Random = "random"

// Kinds lists the bot kinds a seat may hold.
func Kinds() []string { return []string{Random} }

// Known reports whether kind is a bot kind.
func Known(kind string) bool { return slices.Contains(Kinds(), kind) }

// ErrNoMove is returned when the seat has no legal move.
var ErrNoMove = errors.New("no legal move")

// Choose returns the move a bot of the given kind makes for seat. The salt
// (e.g. the game's version) varies the choice between turns.
func Choose(kind string, s engine.State, seat int, salt uint64) (engine.Move, error) {
	if s == nil {
		return engine.Move{}, fmt.Errorf("%w: the game has not started", ErrNoMove)
	}
	// Bots never resign.
	moves := slices.DeleteFunc(s.LegalMoves(seat), func(m engine.Move) bool { return m.Notation == "resign" })
	if len(moves) == 0 {
		return engine.Move{}, fmt.Errorf("%w for seat %d", ErrNoMove, seat)
	}
	switch kind {
	case Random:
		rng := rand.New(rand.NewPCG(salt, uint64(seat)+0x9e3779b97f4a7c15))
		return moves[rng.IntN(len(moves))], nil
	}
	return engine.Move{}, fmt.Errorf("unknown bot %q", kind)
}
