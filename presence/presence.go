// Package presence keeps who is at a game's table: a player whose page
// of the game (its live stream) is open, on any replica. The streams
// record themselves in the database (Stream.Touch while open, Close at
// the end), so a turn mail worker on any replica can ask At whether the
// player is there, or since when they are away. Rows hold ids and times
// only.
package presence

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Refresh is how often an open stream renews its row; TTL is how long a
// row counts as present without renewal, so a replica that dies with its
// streams open stops holding mails back soon after.
const (
	Refresh = 30 * time.Second
	TTL     = 3 * Refresh
)

// Store reads and writes presence.
type Store struct {
	pool *pgxpool.Pool
	now  func() time.Time
}

// New is a Store on pool; now is the clock (time.Now when nil), which must
// be the one the readers of At use.
func New(pool *pgxpool.Pool, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{pool: pool, now: now}
}

// Stream is one open stream of a player at a game's table.
type Stream struct {
	s                *Store
	id               string
	gameID, playerID string
}

// Open records a player at a game's table for one stream. Touch it every
// Refresh while it lasts, and Close it at its end.
func (s *Store) Open(ctx context.Context, gameID, playerID string) (*Stream, error) {
	st := &Stream{s: s, id: rand.Text(), gameID: gameID, playerID: playerID}
	return st, st.write(ctx, true)
}

// Touch renews the stream's presence.
func (st *Stream) Touch(ctx context.Context) error { return st.write(ctx, true) }

// Close records that the player left the table on this stream (now).
func (st *Stream) Close(ctx context.Context) error { return st.write(ctx, false) }

func (st *Stream) write(ctx context.Context, open bool) error {
	_, err := st.s.pool.Exec(ctx, `
		INSERT INTO presence (game_id, player_id, stream_id, seen_at, open)
		SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT FROM players WHERE id = $2)
		ON CONFLICT (game_id, player_id, stream_id) DO UPDATE SET seen_at = excluded.seen_at, open = excluded.open`,
		st.gameID, st.playerID, st.id, st.s.now(), open)
	if err != nil {
		return fmt.Errorf("record presence at game %s: %w", st.gameID, err)
	}
	return nil
}

// At reports whether a player is at a game's table now (a stream open and
// renewed within TTL) and when they were last seen there (zero: never,
// or not since the rows were cleared).
func (s *Store) At(ctx context.Context, gameID, playerID string) (here bool, last time.Time, err error) {
	var seen *time.Time
	err = s.pool.QueryRow(ctx, `
		SELECT coalesce(bool_or(open AND seen_at > $3), false), max(seen_at)
		FROM presence WHERE game_id = $1 AND player_id = $2`, gameID, playerID, s.now().Add(-TTL)).Scan(&here, &seen)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return false, time.Time{}, fmt.Errorf("read presence at game %s: %w", gameID, err)
	}
	if seen != nil {
		last = *seen
	}
	return here, last, nil
}
