// Package play is the command path every channel shares (HTTP, email,
// bots, time control): load a game by folding its events, decide a
// command through the engine, and append the resulting events together
// with the read models they change, in one transaction.
package play

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/events"
)

// Player is a registered player.
type Player struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// EmailVerified: the owner followed a link mailed to the address.
	EmailVerified bool `json:"email_verified"`
	// EmailStatus is the address's standing: EmailOK, EmailUnverified,
	// EmailUndeliverable (a hard bounce or a complaint came back), or
	// EmailNone without an address.
	EmailStatus string `json:"email_status"`
	// undeliverable is read with PlayerColumns for FillStatus.
	undeliverable bool
}

// Address statuses (Player.EmailStatus).
const (
	EmailOK            = "ok"
	EmailUnverified    = "unverified"
	EmailUndeliverable = "undeliverable"
	EmailNone          = "none"
)

// SeatSpec asks for one seat when a game is created: a player (by id, or
// "me" for the creator; another player is invited, not seated: see
// resolveSeats), a bot kind (bots.Kinds: "random", "greedy", "search",
// "level1" … "level6"), or an open seat (neither). Budget is the search bot's thinking time per move
// ("200ms"; bots.MinBudget to bots.MaxBudget).
type SeatSpec struct {
	Player string `json:"player,omitempty"`
	Bot    string `json:"bot,omitempty"`
	Budget string `json:"budget,omitempty"`
	// Reserve, a player id, keeps an open seat for that player alone
	// (who takes it by joining). Only a rematch reserves seats: a client's
	// request cannot (see rematchRequest).
	Reserve string `json:"-"`
}

// TimeControl limits the time a seat has for each move.
type TimeControl struct {
	// PerMove is the time allowed for one move; zero means no limit.
	PerMove Duration `json:"per_move"`
	// OnTimeout is "bot" (the server plays a legal move) or "forfeit".
	OnTimeout string `json:"on_timeout,omitempty"`
	// Bot is the bot kind that moves for a seat out of time ("greedy" when
	// empty; "search" thinks for bots.DefaultBudget).
	Bot string `json:"bot,omitempty"`
	// RemindBefore is how long before the deadline a reminder is sent.
	RemindBefore Duration `json:"remind_before,omitempty"`
}

// CreateGame is a request to create a game.
type CreateGame struct {
	Ruleset     string         `json:"ruleset"`
	Options     engine.Options `json:"options"`
	Seats       []SeatSpec     `json:"seats"`
	TimeControl *TimeControl   `json:"time_control,omitempty"`
	// Seed, 64 hex digits, fixes the game's draws (for tests and
	// tournaments); it is public from the start. Empty: a secret seed.
	Seed string `json:"seed,omitempty"`
	// Rated: the result changes the seats' ratings. Default true, except
	// with a public Seed (its bag order is known), which cannot be rated.
	Rated *bool `json:"rated,omitempty"`
	// Visibility is VisibilityPublic (anyone may watch) or
	// VisibilityPrivate (only the seated players, once every seat is
	// taken). Default: public for a rated game, private for an unrated one.
	Visibility string `json:"visibility,omitempty"`
	// Takebacks: a seat may ask to take back its moves. Default: allowed
	// in an unrated game only.
	Takebacks *bool `json:"takebacks,omitempty"`
	// Chat is ChatPlayers (the default: only the players read the table
	// talk) or ChatPublic (whoever may watch the game reads it too).
	Chat string `json:"chat,omitempty"`
	// Channel is how the request came ("api", "web", "cli"), for the
	// log; empty: "api". It is not part of the request a client sends.
	Channel string `json:"-"`
}

// Visibilities of a game.
const (
	VisibilityPublic  = "public"
	VisibilityPrivate = "private"
)

// Seat is one seat of a game.
type Seat struct {
	Seat     int    `json:"seat"`
	PlayerID string `json:"player_id,omitempty"`
	// Name is read from the players table when the game is read for
	// display (never stored in the log or in snapshots); "former player"
	// for an erased account.
	Name string `json:"name,omitempty"`
	Bot  string `json:"bot,omitempty"`
	// Left is set when the seat's player left the game ("bot": Bot plays
	// it; "forfeit": it resigned).
	Left string `json:"left,omitempty"`
	// Budget is a search bot's thinking time per move ("" for the default).
	Budget string `json:"budget,omitempty"`
	// Imported: the seat's player played it in the log this game was
	// imported from. PlayerID is then an opaque id the import gave it
	// (see projections.ImportedPlayer), which no account here holds, and
	// the seat has no name.
	Imported bool `json:"imported,omitempty"`
	// Reserved is the id of the only player who may take this free seat:
	// the player it invites (a seat named for another player, or a
	// rematch keeping the old game's players' seats); cleared when they
	// accept (join), decline, or the invitation expires. Name is then
	// their name.
	Reserved string `json:"reserved,omitempty"`
}

// BotSpec is the bot of a bot seat (a zero Bot for a player's seat).
func (s Seat) BotSpec() bots.Bot {
	b := bots.Bot{Kind: s.Bot}
	if s.Budget != "" {
		// Checked when the game was created; a bad stored value falls back
		// to the default budget rather than stopping the game.
		if d, err := bots.ParseBudget(s.Budget); err == nil {
			b.Budget = d
		}
	}
	return b
}

// Game is a game folded from its events.
type Game struct {
	ID      string        `json:"id"`
	Config  engine.Config `json:"-"`
	Status  string        `json:"status"`
	Version int64         `json:"version"`
	// StateVersion is the version of the last event that is not table
	// talk (game.message): the game's state is the same at every version
	// from it to Version, so a command that expected any of them expected
	// this state (see ExpectsCurrent).
	StateVersion int64  `json:"state_version"`
	Seats        []Seat `json:"seats"`
	// State is nil while the game is open (seats free).
	State          engine.State `json:"-"`
	Rules          engine.Rules `json:"-"`
	TimeControl    *TimeControl `json:"time_control,omitempty"`
	SeedCommitment string       `json:"seed_commitment"`
	// Seed is set once revealed (game over, or a public seed).
	Seed string `json:"seed,omitempty"`
	// The settings chosen at creation (see CreateGame).
	Settings
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Deadline of the seats to act, with a time control.
	Deadline *time.Time `json:"deadline,omitempty"`
	// RematchOf is the finished game this one is the rematch of; Rematch
	// is this game's rematch, once a player asked for it.
	RematchOf string `json:"rematch_of,omitempty"`
	Rematch   string `json:"rematch,omitempty"`
	// Declined lists the players who declined their reserved seat, or
	// whose invitation expired (by id, in that order).
	Declined []string `json:"declined,omitempty"`
	// Imported: the game came from an exported log (game.imported); it
	// is never rated.
	Imported bool `json:"imported,omitempty"`

	fold foldState
	// names are the seats' players' names by player id, when the game was
	// read for display (see Service.named); folding fills Seat.Name from
	// them. Unset on the command path, which needs no names.
	names map[string]string
}

// Settings are a game's settings, chosen when it is created.
type Settings struct {
	Rated      bool   `json:"rated"`
	Visibility string `json:"visibility"`
	Takebacks  bool   `json:"takebacks"`
	// Chat is who may read the table talk: ChatPlayers (what a game
	// created before the setting reads as) or ChatPublic.
	Chat string `json:"chat"`
}

// Private reports whether only the game's players may read it.
func (s Settings) Private() bool { return s.Visibility == VisibilityPrivate }

// Game statuses.
const (
	StatusOpen     = "open"
	StatusActive   = "active"
	StatusFinished = "finished"
)

// MoveRequest is a move by a player (or the system) in a game.
type MoveRequest struct {
	GameID string
	// Actor is who moves; for a player, Actor.PlayerID is set.
	Actor events.Actor
	// Seat picks one of several seats the player holds (nil: the one whose
	// turn it is). Required for system and bot actors.
	Seat *int
	// Move is the move as JSON, or Notation as text notation (exactly one).
	Move     json.RawMessage
	Notation string
	// ExpectedVersion, when set (If-Match), must be the game's version,
	// or one that only table talk follows (see Game.ExpectsCurrent).
	ExpectedVersion *int64
	IdempotencyKey  string
	// Channel is how the move arrived: api, web, email, cli.
	Channel string
	// MailAuth is the SPF/DKIM/DMARC verdict of a move sent by mail,
	// kept in the events' meta for the audit log.
	MailAuth string
	// Also are written by the move's own statement when it is appended
	// (see events.Companion): what the caller records of the move.
	Also []events.Companion
}

// MoveResult is what a move appended.
type MoveResult struct {
	Version  int64           `json:"version"`
	Events   []events.Record `json:"events"`
	Replayed bool            `json:"-"`
	Game     *Game           `json:"-"`
}

// Errors of the command path, besides the engine's (*engine.RuleError,
// engine.ErrNotYourTurn, engine.ErrGameOver, engine.ErrBadCommand) and the
// store's (events.ErrConflict, events.ErrIdempotencyMismatch).
var (
	ErrNotFound        = errors.New("not found")
	ErrUnauthenticated = errors.New("unknown or missing token")
	ErrForbidden       = errors.New("forbidden")
	ErrInvalid         = errors.New("invalid request")
	// ErrNotFinished: a rematch of a game that is not over.
	ErrNotFinished = errors.New("the game is not over")
	// ErrTakebacksOff: the game was created without take-backs.
	ErrTakebacksOff = errors.New("take-backs are off in this game")
)

// Duration is a time.Duration written in JSON as a Go duration string
// ("72h", "30m") or a number of seconds.
type Duration time.Duration
