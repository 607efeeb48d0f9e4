package play

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
)

// The service's own ways of writing a game's log and snapshots, exported
// for what writes games beside it: internal/history (`azul-load
// history`) fills a database with games as azuld records them, through
// these same functions, so that the two cannot drift apart.

// GameCreation is what game.created says of a new game.
type GameCreation struct {
	Config      engine.Config
	Seats       []Seat
	TimeControl *TimeControl
	// Seed is the game's seed: game.created publishes its commitment, and
	// the seed itself with PublicSeed (a game created with a chosen seed).
	Seed       engine.Seed
	PublicSeed bool
	Settings   Settings
	// CreatedBy is the creator's player id; RematchOf the finished game
	// this one is the rematch of, if any.
	CreatedBy string
	RematchOf string
}

// CreatedEvent is the game.created event of a new game.
func CreatedEvent(c GameCreation) (events.NewEvent, error) {
	created := gameCreated{
		Config: c.Config, Seats: c.Seats, TimeControl: c.TimeControl,
		SeedCommitment: c.Seed.Commitment(), CreatedBy: c.CreatedBy, RematchOf: c.RematchOf,
		Rated: &c.Settings.Rated, Visibility: c.Settings.Visibility, Takebacks: &c.Settings.Takebacks,
		Chat: c.Settings.Chat,
	}
	if c.PublicSeed {
		created.Seed = c.Seed.String()
	}
	return serverEvent(EvGameCreated, created)
}

// JoinedEvent is the game.joined event of a player taking a seat.
func JoinedEvent(seat int, playerID string) (events.NewEvent, error) {
	return serverEvent(EvSeatJoined, seatJoined{Seat: seat, PlayerID: playerID})
}

// SeedRevealedEvent is the game.seed_revealed event that ends a game
// whose seed was secret.
func SeedRevealedEvent(seed engine.Seed) (events.NewEvent, error) {
	return serverEvent(EvSeedRevealed, seedRevealed{Seed: seed.String()})
}

// EngineEvents encodes engine events for the store.
func EngineEvents(evs []engine.Event) ([]events.NewEvent, error) {
	out := make([]events.NewEvent, 0, len(evs))
	for _, e := range evs {
		data, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", e.EventType(), err)
		}
		out = append(out, events.NewEvent{Type: e.EventType(), Schema: e.SchemaVersion(), Data: data})
	}
	return out, nil
}

// DefaultSettings are the settings of a game created without choosing
// any: rated, public and without take-backs; with a public seed unrated,
// private and with take-backs (see CreateGame).
func DefaultSettings(publicSeed bool) Settings {
	// A request without settings is never refused.
	s, _ := chooseSettings(CreateGame{}, publicSeed)
	return s
}

// MoveKey is the idempotency scope and request hash of a move sent with
// an Idempotency-Key: by actor, for seat, canonical the engine's JSON of
// the move.
func MoveKey(gameID string, actor events.Actor, seat int, canonical []byte) (scope, hash string) {
	hash = requestHash(strconv.Itoa(seat), string(canonical))
	if actor.Kind == "player" {
		// actorKey's, in one concatenation: the history generator keys
		// most of its moves.
		return "move:" + gameID + ":player:" + actor.PlayerID, hash
	}
	return "move:" + gameID + ":" + actorKey(actor), hash
}

// SnapshotData is the stored form of a snapshot of g, whose engine state
// (encoded) is state and whose last random reveal is at revealVersion.
// It holds no names (they are read from the players table), so erasing
// an account never has to touch snapshots.
func SnapshotData(g *Game, state json.RawMessage, revealVersion int64) ([]byte, error) {
	stored := *g
	stored.Seats = slices.Clone(g.Seats)
	for i := range stored.Seats {
		stored.Seats[i].Name = ""
	}
	data, err := json.Marshal(snapshot{Game: &stored, Config: g.Config, State: state, RevealVersion: revealVersion})
	if err != nil {
		return nil, fmt.Errorf("encode the snapshot of game %s: %w", g.ID, err)
	}
	return data, nil
}

// SnapshotFormat is the format number the service gives its snapshots
// with these rules: it changes whenever the snapshot's envelope or any
// engine's state format does, and a snapshot of another format is never
// read.
func SnapshotFormat(reg engine.Registry) int { return snapshotFormat(reg) }
