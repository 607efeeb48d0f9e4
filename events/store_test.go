package events_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/azuld/azuld/events"
)

func TestAppendAndLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	id := newStreamID()

	res, err := store.Append(ctx, events.AppendRequest{
		StreamID: strings.ToUpper(id), ExpectedVersion: 0,
		Events: []events.NewEvent{event("game.created", 1), event("tiles_taken", 2), event("tiles_taken", 3)},
		Meta:   testMeta(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Replayed || len(res.Records) != 3 {
		t.Fatalf("append: %+v", res)
	}
	for i, r := range res.Records {
		if r.StreamID != id {
			t.Errorf("record %d: stream id %q, want the canonical %q", i, r.StreamID, id)
		}
		if r.Version != int64(i+1) {
			t.Errorf("record %d: version %d", i, r.Version)
		}
		if i > 0 && r.Position <= res.Records[i-1].Position {
			t.Errorf("positions do not increase: %d then %d", res.Records[i-1].Position, r.Position)
		}
		if !r.RecordedAt.Equal(res.Records[0].RecordedAt) || r.RecordedAt.IsZero() {
			t.Errorf("record %d recorded at %v, the batch at %v", i, r.RecordedAt, res.Records[0].RecordedAt)
		}
	}

	res2, err := store.Append(ctx, events.AppendRequest{
		StreamID: id, ExpectedVersion: 3, Events: []events.NewEvent{event("tiles_placed", 4)}, Meta: testMeta(0),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res2.Records[0]; got.Version != 4 || got.Position <= res.Records[2].Position {
		t.Fatalf("second append: %+v", got)
	}
	if v, err := store.Version(ctx, id); err != nil || v != 4 {
		t.Fatalf("version %d, %v; want 4", v, err)
	}

	all, err := store.Load(ctx, id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	written := append(append([]events.Record(nil), res.Records...), res2.Records...)
	if len(all) != len(written) {
		t.Fatalf("loaded %d events, appended %d", len(all), len(written))
	}
	for i := range all {
		got, want := all[i], written[i]
		// json columns keep the bytes as written.
		if !bytes.Equal(got.Data, want.Data) {
			t.Errorf("event %d data %s, appended %s", i, got.Data, want.Data)
		}
		if !sameJSON(t, got.Meta.Command, want.Meta.Command) {
			t.Errorf("event %d command %s, appended %s", i, got.Meta.Command, want.Meta.Command)
		}
		got.Data, want.Data, got.Meta.Command, want.Meta.Command = nil, nil, nil, nil
		if !got.RecordedAt.Equal(want.RecordedAt) {
			t.Errorf("event %d recorded at %v, appended at %v", i, got.RecordedAt, want.RecordedAt)
		}
		got.RecordedAt = want.RecordedAt
		if !reflect.DeepEqual(got, want) {
			t.Errorf("event %d:\nloaded   %+v\nappended %+v", i, got, want)
		}
	}

	// Pages of the log.
	page, err := store.Load(ctx, id, 1, 2)
	if err != nil || len(page) != 2 || page[0].Version != 2 || page[1].Version != 3 {
		t.Fatalf("page after 1, limit 2: %d events, %v", len(page), err)
	}
	if page, err := store.Load(ctx, id, 4, 0); err != nil || len(page) != 0 {
		t.Fatalf("after the last version: %d events, %v", len(page), err)
	}
	if page, err := store.Load(ctx, newStreamID(), 0, 0); err != nil || len(page) != 0 {
		t.Fatalf("unknown stream: %d events, %v", len(page), err)
	}
	if _, err := store.Version(ctx, newStreamID()); !errors.Is(err, events.ErrNotFound) {
		t.Fatalf("version of an unknown stream: %v", err)
	}
	if _, err := store.Load(ctx, "nope", 0, 0); !errors.Is(err, events.ErrInvalid) {
		t.Fatalf("load of a malformed id: %v", err)
	}
	if _, err := store.Load(ctx, id, -1, 0); !errors.Is(err, events.ErrInvalid) {
		t.Fatalf("load with negative bounds: %v", err)
	}
}

func TestAppendRefusesMalformedRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	id := newStreamID()
	good := []events.NewEvent{event("x", 1)}
	tooMany := make([]events.NewEvent, events.MaxBatch+1)
	for i := range tooMany {
		tooMany[i] = event("x", i)
	}
	for _, tc := range []struct {
		name string
		req  events.AppendRequest
	}{
		{"malformed stream id", events.AppendRequest{StreamID: "game-1", Events: good}},
		{"negative version", events.AppendRequest{StreamID: id, ExpectedVersion: -1, Events: good}},
		{"no events", events.AppendRequest{StreamID: id}},
		{"too many events", events.AppendRequest{StreamID: id, Events: tooMany}},
		{"empty type", events.AppendRequest{StreamID: id, Events: []events.NewEvent{{Type: "", Schema: 1, Data: json.RawMessage(`{}`)}}}},
		{"long type", events.AppendRequest{StreamID: id, Events: []events.NewEvent{{Type: strings.Repeat("t", 101), Schema: 1, Data: json.RawMessage(`{}`)}}}},
		{"schema 0", events.AppendRequest{StreamID: id, Events: []events.NewEvent{{Type: "x", Schema: 0, Data: json.RawMessage(`{}`)}}}},
		{"data not JSON", events.AppendRequest{StreamID: id, Events: []events.NewEvent{{Type: "x", Schema: 1, Data: json.RawMessage(`{"a":`)}}}},
		{"no data", events.AppendRequest{StreamID: id, Events: []events.NewEvent{{Type: "x", Schema: 1}}}},
		// JSON Go accepts and PostgreSQL refuses: the database says no,
		// with a clear error.
		{"invalid UTF-8", events.AppendRequest{StreamID: id, Events: []events.NewEvent{{Type: "x", Schema: 1, Data: json.RawMessage("{\"a\":\"\xff\"}")}}}},
		{"NUL in the type", events.AppendRequest{StreamID: id, Events: []events.NewEvent{{Type: "x\x00", Schema: 1, Data: json.RawMessage(`{}`)}}}},
		{"long key", events.AppendRequest{StreamID: id, Events: good, IdempotencyKey: strings.Repeat("k", 256)}},
		{"long hash", events.AppendRequest{StreamID: id, Events: good, IdempotencyKey: "k", RequestHash: strings.Repeat("h", 256)}},
	} {
		for _, hook := range []bool{false, true} {
			req := tc.req
			called := false
			if hook {
				req.Hook = func(context.Context, pgx.Tx, []events.Record) error { called = true; return nil }
			}
			_, err := store.Append(ctx, req)
			if !errors.Is(err, events.ErrInvalid) {
				t.Errorf("%s (hook %v): %v, want ErrInvalid", tc.name, hook, err)
			}
			if called {
				t.Errorf("%s: the hook ran", tc.name)
			}
		}
	}
	if n := count(t, pool, `SELECT count(*) FROM events`); n != 0 {
		t.Fatalf("refused appends wrote %d events", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM streams`); n != 0 {
		t.Fatalf("refused appends wrote %d streams", n)
	}
}

// TestConcurrentAppendsExactlyOneWins races many writers on one stream:
// at every version exactly one commits; the others get a *ConflictError
// with the version the winner reached, and write nothing.
func TestConcurrentAppendsExactlyOneWins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const writers, rounds = 32, 12
	pool := newPool(t, writers)
	store := events.NewStore(pool)
	id := newStreamID()

	var version int64
	for round := range rounds {
		start := make(chan struct{})
		type outcome struct {
			writer int
			res    events.AppendResult
			err    error
		}
		results := make(chan outcome, writers)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				req := events.AppendRequest{
					StreamID: id, ExpectedVersion: version, Meta: testMeta(w),
					Events: []events.NewEvent{event("w", w), event("w", w)},
				}
				// Half of the writers go through an explicit transaction
				// with a hook, half through the single statement.
				if w%2 == 1 {
					req.Hook = func(context.Context, pgx.Tx, []events.Record) error { return nil }
				}
				<-start
				res, err := store.Append(ctx, req)
				results <- outcome{w, res, err}
			})
		}
		close(start)
		wg.Wait()
		close(results)

		winner := -1
		for o := range results {
			var conflict *events.ConflictError
			switch {
			case o.err == nil:
				if winner >= 0 {
					t.Fatalf("round %d: writers %d and %d both appended at version %d", round, winner, o.writer, version)
				}
				winner = o.writer
				if got := o.res.Records[0].Version; got != version+1 {
					t.Fatalf("round %d: the winner wrote version %d, want %d", round, got, version+1)
				}
			case errors.As(o.err, &conflict):
				if !errors.Is(o.err, events.ErrConflict) {
					t.Errorf("a *ConflictError must match ErrConflict")
				}
				if conflict.Expected != version || conflict.Actual != version+2 || conflict.StreamID != id {
					t.Errorf("round %d: conflict %+v, want expected %d actual %d", round, conflict, version, version+2)
				}
			default:
				t.Fatalf("round %d writer %d: %v", round, o.writer, o.err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody appended", round)
		}
		version += 2

		// The stream holds the winner's events only.
		recs, err := store.Load(ctx, id, version-2, 0)
		if err != nil {
			t.Fatal(err)
		}
		var data struct{ N int }
		if len(recs) != 2 || json.Unmarshal(recs[0].Data, &data) != nil || data.N != winner {
			t.Fatalf("round %d: the stream after version %d holds %d events, first %s; want 2 of writer %d",
				round, version-2, len(recs), recs[0].Data, winner)
		}
	}
	if n := count(t, pool, `SELECT count(*) FROM events WHERE stream_id = $1`, id); n != 2*rounds {
		t.Fatalf("%d events in the stream, want %d", n, 2*rounds)
	}
	if v, _ := store.Version(ctx, id); v != 2*rounds {
		t.Fatalf("stream version %d, want %d", v, 2*rounds)
	}
}

func TestFailedAppendsWriteNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	id := newStreamID()
	if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, Events: []events.NewEvent{event("a", 1)}}); err != nil {
		t.Fatal(err)
	}
	// A hook writes, then fails: its write and the events roll back, and
	// its error comes back unwrapped.
	errHook := errors.New("the read model refused")
	_, err := store.Append(ctx, events.AppendRequest{
		StreamID: id, ExpectedVersion: 1, Events: []events.NewEvent{event("b", 2)},
		IdempotencyScope: "s", IdempotencyKey: "k", RequestHash: "h",
		Hook: func(ctx context.Context, tx pgx.Tx, recs []events.Record) error {
			if len(recs) != 1 || recs[0].Version != 2 {
				t.Errorf("the hook got %+v", recs)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO game_secrets (game_id, seed) VALUES ($1, 'x')`, id); err != nil {
				return err
			}
			return errHook
		},
	})
	if err != errHook {
		t.Fatalf("hook failure: %v", err)
	}
	// A stale version, with and without a hook.
	for _, hook := range []events.TxHook{nil, func(context.Context, pgx.Tx, []events.Record) error {
		t.Error("the hook ran for a conflicting append")
		return nil
	}} {
		_, err = store.Append(ctx, events.AppendRequest{StreamID: id, ExpectedVersion: 0, Events: []events.NewEvent{event("c", 3)}, Hook: hook})
		var conflict *events.ConflictError
		if !errors.As(err, &conflict) || conflict.Actual != 1 || conflict.Expected != 0 {
			t.Fatalf("append at 0 to a stream at 1: %v", err)
		}
		_, err = store.Append(ctx, events.AppendRequest{StreamID: newStreamID(), ExpectedVersion: 5, Events: []events.NewEvent{event("c", 3)}, Hook: hook})
		if !errors.As(err, &conflict) || conflict.Actual != 0 {
			t.Fatalf("append at 5 to a new stream: %v", err)
		}
	}
	if n := count(t, pool, `SELECT count(*) FROM events`); n != 1 {
		t.Fatalf("%d events, want only the first", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM game_secrets`) + count(t, pool, `SELECT count(*) FROM idempotency_keys`); n != 0 {
		t.Fatalf("a failed append left %d rows behind", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM streams`); n != 1 {
		t.Fatalf("%d streams, want 1", n)
	}
}

func TestEventsAreImmutable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	id := newStreamID()
	if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, Events: []events.NewEvent{event("a", 1), event("b", 2)}}); err != nil {
		t.Fatal(err)
	}
	dump := func() string {
		var s string
		if err := pool.QueryRow(ctx, `SELECT string_agg(e::text, E'\n' ORDER BY global_position) FROM events e`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := dump()
	for _, stmt := range []string{
		`UPDATE events SET data = '{"n": 99}'`,
		`UPDATE events SET type = 'forged' WHERE version = 2`,
		`DELETE FROM events WHERE version = 2`,
		`DELETE FROM events`,
		`TRUNCATE events`,
		`TRUNCATE events CASCADE`,
	} {
		_, err := pool.Exec(ctx, stmt)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42501" || !strings.Contains(pgErr.Message, "immutable") {
			t.Errorf("%s: %v, want the immutability error", stmt, err)
		}
	}
	if after := dump(); after != before {
		t.Fatalf("the events changed:\n%s\n---\n%s", before, after)
	}
	// Appending still works, and so do the reads.
	if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, ExpectedVersion: 2, Events: []events.NewEvent{event("c", 3)}}); err != nil {
		t.Fatal(err)
	}
}

func TestIdempotentRetries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 20)
	store := events.NewStore(pool)
	id := newStreamID()
	req := events.AppendRequest{
		StreamID: id, Events: []events.NewEvent{event("game.created", 1), event("deal", 2)}, Meta: testMeta(0),
		IdempotencyScope: "player:ana", IdempotencyKey: "create-1", RequestHash: "hash-1",
	}
	first, err := store.Append(ctx, req)
	if err != nil || first.Replayed {
		t.Fatalf("first append: %+v, %v", first, err)
	}
	hookRuns := 0
	hooked := req
	hooked.Hook = func(context.Context, pgx.Tx, []events.Record) error { hookRuns++; return nil }
	// The same request again, with or without a hook, and even at a
	// version that has passed (the retry of a command that did commit).
	for i, retry := range []events.AppendRequest{req, hooked} {
		res, err := store.Append(ctx, retry)
		if err != nil || !res.Replayed {
			t.Fatalf("retry %d: %+v, %v", i, res, err)
		}
		sameRecords(t, res.Records, first.Records)
	}
	if hookRuns != 0 {
		t.Fatalf("the hook ran %d times for replays", hookRuns)
	}
	if recs, found, err := store.Idempotent(ctx, "player:ana", "create-1", "hash-1"); err != nil || !found {
		t.Fatalf("lookup: %v %v", found, err)
	} else {
		sameRecords(t, recs, first.Records)
	}

	// The key with another request is refused, writing nothing.
	other := req
	other.RequestHash = "hash-2"
	other.ExpectedVersion = 2
	if _, err := store.Append(ctx, other); !errors.Is(err, events.ErrIdempotencyMismatch) {
		t.Fatalf("reused key: %v", err)
	}
	if _, _, err := store.Idempotent(ctx, "player:ana", "create-1", "hash-2"); !errors.Is(err, events.ErrIdempotencyMismatch) {
		t.Fatalf("lookup with another hash: %v", err)
	}
	// The same key in another scope is another key.
	scoped := other
	scoped.IdempotencyScope = "player:ben"
	if res, err := store.Append(ctx, scoped); err != nil || res.Replayed || res.Records[0].Version != 3 {
		t.Fatalf("same key, other scope: %+v, %v", res, err)
	}
	if _, found, err := store.Idempotent(ctx, "player:cy", "create-1", "hash-1"); found || err != nil {
		t.Fatalf("unused key: %v %v", found, err)
	}
	// Two events from the first append, two from the other scope.
	if n := count(t, pool, `SELECT count(*) FROM events`); n != 4 {
		t.Fatalf("%d events, want 4", n)
	}
}

// TestConcurrentIdempotentRetries races copies of one command: exactly
// one appends; every other copy returns its result.
func TestConcurrentIdempotentRetries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const copies = 16
	pool := newPool(t, copies)
	store := events.NewStore(pool)
	for round, sameStream := range []bool{true, false} {
		key := fmt.Sprintf("key-%d", round)
		var wg sync.WaitGroup
		results := make([]events.AppendResult, copies)
		errs := make([]error, copies)
		start := make(chan struct{})
		shared := newStreamID()
		for c := range copies {
			wg.Go(func() {
				req := events.AppendRequest{
					StreamID: shared, Events: []events.NewEvent{event("move", round)},
					IdempotencyScope: "s", IdempotencyKey: key, RequestHash: "h",
				}
				if !sameStream {
					// The same key and request aimed at different new
					// streams: only the first stream gets the events.
					req.StreamID = newStreamID()
				}
				if c%2 == 0 {
					req.Hook = func(context.Context, pgx.Tx, []events.Record) error { return nil }
				}
				<-start
				results[c], errs[c] = store.Append(ctx, req)
			})
		}
		close(start)
		wg.Wait()
		appended := -1
		for c := range copies {
			if errs[c] != nil {
				t.Fatalf("round %d copy %d: %v", round, c, errs[c])
			}
			if !results[c].Replayed {
				if appended >= 0 {
					t.Fatalf("round %d: copies %d and %d both appended", round, appended, c)
				}
				appended = c
			}
		}
		if appended < 0 {
			t.Fatalf("round %d: every copy says it replayed", round)
		}
		for c := range copies {
			sameRecords(t, results[c].Records, results[appended].Records)
		}
		if n := count(t, pool, `SELECT count(*) FROM events e JOIN idempotency_keys k ON k.id = $1 WHERE e.stream_id = k.stream_id`, events.KeyID("s", key)); n != 1 {
			t.Fatalf("round %d: %d events for the key", round, n)
		}
	}
	if n := count(t, pool, `SELECT count(*) FROM events`); n != 2 {
		t.Fatalf("%d events, want 2", n)
	}
}

// sameRecords compares records as stored (data as JSON values, times as
// instants).
func sameRecords(t *testing.T, got, want []events.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.StreamID != w.StreamID || g.Version != w.Version || g.Position != w.Position || g.Type != w.Type ||
			g.Schema != w.Schema || !g.RecordedAt.Equal(w.RecordedAt) || !sameJSON(t, g.Data, w.Data) ||
			g.Meta.CommandID != w.Meta.CommandID || g.Meta.Actor.Kind != w.Meta.Actor.Kind {
			t.Fatalf("record %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}
