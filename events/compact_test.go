package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/eventually"
)

// metaJSON is a Meta as JSON, for comparing metas (they hold pointers).
func metaJSON(t *testing.T, m events.Meta) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// appendBatches appends batches of the given sizes to a new stream, the
// batch i with testMeta(i), and returns the stream and the meta expected
// of each version (index 0 unused).
func appendBatches(t *testing.T, store *events.Store, sizes ...int) (string, []string) {
	t.Helper()
	id := newStreamID()
	want := []string{""}
	var version int64
	for b, size := range sizes {
		evs := make([]events.NewEvent, size)
		for i := range evs {
			evs[i] = event("e"+strconv.Itoa(b), i)
		}
		meta := testMeta(b)
		if _, err := store.Append(context.Background(), events.AppendRequest{StreamID: id, ExpectedVersion: version, Events: evs, Meta: meta}); err != nil {
			t.Fatal(err)
		}
		version += int64(size)
		for range size {
			want = append(want, metaJSON(t, meta))
		}
	}
	return id, want
}

// checkStreamReads reads the stream from every version with every limit,
// through ReadStream, Store.Load and ReadBatches, and checks every
// record's meta.
func checkStreamReads(t *testing.T, pool *pgxpool.Pool, store *events.Store, id string, want []string) {
	t.Helper()
	ctx := context.Background()
	last := int64(len(want) - 1)
	for after := int64(0); after <= last; after++ {
		for _, limit := range []int{0, 1, 2, 3} {
			recs, err := events.ReadStream(ctx, pool, id, after, limit)
			if err != nil {
				t.Fatalf("after %d, limit %d: %v", after, limit, err)
			}
			loaded, err := store.Load(ctx, id, after, limit)
			if err != nil {
				t.Fatal(err)
			}
			n := last - after
			if limit > 0 {
				n = min(n, int64(limit))
			}
			if int64(len(recs)) != n || len(loaded) != len(recs) {
				t.Fatalf("after %d, limit %d: %d and %d records, want %d", after, limit, len(recs), len(loaded), n)
			}
			for i, r := range recs {
				if r.Version != after+int64(i)+1 {
					t.Fatalf("after %d: record %d has version %d", after, i, r.Version)
				}
				if got := metaJSON(t, r.Meta); got != want[r.Version] {
					t.Errorf("after %d, limit %d: version %d has meta %s, want %s", after, limit, r.Version, got, want[r.Version])
				}
				if got := metaJSON(t, loaded[i].Meta); got != want[r.Version] {
					t.Errorf("Load after %d: version %d has meta %s, want %s", after, r.Version, got, want[r.Version])
				}
			}
		}
	}
	batches, err := events.ReadBatches(ctx, pool, id)
	if err != nil {
		t.Fatal(err)
	}
	seen := int64(0)
	for _, b := range batches {
		for _, r := range b {
			seen++
			if r.Version != seen || metaJSON(t, r.Meta) != want[r.Version] {
				t.Errorf("ReadBatches: version %d (want %d) has meta %s, want %s", r.Version, seen, metaJSON(t, r.Meta), want[seen])
			}
		}
	}
	if seen != last {
		t.Errorf("ReadBatches gave %d events, want %d", seen, last)
	}
}

// TestMetaStoredOncePerAppend: an append's first event holds its meta,
// the others the marker 0, and every read gives every event its full
// meta, from any version and with any limit.
func TestMetaStoredOncePerAppend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	id, want := appendBatches(t, store, 1, 4, 3, 1, 2)

	rows, err := pool.Query(ctx, `SELECT version, meta::text FROM events WHERE stream_id = $1 ORDER BY version`, id)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var v int64
		var m string
		err := r.Scan(&v, &m)
		return m, err
	})
	if err != nil {
		t.Fatal(err)
	}
	heads := map[int]bool{1: true, 2: true, 6: true, 9: true, 10: true}
	for i, m := range stored {
		v := i + 1
		switch {
		case heads[v] && m != want[v]:
			t.Errorf("version %d, the first of its append, stores %s, want %s", v, m, want[v])
		case !heads[v] && m != "0":
			t.Errorf("version %d stores %s, want 0", v, m)
		}
	}
	checkStreamReads(t, pool, store, id, want)
}

// TestMixedStreamReadsAsBefore: a stream written with the full meta on
// every event (as before the marker), followed by compact appends, reads
// the same from every version.
func TestMixedStreamReadsAsBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	id := newStreamID()
	want := []string{""}
	// Two appends of the old form: the same full meta on each event.
	if _, err := pool.Exec(ctx, `INSERT INTO streams (id) VALUES ($1)`, id); err != nil {
		t.Fatal(err)
	}
	for v, seat := range []int{7, 7, 7, 8, 8, -1} {
		meta := metaJSON(t, testMeta(seat))
		stored := meta
		if seat < 0 {
			// An empty object, as some hand-written events hold: it
			// reads as an empty Meta, as before.
			stored, meta = `{}`, metaJSON(t, events.Meta{})
		}
		if _, err := pool.Exec(ctx, `INSERT INTO events (stream_id, version, type, schema_version, data, meta)
			VALUES ($1, $2, 'old', 1, '{"n": 1}', $3::json)`, id, v+1, stored); err != nil {
			t.Fatal(err)
		}
		want = append(want, meta)
	}
	for b, size := range []int{3, 1, 2} {
		evs := make([]events.NewEvent, size)
		for i := range evs {
			evs[i] = event("new", i)
		}
		meta := testMeta(b)
		if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, ExpectedVersion: int64(len(want) - 1), Events: evs, Meta: meta}); err != nil {
			t.Fatal(err)
		}
		for range size {
			want = append(want, metaJSON(t, meta))
		}
	}
	checkStreamReads(t, pool, store, id, want)
}

// TestConsumerGetsFullMeta: the consumer hands out every event with its
// full meta, whatever its batch size, with appends of several streams
// interleaved, and also from a checkpoint left inside an append.
func TestConsumerGetsFullMeta(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	want := map[string][]string{}
	ids := []string{newStreamID(), newStreamID()}
	versions := map[string]int64{}
	for b, size := range []int{2, 3, 1, 4, 2, 3} {
		id := ids[b%2]
		evs := make([]events.NewEvent, size)
		for i := range evs {
			evs[i] = event("c", i)
		}
		meta := testMeta(b)
		if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, ExpectedVersion: versions[id], Events: evs, Meta: meta}); err != nil {
			t.Fatal(err)
		}
		versions[id] += int64(size)
		if want[id] == nil {
			want[id] = []string{""}
		}
		for range size {
			want[id] = append(want[id], metaJSON(t, meta))
		}
	}
	check := func(name string, batch []events.Record) {
		for _, r := range batch {
			if got := metaJSON(t, r.Meta); got != want[r.StreamID][r.Version] {
				t.Errorf("%s: stream %s version %d has meta %s, want %s", name, r.StreamID, r.Version, got, want[r.StreamID][r.Version])
			}
		}
	}
	for _, limit := range []int{1, 2, 3, 100} {
		name := fmt.Sprintf("full-meta-%d", limit)
		c := events.NewConsumer(pool, name)
		// Another test's transaction still open in the cluster holds
		// the later appends back for a while: wait for all 15.
		processBatchesUntil(t, c, limit, 15, func(_ context.Context, _ pgx.Tx, batch []events.Record) error {
			check(name, batch)
			return nil
		})
	}

	// A checkpoint inside an append (on its first event, version 4 of the
	// second stream, as an older server could leave it): the rest of that
	// append comes with its meta.
	var txID string
	var pos int64
	if err := pool.QueryRow(ctx, `SELECT tx_id::text, global_position FROM events WHERE stream_id = $1 AND version = 4`, ids[1]).Scan(&txID, &pos); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO consumer_checkpoints (name, tx_id, position) VALUES ('inside', $1::text::xid8, $2)`, txID, pos); err != nil {
		t.Fatal(err)
	}
	c := events.NewConsumer(pool, "inside")
	var first []events.Record
	// Within, not True: the check below says what came instead.
	eventually.Within(30*time.Second, func() bool {
		if _, err := c.Process(ctx, 1, func(_ context.Context, _ pgx.Tx, batch []events.Record) error {
			first = batch
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return len(first) > 0
	})
	if len(first) != 3 || first[0].StreamID != ids[1] || first[0].Version != 5 {
		t.Fatalf("after a checkpoint inside an append, got %+v, want versions 5 to 7 of %s", first, ids[1])
	}
	check("inside", first)
}

// TestCompactStreamReadsAsItsFullCopy: a stream appended today and a copy
// of it stored the old way (every event with its append's full meta, as
// an import or an older server writes) read back as the same records, so
// an export, which writes the records as JSON, is the same as before.
func TestCompactStreamReadsAsItsFullCopy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	id, _ := appendBatches(t, store, 2, 1, 5, 3)
	full := newStreamID()
	if _, err := pool.Exec(ctx, `INSERT INTO streams (id) VALUES ($1)`, full); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO events (stream_id, version, type, schema_version, data, meta, recorded_at)
		SELECT $2, e.version, e.type, e.schema_version, e.data,
			(SELECT h.meta FROM events h WHERE h.stream_id = e.stream_id AND h.version <= e.version AND h.meta::text <> '0'
			 ORDER BY h.version DESC LIMIT 1), e.recorded_at
		FROM events e WHERE e.stream_id = $1 ORDER BY e.version`, id, full); err != nil {
		t.Fatal(err)
	}
	if n := count(t, pool, `SELECT count(*) FROM events WHERE stream_id = $1 AND meta::text = '0'`, full); n != 0 {
		t.Fatalf("the copy holds %d markers", n)
	}
	export := func(stream string, after int64) string {
		recs, err := store.Load(ctx, stream, after, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range recs {
			recs[i].StreamID, recs[i].Position = "", 0
		}
		b, err := json.Marshal(recs)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for after := range int64(11) {
		if a, b := export(id, after), export(full, after); a != b {
			t.Fatalf("after %d:\ncompact %s\nfull    %s", after, a, b)
		}
	}
}
