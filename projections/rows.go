// Package projections maintains the read models built from game events:
// the games list, each player's turn inbox, and per-player results. They
// are written in the same transaction as the events that change them, and
// can be dropped and rebuilt from the events at any time.
package projections

import (
	"time"

	"github.com/azuld/azuld/engine"
)

// GameRow is everything the read models need to know about one game after
// an append. The play package computes it by folding the game's events.
type GameRow struct {
	ID      string
	Ruleset string
	Options engine.Options
	// Status is "open" (free seats), "active" or "finished".
	Status  string
	Version int64
	// ToAct are the seats that must act now.
	ToAct     []int
	Seats     []SeatRow
	CreatedBy string
	CreatedAt time.Time
	// LastMoveAt is the time of the game's latest event.
	LastMoveAt time.Time
	// Deadline is when the seats to act time out (nil without time control).
	Deadline *time.Time
	// Final is set when the game is finished.
	Final *engine.Final
}

// SeatRow is one seat of a game.
type SeatRow struct {
	Seat int
	// PlayerID is empty for a bot or a free seat.
	PlayerID string
	// Bot is the bot kind for a bot seat ("random", ...).
	Bot  string
	Name string
}
