package play

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
)

// ErrHintsOff: a hint asked for in a rated game, where a player's moves
// must be their own.
var ErrHintsOff = errors.New("hints are off in rated games")

// HintRequest asks for a hint for the caller's seat that must act.
type HintRequest struct {
	GameID string
	Player Player
	// Seat is the seat to hint (nil: the caller's seat that must act).
	Seat *int
	// Allow, when set, is asked once the hint is due and before it is
	// searched (the API's hints limit): a hint refused for what it asks
	// never uses up the caller's allowance.
	Allow func(context.Context) error
}

// HintResult is the strongest level's suggestion for a seat at a version
// of a game, with its reasons (bots.Reasons; tell.Reasons words them).
type HintResult struct {
	GameID  string
	Version int64
	Seat    int
	Move    engine.Move
	Reasons []bots.Reason
}

// hintSlots is how many hints may be searched at once: half the
// processors, so that hints never take the whole machine from the moves
// and the bots.
func hintSlots() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// Hint is the strongest level's suggestion for the caller's seat, in an
// unrated game, on the caller's turn: level 6 with a playout bound
// (bots.HintPlayouts), so that a hint costs a known amount of CPU; the
// API counts hints against the hints limit besides. Refused with
// ErrHintsOff in a rated game, ErrForbidden for one who holds no seat
// (or not the seat asked), engine.ErrNotYourTurn when the seat need not
// act, engine.ErrGameOver after the end. It changes nothing: a hint is
// not an event, and no other player learns of it.
func (s *Service) Hint(ctx context.Context, req HintRequest) (*HintResult, error) {
	g, err := s.runningGame(ctx, req.GameID)
	if err != nil {
		return nil, err
	}
	seat, err := hintSeat(g, req.Player, req.Seat)
	if err != nil {
		return nil, err
	}
	if req.Allow != nil {
		if err := req.Allow(ctx); err != nil {
			return nil, err
		}
	}
	select {
	case s.hintSlots <- struct{}{}:
		defer func() { <-s.hintSlots }()
	case <-ctx.Done():
		return nil, fmt.Errorf("hint in game %s: %w", g.ID, ctx.Err())
	}
	h, err := bots.Suggest(g.Rules, g.State, seat, uint64(g.Version))
	if err != nil {
		return nil, fmt.Errorf("hint in game %s: %w", g.ID, err)
	}
	return &HintResult{GameID: g.ID, Version: g.Version, Seat: seat, Move: h.Move, Reasons: h.Reasons}, nil
}

// hintSeat is the seat a player may get a hint for in g: theirs, in an
// unrated game, and one that must act now.
func hintSeat(g *Game, p Player, seat *int) (int, error) {
	held := g.SeatsOf(p.ID)
	switch {
	case len(held) == 0:
		return 0, fmt.Errorf("%w: you hold no seat in this game", ErrForbidden)
	case seat != nil && !slices.Contains(held, *seat):
		return 0, fmt.Errorf("%w: seat %d is not yours", ErrForbidden, *seat)
	case g.Rated:
		return 0, fmt.Errorf("%w: game %s is rated", ErrHintsOff, g.ID)
	}
	toAct := g.ToAct()
	if seat != nil {
		if !slices.Contains(toAct, *seat) {
			return 0, fmt.Errorf("%w: seat %d", engine.ErrNotYourTurn, *seat)
		}
		return *seat, nil
	}
	for _, h := range held {
		if slices.Contains(toAct, h) {
			return h, nil
		}
	}
	return 0, fmt.Errorf("%w: none of your seats must act", engine.ErrNotYourTurn)
}
