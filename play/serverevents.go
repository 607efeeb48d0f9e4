package play

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
)

// Server event types. They carry dotted names so they never collide with
// the engines' snake_case event types in the same stream.
const (
	EvGameCreated  = "game.created"
	EvSeatJoined   = "game.joined"
	EvSeedRevealed = "game.seed_revealed"
	// EvSeatLeft: a player left a running game (their account was
	// deleted); a bot plays the seat from now on, or it forfeits.
	EvSeatLeft = "game.seat_left"
	// EvRematch: a player of the finished game asked for a rematch; it
	// names the new game (whose game.created names this one).
	EvRematch = "game.rematch"
	// EvReservationDeclined: the player a seat was reserved for declined
	// it; the seat is an ordinary free seat from then on.
	EvReservationDeclined = "game.reservation_declined"
	// EvImported: the events before it were imported from an exported
	// log (POST /v1/games/import), not played here. Such a game is never
	// rated, whatever its game.created says: anyone can write a log that
	// folds and verifies.
	EvImported = "game.imported"
)

// gameImported is the payload of game.imported.
type gameImported struct {
	// From is the game's id in the log it was imported from.
	From string `json:"from,omitempty"`
}

// isServerEvent tells server events from engine events by their name.
func isServerEvent(eventType string) bool { return strings.Contains(eventType, ".") }

// gameCreated is the first event of every game.
type gameCreated struct {
	Config      engine.Config `json:"config"`
	Seats       []Seat        `json:"seats"`
	TimeControl *TimeControl  `json:"time_control,omitempty"`
	// SeedCommitment is the SHA-256 of the secret seed, public from now on.
	SeedCommitment string `json:"seed_commitment"`
	// Seed is set only when the creator chose a public seed.
	Seed      string `json:"seed,omitempty"`
	CreatedBy string `json:"created_by"`
	// RematchOf is the finished game this one is a rematch of.
	RematchOf string `json:"rematch_of,omitempty"`
	// The settings (see CreateGame), always written since they exist; a
	// payload written before has none of them, and is read as a rated,
	// public game that allows take-backs (see settings).
	Rated      *bool  `json:"rated,omitempty"`
	Visibility string `json:"visibility,omitempty"`
	Takebacks  *bool  `json:"takebacks,omitempty"`
	// Chat: who reads the table talk (absent before the setting existed:
	// ChatPlayers).
	Chat string `json:"chat,omitempty"`
}

// settings are the game's settings as the event says them, an absent
// field taking what every game had before settings existed.
func (c gameCreated) settings() Settings {
	s := Settings{Rated: true, Visibility: VisibilityPublic, Takebacks: true}
	if c.Rated != nil {
		s.Rated = *c.Rated
	}
	if c.Visibility != "" {
		s.Visibility = c.Visibility
	}
	if c.Takebacks != nil {
		s.Takebacks = *c.Takebacks
	}
	s.Chat = ChatPlayers
	if c.Chat == ChatPublic {
		s.Chat = ChatPublic
	}
	return s
}

// seatJoined fills a free seat. Events name players by id only: names
// live in the players table, which erasure can change (docs/architecture.md §9).
// Payloads written before that rule also carry a "name", which decoding
// ignores (see upcastNames).
type seatJoined struct {
	Seat     int    `json:"seat"`
	PlayerID string `json:"player_id"`
}

// seatLeft hands a seat whose player left to a bot, or forfeits it.
type seatLeft struct {
	Seat int `json:"seat"`
	// By is "bot" (Bot plays the seat from now on) or "forfeit" (the seat
	// resigns in the same command; Bot is the stand-in should the rules
	// not let it resign).
	By  string `json:"by"`
	Bot string `json:"bot"`
}

// Ways a seat is left.
const (
	LeftToBot   = "bot"
	LeftForfeit = "forfeit"
)

// rematchLinked links a finished game to its rematch.
type rematchLinked struct {
	GameID string `json:"game_id"`
}

// reservationDeclined frees a reserved seat: its player said no.
type reservationDeclined struct {
	Seat     int    `json:"seat"`
	PlayerID string `json:"player_id"`
}

// seedRevealed publishes the secret seed when the game is over.
type seedRevealed struct {
	Seed string `json:"seed"`
}

// serverEvent encodes one server event for the store.
func serverEvent(eventType string, payload any) (events.NewEvent, error) {
	data, err := json.Marshal(payload)
	if err != nil {
		return events.NewEvent{}, fmt.Errorf("encode %s: %w", eventType, err)
	}
	return events.NewEvent{Type: eventType, Schema: 1, Data: data}, nil
}
