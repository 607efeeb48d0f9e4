package events_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/eventually"
)

// probe is a companion that notes the stream's version after the append
// in a table of the test's own, with one parameter of its own ($2) to
// show that its parameters are renumbered past the append's.
func probe(stream, note string) events.Companion {
	return events.Companion{
		SQL: `INSERT INTO companion_probe (stream_id, version, note)
			SELECT $1::uuid, max(version), $2::text FROM appended HAVING count(*) > 0`,
		Args: []any{stream, note},
	}
}

// TestCompanionRunsWithTheAppend: a companion is written by the append's
// own statement, in every shape (new stream or not, one event or a batch,
// keyed or not); it writes nothing when the append writes nothing (a key
// used before, a stale expected version), and a failing companion leaves
// no event.
func TestCompanionRunsWithTheAppend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	if _, err := pool.Exec(ctx, `CREATE TABLE companion_probe (stream_id uuid, version bigint, note text CHECK (note <> 'refused'))`); err != nil {
		t.Fatal(err)
	}
	notes := func(id string) []string {
		t.Helper()
		rows, err := pool.Query(ctx, `SELECT note FROM companion_probe WHERE stream_id = $1 ORDER BY version`, id)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			out = append(out, n)
		}
		return out
	}

	for _, keyed := range []bool{false, true} {
		id := newStreamID()
		req := func(expected int64, note string, evs ...events.NewEvent) events.AppendRequest {
			r := events.AppendRequest{StreamID: id, ExpectedVersion: expected, Events: evs, Meta: testMeta(0),
				Also: []events.Companion{probe(id, note), probe(id, note+"+")}}
			if keyed {
				r.IdempotencyScope, r.IdempotencyKey, r.RequestHash = "test", id+note, "h"+note
			}
			return r
		}
		if _, err := store.Append(ctx, req(0, "a", event("game.created", 1))); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Append(ctx, req(1, "b", event("tiles_taken", 2), event("tiles_taken", 3))); err != nil {
			t.Fatal(err)
		}
		// A stale expected version: a conflict, and nothing from the companion.
		if _, err := store.Append(ctx, req(1, "c", event("tiles_taken", 4))); !errors.Is(err, events.ErrConflict) {
			t.Fatalf("keyed %v: stale append: %v, want a conflict", keyed, err)
		}
		if keyed {
			// The same command again: its first result, and no second note.
			res, err := store.Append(ctx, req(1, "b", event("tiles_taken", 2), event("tiles_taken", 3)))
			if err != nil || !res.Replayed {
				t.Fatalf("replay: %+v, %v", res, err)
			}
		}
		// A companion that fails takes the events with it.
		if _, err := store.Append(ctx, req(3, "refused", event("tiles_taken", 5))); err == nil {
			t.Fatal("an append whose companion fails succeeded")
		}
		if v, err := store.Version(ctx, id); err != nil || v != 3 {
			t.Fatalf("keyed %v: version %d, %v; want 3", keyed, v, err)
		}
		if got := notes(id); len(got) != 4 || got[0] != "a" && got[0] != "a+" || got[2] != "b" && got[2] != "b+" {
			t.Errorf("keyed %v: notes %q, want a and a+ at version 1, b and b+ at 3", keyed, got)
		}
	}

	// Bad companions are refused before anything is sent.
	for _, c := range []events.Companion{{SQL: "  "}, {SQL: "DELETE FROM companion_probe WHERE version = $0"}} {
		_, err := store.Append(ctx, events.AppendRequest{StreamID: newStreamID(), Events: []events.NewEvent{event("game.created", 1)}, Meta: testMeta(0), Also: []events.Companion{c}})
		if !errors.Is(err, events.ErrInvalid) {
			t.Errorf("companion %q: %v, want ErrInvalid", c.SQL, err)
		}
	}
}

// TestConsumerKeepsTransactionsWhole: a batch never ends inside a
// transaction, so one append's events come together, with their
// transaction id; Pending and WaitCaughtUp say whether anything is left.
func TestConsumerKeepsTransactionsWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	c := events.NewConsumer(pool, "whole")
	if err := c.StartAtEnd(ctx); err != nil {
		t.Fatal(err)
	}
	id := newStreamID()
	evs := []events.NewEvent{event("game.created", 1)}
	for i := 2; i <= 7; i++ {
		evs = append(evs, event("tiles_taken", i))
	}
	if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, Events: evs, Meta: testMeta(0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, ExpectedVersion: 7, Events: []events.NewEvent{event("tiles_taken", 8)}, Meta: testMeta(1)}); err != nil {
		t.Fatal(err)
	}
	if pending, err := c.Pending(ctx); err != nil || !pending {
		t.Fatalf("pending before the batches: %v, %v", pending, err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := c.WaitCaughtUp(short, time.Millisecond); err == nil {
		t.Fatal("WaitCaughtUp returned with events pending")
	}
	var batches [][]events.Record
	got := 0
	// Each poll takes batches while they come, and waits only once none does.
	eventually.True(t, 30*time.Second, func() bool {
		for got < 8 {
			n, err := c.Process(ctx, 2, func(_ context.Context, _ pgx.Tx, batch []events.Record) error {
				batches = append(batches, batch)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return false
			}
			got += n
		}
		return true
	}, "%d of 8 events", eventually.Last(func() any { return got }))
	if len(batches) != 2 || len(batches[0]) != 7 || len(batches[1]) != 1 {
		t.Fatalf("batches of %v events, want the first append's 7 then 1", lens(batches))
	}
	for _, r := range batches[0] {
		if r.TxID == 0 || r.TxID != batches[0][0].TxID {
			t.Fatalf("transaction ids %d and %d in one append", r.TxID, batches[0][0].TxID)
		}
	}
	if batches[1][0].TxID <= batches[0][0].TxID {
		t.Errorf("the later append's transaction id %d is not above %d", batches[1][0].TxID, batches[0][0].TxID)
	}
	if pending, err := c.Pending(ctx); err != nil || pending {
		t.Fatalf("pending after the batches: %v, %v", pending, err)
	}
	if err := c.WaitCaughtUp(ctx, time.Millisecond); err != nil {
		t.Fatal(err)
	}
}

func lens(bs [][]events.Record) []int {
	out := make([]int, len(bs))
	for i, b := range bs {
		out[i] = len(b)
	}
	return out
}
