package events_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/azuld/azuld/events"
)

// TestExpiredKeysAreForgotten: a key within its retention answers a retry
// with the first result; once older than the retention, the clean-up
// deletes it (and only it), and the same retry is a new request.
func TestExpiredKeysAreForgotten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	id, fresh := newStreamID(), newStreamID()
	req := events.AppendRequest{
		StreamID: id, Events: []events.NewEvent{event("game.created", 1), event("deal", 2)}, Meta: testMeta(0),
		IdempotencyScope: "create:ana", IdempotencyKey: "k-1", RequestHash: "hash-1",
	}
	first, err := store.Append(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	other := req
	other.StreamID, other.IdempotencyKey = fresh, "k-2"
	if _, err := store.Append(ctx, other); err != nil {
		t.Fatal(err)
	}
	// Within the retention: the first result.
	res, err := store.Append(ctx, req)
	if err != nil || !res.Replayed {
		t.Fatalf("retry within the retention: %+v, %v", res, err)
	}
	sameRecords(t, res.Records, first.Records)

	// The first key ages past the retention; the clean-up deletes it.
	if _, err := pool.Exec(ctx, `UPDATE idempotency_keys SET created_at = now() - $2::interval WHERE id = $1`,
		events.KeyID(req.IdempotencyScope, req.IdempotencyKey), "8 days"); err != nil {
		t.Fatal(err)
	}
	n, err := events.DeleteExpiredKeys(ctx, pool, time.Now().Add(-events.IdempotencyRetention))
	if err != nil || n != 1 {
		t.Fatalf("deleted %d keys (%v), want 1", n, err)
	}
	if left := count(t, pool, `SELECT count(*) FROM idempotency_keys`); left != 1 {
		t.Fatalf("%d keys left, want the fresh one", left)
	}
	if _, found, err := store.Idempotent(ctx, req.IdempotencyScope, req.IdempotencyKey, req.RequestHash); found || err != nil {
		t.Fatalf("expired key still found: %v %v", found, err)
	}
	// The same retry is now a new request: at version 0 it conflicts...
	var conflict *events.ConflictError
	if _, err := store.Append(ctx, req); !errors.As(err, &conflict) || conflict.Actual != 2 {
		t.Fatalf("retry after expiry: %v, want a conflict at version 2", err)
	}
	// ... and at the stream's version it appends again.
	again := req
	again.ExpectedVersion = 2
	res, err = store.Append(ctx, again)
	if err != nil || res.Replayed || res.Records[0].Version != 3 {
		t.Fatalf("new request after expiry: %+v, %v", res, err)
	}
	// The fresh key still answers.
	if _, found, err := store.Idempotent(ctx, other.IdempotencyScope, other.IdempotencyKey, other.RequestHash); !found || err != nil {
		t.Fatalf("fresh key: %v %v", found, err)
	}
}

// TestKeyIDMatchesTheMigration: the migration that made the keys compact
// computed their ids in SQL; KeyID and RequestDigest must give the same
// bytes, for any text.
func TestKeyIDMatchesTheMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 2)
	for _, c := range [][3]string{
		{"move:0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f:player:ana", "retry-7", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"create:ünïcødé", "ключ", "х"},
		{"ab", "c", ""},
		{"a", "bc", ""},
		{"", "", ""},
	} {
		var id, digest []byte
		if err := pool.QueryRow(ctx, `SELECT sha256(int4send(octet_length($1::text)) || convert_to($1, 'UTF8') || convert_to($2::text, 'UTF8')),
			sha256(convert_to($3::text, 'UTF8'))`, c[0], c[1], c[2]).Scan(&id, &digest); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(id, events.KeyID(c[0], c[1])) || !bytes.Equal(digest, events.RequestDigest(c[2])) {
			t.Errorf("%q: SQL gives %x %x, Go %x %x", c, id, digest, events.KeyID(c[0], c[1]), events.RequestDigest(c[2]))
		}
	}
	if bytes.Equal(events.KeyID("ab", "c"), events.KeyID("a", "bc")) {
		t.Error("KeyID does not tell the scope from the key")
	}
}
