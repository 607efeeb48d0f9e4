package projections

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

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
	// Unrated: the game was created unrated (its result changes no
	// rating). Private: only its seated players may see it once every
	// seat is taken, and the lists show it to them only. Both are false
	// for the games created before the settings existed.
	Unrated, Private bool
}

// SeatRow is one seat of a game.
type SeatRow struct {
	Seat int
	// PlayerID is empty for a bot or a free seat.
	PlayerID string
	// Bot is the bot kind for a bot seat ("random", ...).
	Bot string
	// Budget is a search bot's thinking time per move as play stores it
	// ("1s"; "" for bots.DefaultBudget).
	Budget string
	// Reserved is the player a free seat is kept for (a rematch): only
	// they may join it.
	Reserved string
	// Name is read from the players table by the queries (FormerPlayer
	// for a deleted account, none for a seat of an imported game: see
	// ImportedPlayer), and never stored by Apply.
	Name string
}

// TurnRow is one game waiting for a player (the turn inbox).
type TurnRow struct {
	GameID  string
	Ruleset string
	// Seats are the player's seats that must act (usually one).
	Seats   []int
	Version int64
	// Since is when the earliest of these seats' turn began.
	Since time.Time
	// Deadline is the game's deadline, nil without time control.
	Deadline *time.Time
}

// ResultRow is one seat's result in a finished game.
type ResultRow struct {
	GameID  string
	Ruleset string
	Seat    int
	Score   int
	// Rank 1 is best; tied seats share a rank.
	Rank int
	// Seats is how many seats the game had.
	Seats      int
	FinishedAt time.Time
}

// Filter selects a page of the games list, newest move first.
type Filter struct {
	// Status is "", "open", "active" or "finished".
	Status string
	// Ruleset, when set, keeps the games of that rule set.
	Ruleset string
	// Player, when set (a player id), keeps the games where the player
	// holds a seat.
	Player string
	// Invited, when set (a player id), keeps the open games with a seat
	// reserved for the player: their invitations to a rematch.
	Invited string
	// Without, when set (a player id), leaves out the games where the
	// player holds a seat (the lobby's watch list: one's own games are
	// listed elsewhere).
	Without string
	// Viewer is who asks (a player id; "" for a visitor): private games
	// are listed only to their seated players. Everything lists them all
	// (the server's own uses, never a caller's request).
	Viewer     string
	Everything bool
	// Watch lists the running public games instead, the best-rated first
	// (the highest rating ordinal among the seats' players in the game's
	// rule set and number of players, 0 for one without a rating), then
	// the latest move first. Status and Player must be unset.
	Watch bool
	// Limit is the page size: 0 means DefaultLimit; at most MaxLimit.
	Limit int
	// Cursor is the nextCursor of the previous page ("" for the first).
	Cursor string
}

// Page sizes of ListGames.
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// DB is what the query functions need: a *pgxpool.Pool, a *pgx.Conn or a
// pgx.Tx.
type DB interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// ErrInvalid: a malformed filter, cursor, player id or game row; nothing
// was read or written.
var ErrInvalid = errors.New("invalid read-model request")
