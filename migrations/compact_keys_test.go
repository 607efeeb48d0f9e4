package migrations_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/migrations"
)

// TestUpgradeCompactsIdempotencyKeys: a database at migration 17 holding
// keys in their text form and events with their full meta each (as
// servers before 000018 wrote them); after migrating up, every key still
// answers its retry with the first result, refuses another request, and
// keeps its age; the events read back as they were; new appends go on.
func TestUpgradeCompactsIdempotencyKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pg.NewDatabase(t)
	if err := migrations.UpTo(ctx, url, 17); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const game = "0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f"
	meta := `{"actor":{"kind":"player","seat":0,"player_id":"p-1"},"channel":"api","command_id":"retry-1","command":{"take":1},"notation":"1a"}`
	type key struct{ scope, key, hash string }
	keys := []key{
		{"move:" + game + ":player:p-1", "retry-1", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"create:ünï", "ключ", "h"},
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO streams (id) VALUES ($1)`, []any{game}},
		// One append of three events, the meta on each, as before.
		{`INSERT INTO events (stream_id, version, type, schema_version, data, meta)
			SELECT $1, v, 'e', 1, '{}', $2::json FROM generate_series(1, 3) v`, []any{game, meta}},
		{`INSERT INTO idempotency_keys (scope, key, request_hash, stream_id, first_version, last_version, created_at)
			VALUES ($1, $2, $3, $7, 1, 3, now() - interval '2 days'), ($4, $5, $6, $7, 1, 3, now())`,
			[]any{keys[0].scope, keys[0].key, keys[0].hash, keys[1].scope, keys[1].key, keys[1].hash, game}},
	} {
		if _, err := pool.Exec(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := migrations.Up(ctx, url); err != nil {
		t.Fatal(err)
	}

	store := events.NewStore(pool)
	for _, k := range keys {
		recs, found, err := store.Idempotent(ctx, k.scope, k.key, k.hash)
		if err != nil || !found || len(recs) != 3 || recs[2].Meta.CommandID != "retry-1" {
			t.Fatalf("key %q after the upgrade: %d records, %v, %v", k.key, len(recs), found, err)
		}
		if _, _, err := store.Idempotent(ctx, k.scope, k.key, k.hash+"x"); !errors.Is(err, events.ErrIdempotencyMismatch) {
			t.Fatalf("key %q with another request: %v", k.key, err)
		}
		res, err := store.Append(ctx, events.AppendRequest{StreamID: game, ExpectedVersion: 3,
			Events:           []events.NewEvent{{Type: "e", Schema: 1, Data: []byte(`{}`)}},
			IdempotencyScope: k.scope, IdempotencyKey: k.key, RequestHash: k.hash})
		if err != nil || !res.Replayed || len(res.Records) != 3 {
			t.Fatalf("retry of key %q after the upgrade: %+v, %v", k.key, res, err)
		}
	}
	var aged int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM idempotency_keys WHERE created_at < now() - interval '1 day'`).Scan(&aged); err != nil || aged != 1 {
		t.Fatalf("%d keys kept their age (%v), want 1", aged, err)
	}
	// A new keyed append of two events: its second stores the marker.
	res, err := store.Append(ctx, events.AppendRequest{StreamID: game, ExpectedVersion: 3,
		Events:           []events.NewEvent{{Type: "e", Schema: 1, Data: []byte(`{}`)}, {Type: "f", Schema: 1, Data: []byte(`{}`)}},
		Meta:             events.Meta{Actor: events.Actor{Kind: "system"}, CommandID: "new"},
		IdempotencyScope: "s", IdempotencyKey: "new", RequestHash: "h"})
	if err != nil || res.Replayed {
		t.Fatalf("new append: %+v, %v", res, err)
	}
	recs, err := store.Load(ctx, game, 0, 0)
	if err != nil || len(recs) != 5 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	for _, r := range recs {
		want := map[bool]string{true: "retry-1", false: "new"}[r.Version <= 3]
		if r.Meta.CommandID != want {
			t.Errorf("version %d: command id %q, want %q", r.Version, r.Meta.CommandID, want)
		}
	}
	var marker string
	if err := pool.QueryRow(ctx, `SELECT meta::text FROM events WHERE stream_id = $1 AND version = 5`, game).Scan(&marker); err != nil || marker != "0" {
		t.Fatalf("the new append's second event stores %q (%v)", marker, err)
	}

	// Down to 17: the markers get their append's meta back, for the
	// servers of before.
	if err := migrations.UpTo(ctx, url, 17); err != nil {
		t.Fatal(err)
	}
	var head, second string
	if err := pool.QueryRow(ctx, `SELECT (SELECT meta::text FROM events WHERE stream_id = $1 AND version = 4),
		(SELECT meta::text FROM events WHERE stream_id = $1 AND version = 5)`, game).Scan(&head, &second); err != nil || second != head || head == "0" {
		t.Fatalf("after going down, versions 4 and 5 store %s and %s (%v)", head, second, err)
	}
}
