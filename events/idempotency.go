package events

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Execer runs a statement: a *pgxpool.Pool, a *pgx.Conn or a pgx.Tx.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// IdempotencyRetention is how long an idempotency key is kept at least:
// a retry within it returns the first result; later, once
// DeleteExpiredKeys has run, the key is forgotten and a retry is a new
// request (a move with If-Match, or a bot's or a deadline's move, which
// carry their version, then fails as a conflict; one without is decided
// again against the game as it is). Stripe keeps keys 24 hours; a week
// also covers a mail server's retries (RFC 5321 asks it to try for 4 to 5
// days) and the retries of the job queue, so that a command sent twice
// within the life of any one retrying client still happens once.
const IdempotencyRetention = 7 * 24 * time.Hour

// KeyID is the stored identity of an idempotency key: the SHA-256 of its
// scope and key (the scope's length first, so that no two pairs give the
// same text). 32 bytes, where the scope (which names the game and the
// player) and the key took over 100 as text; migration 000018 computes the
// same for the keys stored before it.
func KeyID(scope, key string) []byte {
	h := sha256.New()
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(scope)))
	h.Write(n[:])
	h.Write([]byte(scope))
	h.Write([]byte(key))
	return h.Sum(nil)
}

// RequestDigest is the stored form of a request hash: its SHA-256, 32
// bytes whatever the caller's hash looks like (play's is 64 hex digits).
func RequestDigest(requestHash string) []byte {
	sum := sha256.Sum256([]byte(requestHash))
	return sum[:]
}

// DeleteExpiredKeys deletes the idempotency keys recorded before before
// (normally now minus IdempotencyRetention), and returns how many. The
// daily clean-up job runs it. At that age the table holds about a week
// of keys, so the sequential scan of a daily DELETE costs less than an
// index on created_at would on every keyed move.
func DeleteExpiredKeys(ctx context.Context, q Execer, before time.Time) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("delete idempotency keys older than %s: %w", before.Format(time.RFC3339), err)
	}
	return tag.RowsAffected(), nil
}
