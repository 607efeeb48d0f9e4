package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Record is one stored event.
type Record struct {
	// StreamID is the game id (a UUID in text form).
	StreamID string `json:"game_id"`
	// Version is the event's 1-based position in its stream.
	Version int64 `json:"version"`
	// Position is the event's place in the global order (assigned by the
	// database; increasing, with gaps).
	Position int64 `json:"position"`
	// Type is the event type: engine events use the engine's snake_case
	// names ("tiles_taken"); server events use dotted names
	// ("game.created", "game.taken_back").
	Type string `json:"type"`
	// Schema is the event's schema version, for upcasting.
	Schema     int             `json:"schema"`
	Data       json.RawMessage `json:"data"`
	Meta       Meta            `json:"meta"`
	RecordedAt time.Time       `json:"recorded_at"`
	// TxID is the writing transaction's id, set on the records a Consumer
	// hands out (one append's events share it), zero elsewhere.
	TxID uint64 `json:"-"`
}

// Meta says who caused an event, through which channel, and with which
// command. Every event of one command batch carries the same Meta.
type Meta struct {
	Actor Actor `json:"actor"`
	// Channel is how the command arrived: api, web, email, cli, bot,
	// timeout, system, import.
	Channel string `json:"channel,omitempty"`
	// CommandID groups the events one command caused (the idempotency key
	// when the client gave one, else a generated id).
	CommandID string `json:"command_id,omitempty"`
	// Command is the command's canonical JSON and Notation its canonical
	// text, when the batch was caused by a move.
	Command  json.RawMessage `json:"command,omitempty"`
	Notation string          `json:"notation,omitempty"`
	// MailAuth is what the SMTP listener found of a move sent by mail:
	// "spf=… dkim=… dmarc=… from=<domain>" (verdicts and the From
	// domain only, never an address).
	MailAuth string `json:"mail_auth,omitempty"`
}

// Actor is who caused an event.
type Actor struct {
	// Kind is "player", "bot" or "system".
	Kind     string `json:"kind"`
	Seat     *int   `json:"seat,omitempty"`
	PlayerID string `json:"player_id,omitempty"`
	// Bot is the bot kind ("random", ...) when Kind is "bot".
	Bot string `json:"bot,omitempty"`
}

// NewEvent is an event to append.
type NewEvent struct {
	Type   string
	Schema int
	Data   json.RawMessage
}

// TxHook runs inside the append's transaction after the events are
// inserted: projections and outbox rows written here commit or roll back
// together with the events.
type TxHook func(ctx context.Context, tx pgx.Tx, appended []Record) error

// AppendRequest appends events to one stream.
type AppendRequest struct {
	StreamID string
	// ExpectedVersion is the stream's version the events were decided
	// against (0 for a new stream). Another value in the database means
	// someone else appended first: *ConflictError, nothing written.
	ExpectedVersion int64
	Events          []NewEvent
	Meta            Meta
	// IdempotencyKey, when set, makes the append happen at most once per
	// (IdempotencyScope, IdempotencyKey): a retry with the same
	// RequestHash returns the first result and writes nothing; a retry
	// with another RequestHash fails with ErrIdempotencyMismatch.
	IdempotencyScope string
	IdempotencyKey   string
	RequestHash      string
	// Also are statements that the append's own statement runs too, in
	// the same round trip and transaction, after the events are written:
	// the read-model change the caller must read back at once. Each does
	// nothing when the append writes nothing (see Companion).
	Also []Companion
	// Hook runs in the same transaction (projections, outbox). It costs
	// an explicit transaction and its own round trips.
	Hook TxHook
}

// Companion is a data-modifying statement (INSERT, UPDATE or DELETE, no
// RETURNING) that an append runs as part of its single statement, as a
// WITH query. It reads the events just written from the table appended
// (version, global_position, recorded_at), which is empty when the append
// writes nothing (a key used before): the statement must then change
// nothing, e.g. with WHERE EXISTS (SELECT FROM appended). Its parameters
// are numbered from $1, as in a statement of its own, and must not appear
// inside string literals. It sees the tables as they were before the
// append (one snapshot for the whole statement).
type Companion struct {
	SQL  string
	Args []any
}

// AppendResult is what an append wrote (or, for a replayed idempotent
// command, what the first attempt wrote).
type AppendResult struct {
	Records []Record
	// Replayed is true when the idempotency key had been used already and
	// nothing new was written.
	Replayed bool
}

// ConflictError is returned when the stream moved past ExpectedVersion.
type ConflictError struct {
	StreamID string
	Expected int64
	Actual   int64
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("stream %s is at version %d, not %d", e.StreamID, e.Actual, e.Expected)
}

// Is makes errors.Is(err, ErrConflict) true for a *ConflictError.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

var (
	// ErrConflict matches every *ConflictError.
	ErrConflict = errors.New("version conflict")
	// ErrIdempotencyMismatch: the key was used before for another request.
	ErrIdempotencyMismatch = errors.New("idempotency key reused for a different request")
	// ErrNotFound: no such stream.
	ErrNotFound = errors.New("not found")
	// ErrInvalid: the request is malformed (a stream id that is not a
	// UUID, an empty batch, data that is not JSON...); nothing was written.
	ErrInvalid = errors.New("invalid event store request")
)
