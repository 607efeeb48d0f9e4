package events_test

import (
	"context"
	"errors"
	"testing"

	"github.com/azuld/azuld/events"
)

// importRecords is a whole stream as an export holds it: versions from 1,
// each event with its own meta.
func importRecords(n int) []events.Record {
	var recs []events.Record
	for i := 1; i <= n; i++ {
		e := event("tiles_taken", i)
		recs = append(recs, events.Record{Version: int64(i), Type: e.Type, Schema: e.Schema, Data: e.Data, Meta: testMeta(i % 2)})
	}
	return recs
}

// An imported stream reads back as it was given, in the caller's
// transaction: nothing of it is there before the commit, nor after a
// rollback.
func TestImportStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	recs := importRecords(3)

	id := newStreamID()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.ImportStream(ctx, tx, id, recs); err != nil {
		t.Fatal(err)
	}
	if n := count(t, pool, `SELECT count(*) FROM events WHERE stream_id = $1`, id); n != 0 {
		t.Fatalf("%d events seen before the commit", n)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := store.Load(ctx, id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recs) {
		t.Fatalf("%d events, want %d", len(got), len(recs))
	}
	for i, g := range got {
		w := recs[i]
		if g.StreamID != id || g.Version != w.Version || g.Type != w.Type || g.Schema != w.Schema || !sameJSON(t, g.Data, w.Data) ||
			g.Meta.CommandID != w.Meta.CommandID || g.Meta.Notation != w.Meta.Notation || *g.Meta.Actor.Seat != *w.Meta.Actor.Seat {
			t.Fatalf("event %d:\n got %+v\nwant %+v", i, g, w)
		}
		if i > 0 && g.Position <= got[i-1].Position {
			t.Fatalf("positions do not increase: %d then %d", got[i-1].Position, g.Position)
		}
	}
	if v, err := store.Version(ctx, id); err != nil || v != 3 {
		t.Fatalf("version %d, %v", v, err)
	}
	// The stream goes on by appends.
	if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, ExpectedVersion: 3, Events: []events.NewEvent{event("tiles_placed", 4)}, Meta: testMeta(0)}); err != nil {
		t.Fatalf("append after the import: %v", err)
	}

	rolledBack := newStreamID()
	tx, err = pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.ImportStream(ctx, tx, rolledBack, recs); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, pool, `SELECT count(*) FROM streams WHERE id = $1`, rolledBack) + count(t, pool, `SELECT count(*) FROM events WHERE stream_id = $1`, rolledBack); n != 0 {
		t.Fatalf("a rolled back import left %d rows", n)
	}
}

// A malformed import is refused before anything is written; a stream
// that exists already is not written over.
func TestImportStreamRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	gap := importRecords(3)
	gap[2].Version = 4
	for name, c := range map[string]struct {
		id   string
		recs []events.Record
	}{
		"not a UUID": {"game-1", importRecords(1)},
		"no events":  {newStreamID(), nil},
		"a gap":      {newStreamID(), gap},
		"from 2":     {newStreamID(), importRecords(3)[1:]},
	} {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.ImportStream(ctx, tx, c.id, c.recs); !errors.Is(err, events.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
		_ = tx.Rollback(ctx)
	}

	id := newStreamID()
	if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, Events: []events.NewEvent{event("game.created", 1)}, Meta: testMeta(0)}); err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := store.ImportStream(ctx, tx, id, importRecords(2)); err == nil {
		t.Fatal("an import over an existing stream succeeded")
	}
	if n := count(t, pool, `SELECT count(*) FROM events WHERE stream_id = $1`, id); n != 1 {
		t.Fatalf("%d events, want the one appended", n)
	}
}
