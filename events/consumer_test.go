package events_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/eventually"
)

// processUntil calls Process until want events came in total, or fails
// the test after a while: an event becomes readable only once every
// older transaction of the cluster has ended, and other tests run in
// parallel.
func processUntil(t *testing.T, c *events.Consumer, want int, handle events.Handler) {
	t.Helper()
	processBatchesUntil(t, c, 100, want, handle)
}

// processBatchesUntil is processUntil with batches of at most limit
// events.
func processBatchesUntil(t *testing.T, c *events.Consumer, limit, want int, handle events.Handler) {
	t.Helper()
	got := 0
	// Each poll takes batches while they come, and waits only once none does.
	eventually.True(t, 30*time.Second, func() bool {
		for got < want {
			n, err := c.Process(context.Background(), limit, handle)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return false
			}
			got += n
		}
		return true
	}, "%d of %d events", eventually.Last(func() any { return got }), want)
	if got != want {
		t.Fatalf("%d events, want %d", got, want)
	}
}

// collector is a handler that keeps what it is given.
type collector struct {
	mu   sync.Mutex
	recs []events.Record
}

func (c *collector) handle(_ context.Context, _ pgx.Tx, batch []events.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recs = append(c.recs, batch...)
	return nil
}

func (c *collector) positions() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]int64, len(c.recs))
	for i, r := range c.recs {
		out[i] = r.Position
	}
	return out
}

// TestConsumerNeverSkipsALateCommit builds the sequence-gap case with two
// overlapping transactions: A takes a position and stays open; B takes a
// higher position and commits. B's event is visible while A's is not, so
// a reader that remembers the highest position seen would pass A's event
// for ever. The consumer must hold B back until A ends, then deliver both.
func TestConsumerNeverSkipsALateCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 8)
	store := events.NewStore(pool)
	consumer := events.NewConsumer(pool, "gap")
	streamA, streamB := newStreamID(), newStreamID()

	inA := make(chan events.Record, 1)
	releaseA := make(chan struct{})
	release := sync.OnceFunc(func() { close(releaseA) })
	t.Cleanup(release) // also when the test fails early
	doneA := make(chan error, 1)
	go func() {
		_, err := store.Append(ctx, events.AppendRequest{
			StreamID: streamA, Events: []events.NewEvent{event("a", 1)},
			Hook: func(_ context.Context, _ pgx.Tx, recs []events.Record) error {
				inA <- recs[0]
				<-releaseA // A stays open, its event inserted but not committed
				return nil
			},
		})
		doneA <- err
	}()
	recA := <-inA
	resB, err := store.Append(ctx, events.AppendRequest{StreamID: streamB, Events: []events.NewEvent{event("b", 2)}})
	if err != nil {
		t.Fatal(err)
	}
	recB := resB.Records[0]
	if recB.Position <= recA.Position {
		t.Fatalf("setup: B's position %d is not above A's %d", recB.Position, recA.Position)
	}
	// The gap: B committed and visible at the higher position, A not yet.
	if n := count(t, pool, `SELECT count(*) FROM events WHERE global_position IN ($1, $2)`, recA.Position, recB.Position); n != 1 {
		t.Fatalf("setup: %d of the two events visible, want B's only", n)
	}

	var got collector
	for range 3 {
		n, err := consumer.Process(ctx, 10, got.handle)
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("the consumer took %v while A's transaction, with a lower position, was still open", got.positions())
		}
	}

	release()
	if err := <-doneA; err != nil {
		t.Fatal(err)
	}
	processUntil(t, consumer, 2, got.handle)
	// A's transaction began first, so its event comes first.
	if p := got.positions(); !slices.Equal(p, []int64{recA.Position, recB.Position}) {
		t.Fatalf("delivered positions %v, want A's %d then B's %d", p, recA.Position, recB.Position)
	}
	// Nothing comes twice, also for a new process with the same name.
	for _, c := range []*events.Consumer{consumer, events.NewConsumer(pool, "gap")} {
		if n, err := c.Process(ctx, 10, got.handle); n != 0 || err != nil {
			t.Fatalf("after the end: %d events, %v", n, err)
		}
	}
	cp, err := consumer.Checkpoint(ctx)
	if err != nil || cp.Position != recB.Position || cp.TxID == 0 {
		t.Fatalf("checkpoint %+v, %v; want at B's position %d", cp, err, recB.Position)
	}
}

// TestConsumerOrdersByTransaction covers the other way an order by
// position alone loses events: a transaction A that took its id before B
// but its position after B's, and commits first. Once A has ended, A's
// event is readable while B's, at a lower position, is not yet; a reader
// checkpointing the highest position would then pass B's event.
func TestConsumerOrdersByTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 8)
	store := events.NewStore(pool)
	consumer := events.NewConsumer(pool, "order")

	// A takes its transaction id first.
	txA, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = txA.Rollback(ctx) }()
	if _, err := txA.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil {
		t.Fatal(err)
	}
	// B inserts its event, taking a position, and stays open.
	inB := make(chan events.Record, 1)
	releaseB := make(chan struct{})
	release := sync.OnceFunc(func() { close(releaseB) })
	t.Cleanup(release)
	doneB := make(chan error, 1)
	go func() {
		_, err := store.Append(ctx, events.AppendRequest{
			StreamID: newStreamID(), Events: []events.NewEvent{event("b", 1)},
			Hook: func(_ context.Context, _ pgx.Tx, recs []events.Record) error {
				inB <- recs[0]
				<-releaseB
				return nil
			},
		})
		doneB <- err
	}()
	recB := <-inB
	// A inserts its event now (a higher position) and commits.
	var posA int64
	if err := txA.QueryRow(ctx, `INSERT INTO events (stream_id, version, type, schema_version, data, meta)
		VALUES ($1, 1, 'a', 1, '{}', '{}') RETURNING global_position`, newStreamID()).Scan(&posA); err != nil {
		t.Fatal(err)
	}
	if err := txA.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if posA <= recB.Position {
		t.Fatalf("setup: A's position %d is not above B's %d", posA, recB.Position)
	}
	var got collector
	processUntil(t, consumer, 1, got.handle)
	if p := got.positions(); !slices.Equal(p, []int64{posA}) {
		t.Fatalf("delivered %v while B was open, want A's %d", p, posA)
	}
	release()
	if err := <-doneB; err != nil {
		t.Fatal(err)
	}
	processUntil(t, consumer, 1, got.handle)
	if p := got.positions(); !slices.Equal(p, []int64{posA, recB.Position}) {
		t.Fatalf("delivered %v, want A's %d then B's %d", p, posA, recB.Position)
	}
}

// TestConsumerSortsTransactionIDsAsNumbers writes events with chosen
// transaction ids (old ones, long ended) whose decimal forms sort the
// other way as text, and whose positions sort the other way too.
func TestConsumerSortsTransactionIDsAsNumbers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 2)
	var first, second int64
	if err := pool.QueryRow(ctx, `INSERT INTO events (stream_id, version, type, schema_version, data, meta, tx_id)
		VALUES ($1, 1, 'a', 1, '{}', '{}', '1000') RETURNING global_position`, newStreamID()).Scan(&second); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `INSERT INTO events (stream_id, version, type, schema_version, data, meta, tx_id)
		VALUES ($1, 1, 'b', 1, '{}', '{}', '999') RETURNING global_position`, newStreamID()).Scan(&first); err != nil {
		t.Fatal(err)
	}
	var got collector
	processUntil(t, events.NewConsumer(pool, "numbers"), 2, got.handle)
	if p := got.positions(); !slices.Equal(p, []int64{first, second}) {
		t.Fatalf("delivered %v, want transaction 999's event (%d) before transaction 1000's (%d)", p, first, second)
	}
}

// TestConsumerDeliversEveryEventOnce runs writers whose transactions
// commit out of position order, against several processes of one
// consumer that restart now and then. Every event must be handled exactly
// once (the handler writes each position under a primary key through the
// consumer's transaction), and each stream's events in version order.
func TestConsumerDeliversEveryEventOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const writers, appendsPerWriter, processes = 6, 30, 3
	pool := newPool(t, writers+processes+2)
	store := events.NewStore(pool)
	if _, err := pool.Exec(ctx, `CREATE TABLE handled (position bigint PRIMARY KEY, stream_id uuid NOT NULL, version bigint NOT NULL, seq bigint GENERATED ALWAYS AS IDENTITY)`); err != nil {
		t.Fatal(err)
	}
	handle := func(ctx context.Context, tx pgx.Tx, batch []events.Record) error {
		for _, r := range batch {
			if _, err := tx.Exec(ctx, `INSERT INTO handled (position, stream_id, version) VALUES ($1, $2, $3)`, r.Position, r.StreamID, r.Version); err != nil {
				return fmt.Errorf("event at %d handled twice? %w", r.Position, err)
			}
		}
		return nil
	}

	var writing sync.WaitGroup
	total := make(chan int, writers)
	for w := range writers {
		writing.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			id := newStreamID()
			version, n := int64(0), 0
			for range appendsPerWriter {
				batch := make([]events.NewEvent, 1+rng.IntN(3))
				for i := range batch {
					batch[i] = event("e", n+i)
				}
				req := events.AppendRequest{StreamID: id, ExpectedVersion: version, Events: batch}
				if rng.IntN(2) == 0 {
					// Hold the transaction open a little after taking
					// positions, so that commits overtake each other.
					pause := time.Duration(rng.IntN(3000)) * time.Microsecond
					req.Hook = func(context.Context, pgx.Tx, []events.Record) error { time.Sleep(pause); return nil }
				}
				if _, err := store.Append(ctx, req); err != nil {
					t.Error(err)
					return
				}
				version += int64(len(batch))
				n += len(batch)
			}
			total <- n
		})
	}

	stop := make(chan struct{})
	var consuming sync.WaitGroup
	for p := range processes {
		consuming.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(p), 2))
			c := events.NewConsumer(pool, "mail")
			for {
				select {
				case <-stop:
					return
				default:
				}
				if rng.IntN(5) == 0 {
					c = events.NewConsumer(pool, "mail") // a restart
				}
				n, err := c.Process(ctx, 1+rng.IntN(10), handle)
				if err != nil {
					t.Error(err)
					return
				}
				if n == 0 {
					// Nothing readable yet: pause as a consumer's poll
					// would, rather than spin against the writers.
					time.Sleep(time.Millisecond)
				}
			}
		})
	}
	writing.Wait()
	close(total)
	want := 0
	for n := range total {
		want += n
	}
	// Within, not True: the consumers must stop before the count below
	// reports a shortfall.
	eventually.Within(60*time.Second, func() bool {
		return count(t, pool, `SELECT count(*) FROM handled`) >= int64(want) || t.Failed()
	})
	close(stop)
	consuming.Wait()
	if t.Failed() {
		return
	}
	if n := count(t, pool, `SELECT count(*) FROM handled`); n != int64(want) {
		t.Fatalf("%d events handled, %d appended", n, want)
	}
	if n := count(t, pool, `SELECT count(*) FROM events e LEFT JOIN handled h ON h.position = e.global_position WHERE h.position IS NULL`); n != 0 {
		t.Fatalf("%d events never handled", n)
	}
	// Within each stream, the versions were handled in order.
	if n := count(t, pool, `SELECT count(*) FROM (
		SELECT version < lag(version) OVER (PARTITION BY stream_id ORDER BY seq) AS backwards FROM handled) x
		WHERE backwards`); n != 0 {
		t.Fatalf("%d events handled before an earlier version of their stream", n)
	}
}

func TestConsumerRetriesAFailedBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	c := events.NewConsumer(pool, "webhooks")
	id := newStreamID()
	if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, Events: []events.NewEvent{event("a", 1), event("b", 2)}}); err != nil {
		t.Fatal(err)
	}
	var got collector
	processUntil(t, c, 2, got.handle)
	if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, ExpectedVersion: 2, Events: []events.NewEvent{event("c", 3)}}); err != nil {
		t.Fatal(err)
	}
	before, err := c.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	errDown := errors.New("webhook endpoint down")
	failures := 0
	fail := func(_ context.Context, tx pgx.Tx, batch []events.Record) error {
		failures++
		// A write through tx is rolled back with the batch.
		if _, err := tx.Exec(ctx, `INSERT INTO game_secrets (game_id, seed) VALUES ($1, 'x')`, id); err != nil {
			return err
		}
		return errDown
	}
	eventually.True(t, 30*time.Second, func() bool {
		n, err := c.Process(ctx, 10, fail)
		if failures > 0 && (n != 0 || !errors.Is(err, errDown)) {
			t.Fatalf("failed batch: %d, %v", n, err)
		}
		return failures > 0
	}, "the third event never came")
	if after, err := c.Checkpoint(ctx); err != nil || after != before {
		t.Fatalf("checkpoint moved from %+v to %+v (%v) on a failed batch", before, after, err)
	}
	if n := count(t, pool, `SELECT count(*) FROM game_secrets`); n != 0 {
		t.Fatal("the failed handler's write was kept")
	}
	// It comes again.
	processUntil(t, c, 1, got.handle)
	if recs := got.recs; len(recs) != 3 || recs[2].Version != 3 || recs[2].StreamID != id {
		t.Fatalf("handled %+v", recs)
	}
}

func TestConsumerStartAtEndAndRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url, pool := newDB(t, 6)
	store := events.NewStore(pool)
	id := newStreamID()
	if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, Events: []events.NewEvent{event("old", 1), event("old", 2)}}); err != nil {
		t.Fatal(err)
	}
	c := events.NewConsumer(pool, "late-worker")
	// The history becomes safely visible when older transactions of the
	// cluster end: wait for that, so that StartAtEnd skips it.
	probe := events.NewConsumer(pool, "probe")
	processUntil(t, probe, 2, func(context.Context, pgx.Tx, []events.Record) error { return nil })
	if err := c.StartAtEnd(ctx); err != nil {
		t.Fatal(err)
	}
	if cp, err := c.Checkpoint(ctx); err != nil || cp.Position == 0 {
		t.Fatalf("checkpoint after StartAtEnd: %+v, %v", cp, err)
	}

	listener := events.NewListener(url, nil)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = listener.Run(runCtx) }()
	wake, cancelWake := listener.SubscribeAll()
	defer cancelWake()

	var got collector
	done := make(chan error, 1)
	go func() {
		done <- c.Run(runCtx, events.RunOptions{BatchSize: 2, PollInterval: 50 * time.Millisecond, Wake: wake}, got.handle)
	}()
	for v := int64(2); v < 5; v++ {
		if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, ExpectedVersion: v, Events: []events.NewEvent{event("new", int(v))}}); err != nil {
			t.Fatal(err)
		}
	}
	// Wait for the checkpoint of the last batch, not only for its handler:
	// cancelled while it commits, the commit may still land on the server
	// after Run has returned, and move the checkpoint under the check
	// below.
	var pos []int64
	var cp events.Checkpoint
	eventually.True(t, 30*time.Second, func() bool {
		if pos = got.positions(); len(pos) < 3 {
			return false
		}
		var err error
		cp, err = c.Checkpoint(ctx)
		return err == nil && cp.Position == pos[len(pos)-1]
	}, "Run handled the positions %v, its checkpoint is %+v: want the last of 3",
		eventually.Last(func() any { return pos }), eventually.Last(func() any { return cp }))
	stop()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
	got.mu.Lock()
	defer got.mu.Unlock()
	if len(got.recs) != 3 {
		t.Fatalf("Run handled %d events, want the 3 new ones", len(got.recs))
	}
	for i, r := range got.recs {
		if r.Version != int64(3+i) || r.Type != "new" {
			t.Fatalf("event %d: %s version %d, want the new events 3..5", i, r.Type, r.Version)
		}
	}
	// StartAtEnd leaves a consumer with a checkpoint alone.
	before, _ := c.Checkpoint(ctx)
	if err := c.StartAtEnd(ctx); err != nil {
		t.Fatal(err)
	}
	if after, _ := c.Checkpoint(ctx); after != before {
		t.Fatalf("StartAtEnd moved a checkpoint from %+v to %+v", before, after)
	}
}

func TestConsumerRefusesBadArguments(t *testing.T) {
	t.Parallel()
	pool := newPool(t, 2)
	noop := func(context.Context, pgx.Tx, []events.Record) error { return nil }
	for _, tc := range []struct {
		c     *events.Consumer
		limit int
	}{
		{events.NewConsumer(pool, ""), 10},
		{events.NewConsumer(pool, string(make([]byte, events.MaxConsumerName+1))), 10},
		{events.NewConsumer(pool, "ok"), 0},
	} {
		if _, err := tc.c.Process(context.Background(), tc.limit, noop); !errors.Is(err, events.ErrInvalid) {
			t.Errorf("limit %d: %v", tc.limit, err)
		}
	}
	if n := count(t, pool, `SELECT count(*) FROM consumer_checkpoints WHERE name IN ('', 'ok') OR length(name) > 200`); n != 0 {
		t.Fatalf("%d checkpoints written", n)
	}
}
