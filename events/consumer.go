package events

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// MaxConsumerName is the longest consumer name.
const MaxConsumerName = 200

// Consumer reads every stream's events in the global commit-safe order
// (see the package documentation), for asynchronous work such as mail and
// webhooks. Its checkpoint is kept in the database under its name, so a
// restarted process goes on where the last one stopped. Processes that
// share a name take turns: each batch is handled under a transaction-level
// advisory lock of the name, so two of them never handle the same events
// at the same time.
type Consumer struct {
	pool *pgxpool.Pool
	name string
}

// Checkpoint is the place of the last event a consumer handled: its
// writing transaction and its position.
type Checkpoint struct {
	TxID     uint64
	Position int64
}

// Handler handles a batch of events inside the consumer's transaction,
// which also advances the checkpoint: writes made through tx happen
// exactly once; effects outside the database happen at least once (a
// failure after them makes the batch come again). An error rolls the
// batch back; it comes again on the next call.
type Handler func(ctx context.Context, tx pgx.Tx, batch []Record) error

// NewConsumer returns the consumer called name.
func NewConsumer(pool *pgxpool.Pool, name string) *Consumer {
	return &Consumer{pool: pool, name: name}
}

func (c *Consumer) checkName() error {
	if c.name == "" || len(c.name) > MaxConsumerName {
		return fmt.Errorf("consumer %.64q: %w: the name must have 1 to %d bytes", c.name, ErrInvalid, MaxConsumerName)
	}
	return nil
}

// lockSQL serialises the processes of one consumer name. An advisory
// lock rather than a row lock: a row lock gives the transaction an xid for
// the whole batch, which would hold back the snapshot xmin, and so the
// progress of every consumer, while the handler runs.
const lockSQL = `SELECT pg_advisory_xact_lock(hashtextextended('azuld.consumer:' || $1, 0))`

// nextSQL reads the next events (at most $2) after the checkpoint stored
// under a consumer's name ($1), among those whose transaction has ended
// for every snapshot (tx_id below xmin). Sent in one round trip right
// after the lock, it runs once the lock is held, with a snapshot that
// sees the checkpoint the previous holder committed. (LATERAL keeps the
// index scan on (tx_id, global_position); the ORDER BY names the table's
// columns: a bare tx_id would mean the output column tx_id::text, and
// sort transaction ids as text.)
const nextSQL = `WITH cp AS (
	SELECT c.tx_id, c.position FROM (
		SELECT tx_id, position, 0 AS o FROM consumer_checkpoints WHERE name = $1
		UNION ALL SELECT '0'::xid8, 0::bigint, 1) c
	ORDER BY c.o LIMIT 1)
SELECT e.stream_id::text, e.version, e.global_position, e.type, e.schema_version, e.data, e.meta,
	e.recorded_at, e.tx_id::text AS tx
FROM cp, LATERAL (
	SELECT * FROM events e
	WHERE (e.tx_id, e.global_position) > (cp.tx_id, cp.position)
	  AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
	ORDER BY e.tx_id, e.global_position
	LIMIT $2) e
ORDER BY e.tx_id, e.global_position`

// restOfTxSQL reads the events of a transaction after a position: a
// batch that reached its limit in the middle of a transaction is made
// whole, so that one append's events always come in one batch.
const restOfTxSQL = `SELECT e.stream_id::text, e.version, e.global_position, e.type, e.schema_version, e.data, e.meta,
	e.recorded_at, e.tx_id::text AS tx
FROM events e
WHERE e.tx_id = $1::text::xid8 AND e.global_position > $2
ORDER BY e.global_position
LIMIT $3`

// Process handles the next batch of about limit events (at least one)
// with handle, and returns how many it handled: 0 when none are ready. A
// batch never splits a transaction's events (an append's events come
// together), so it may hold more than limit.
func (c *Consumer) Process(ctx context.Context, limit int, handle Handler) (int, error) {
	return c.ProcessBatch(ctx, limit, func(ctx context.Context, tx pgx.Tx, batch []Record, _ *pgx.Batch) error {
		return handle(ctx, tx, batch)
	})
}

// BatchHandler is a Handler that may also queue statements in final: the
// consumer sends them with its checkpoint, in one round trip, before it
// commits.
type BatchHandler func(ctx context.Context, tx pgx.Tx, batch []Record, final *pgx.Batch) error

// ProcessBatch is Process with a BatchHandler.
func (c *Consumer) ProcessBatch(ctx context.Context, limit int, handle BatchHandler) (int, error) {
	if err := c.checkName(); err != nil {
		return 0, err
	}
	if limit < 1 {
		return 0, fmt.Errorf("consumer %s: %w: batch size %d", c.name, ErrInvalid, limit)
	}
	tx, err := c.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("consumer %s: begin: %w", c.name, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	// The lock, then the events after the checkpoint, in one round trip.
	b := &pgx.Batch{}
	b.Queue(lockSQL, c.name)
	b.Queue(nextSQL, c.name, limit)
	res := tx.SendBatch(ctx, b)
	if _, err := res.Exec(); err != nil {
		_ = res.Close()
		return 0, fmt.Errorf("consumer %s: lock: %w", c.name, err)
	}
	rows, err := res.Query()
	if err != nil {
		_ = res.Close()
		return 0, fmt.Errorf("consumer %s: read events: %w", c.name, err)
	}
	var metas metaResolver
	batch, last, err := scanRecords(rows, Checkpoint{}, &metas, make([]Record, 0, min(limit, 1024)))
	if cerr := res.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("read events: %w", cerr)
	}
	if err != nil {
		return 0, fmt.Errorf("consumer %s: %w", c.name, err)
	}
	if len(batch) == 0 {
		return 0, nil
	}
	if len(batch) == limit {
		if batch, last, err = readAfter(ctx, tx, restOfTxSQL, last, 1<<20, &metas, batch); err != nil {
			return 0, fmt.Errorf("consumer %s: %w", c.name, err)
		}
	}
	// A batch starts with a transaction, so an append's first event comes
	// before its continuations; only a checkpoint left inside an append
	// (by an older server) makes the resolver read a head.
	if err := metas.resolve(ctx, tx, batch); err != nil {
		return 0, fmt.Errorf("consumer %s: read events: %w", c.name, err)
	}
	final := &pgx.Batch{}
	if err := handle(ctx, tx, batch, final); err != nil {
		return 0, fmt.Errorf("consumer %s: handler: %w", c.name, err)
	}
	final.Queue(`INSERT INTO consumer_checkpoints (name, tx_id, position)
		VALUES ($1, $2::text::xid8, $3)
		ON CONFLICT (name) DO UPDATE SET tx_id = excluded.tx_id, position = excluded.position, updated_at = now()`,
		c.name, strconv.FormatUint(last.TxID, 10), last.Position)
	if err := tx.SendBatch(ctx, final).Close(); err != nil {
		return 0, fmt.Errorf("consumer %s: the handler's last writes and the checkpoint: %w", c.name, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("consumer %s: commit: %w", c.name, err)
	}
	return len(batch), nil
}

func readCheckpoint(ctx context.Context, q Querier, name string) (Checkpoint, error) {
	var cp Checkpoint
	var txText string
	err := q.QueryRow(ctx, `SELECT tx_id::text, position FROM consumer_checkpoints WHERE name = $1`, name).Scan(&txText, &cp.Position)
	if errors.Is(err, pgx.ErrNoRows) {
		return Checkpoint{}, nil
	}
	if err != nil {
		return Checkpoint{}, fmt.Errorf("read the checkpoint: %w", err)
	}
	if cp.TxID, err = strconv.ParseUint(txText, 10, 64); err != nil {
		return Checkpoint{}, fmt.Errorf("read the checkpoint: transaction id %q: %w", txText, err)
	}
	return cp, nil
}

// readAfter reads with sql (restOfTxSQL) after from, appending to batch,
// whose records went through metas before.
func readAfter(ctx context.Context, q Querier, sql string, from Checkpoint, limit int, metas *metaResolver, batch []Record) ([]Record, Checkpoint, error) {
	rows, err := q.Query(ctx, sql, strconv.FormatUint(from.TxID, 10), from.Position, limit)
	if err != nil {
		return nil, from, fmt.Errorf("read events: %w", err)
	}
	return scanRecords(rows, from, metas, batch)
}

// scanRecords appends the rows of nextSQL and restOfTxSQL to batch, and
// returns the place of the last (from when there are none). The records'
// metas go through metas, which the caller resolves once the rows are
// closed.
func scanRecords(rows pgx.Rows, from Checkpoint, metas *metaResolver, batch []Record) ([]Record, Checkpoint, error) {
	defer rows.Close()
	last := from
	for rows.Next() {
		var r Record
		var meta []byte
		var txText string
		var err error
		if err = rows.Scan(&r.StreamID, &r.Version, &r.Position, &r.Type, &r.Schema, (*[]byte)(&r.Data), &meta, &r.RecordedAt, &txText); err != nil {
			return nil, from, fmt.Errorf("read events: %w", err)
		}
		txID, err := strconv.ParseUint(txText, 10, 64)
		if err != nil {
			return nil, from, fmt.Errorf("read events: transaction id %q: %w", txText, err)
		}
		r.TxID = txID
		last = Checkpoint{TxID: txID, Position: r.Position}
		batch = append(batch, r)
		if err := metas.add(batch, len(batch)-1, meta); err != nil {
			return nil, from, fmt.Errorf("read events: event %d of stream %s: meta: %w", r.Version, r.StreamID, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, from, fmt.Errorf("read events: %w", err)
	}
	return batch, last, nil
}

// Checkpoint is where the consumer stands (zero before its first batch).
func (c *Consumer) Checkpoint(ctx context.Context) (Checkpoint, error) {
	if err := c.checkName(); err != nil {
		return Checkpoint{}, err
	}
	cp, err := readCheckpoint(ctx, c.pool, c.name)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("consumer %s: %w", c.name, err)
	}
	return cp, nil
}

// Pending reports whether events are stored after the consumer's
// checkpoint: committed ones it has not handled yet, or ones whose
// transaction is still open.
func (c *Consumer) Pending(ctx context.Context) (bool, error) {
	if err := c.checkName(); err != nil {
		return false, err
	}
	var pending bool
	err := c.pool.QueryRow(ctx, `SELECT EXISTS (
		SELECT FROM events e
		WHERE (e.tx_id, e.global_position) > coalesce(
			(SELECT (c.tx_id, c.position) FROM consumer_checkpoints c WHERE c.name = $1),
			('0'::xid8, 0::bigint)))`, c.name).Scan(&pending)
	if err != nil {
		return false, fmt.Errorf("consumer %s: pending events: %w", c.name, err)
	}
	return pending, nil
}

// WaitCaughtUp polls Pending every interval until nothing is pending
// (every event committed before the call, and since, is handled) or ctx
// ends.
func (c *Consumer) WaitCaughtUp(ctx context.Context, interval time.Duration) error {
	for {
		pending, err := c.Pending(ctx)
		if err != nil || !pending {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("consumer %s: events still pending: %w", c.name, ctx.Err())
		case <-time.After(interval):
		}
	}
}

// StartAtEnd makes a consumer that has no checkpoint yet skip the events
// already safely visible, so that a worker added to a running server does
// not act on the whole history. Events still in flight are delivered. A
// consumer with a checkpoint is left as it is.
func (c *Consumer) StartAtEnd(ctx context.Context) error {
	if err := c.checkName(); err != nil {
		return err
	}
	_, err := c.pool.Exec(ctx, `INSERT INTO consumer_checkpoints (name, tx_id, position)
		SELECT $1, coalesce(e.tx_id, '0'::xid8), coalesce(e.global_position, 0)
		FROM (SELECT) AS one LEFT JOIN LATERAL (
			SELECT tx_id, global_position FROM events
			WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())
			ORDER BY tx_id DESC, global_position DESC LIMIT 1) e ON true
		ON CONFLICT (name) DO NOTHING`, c.name)
	if err != nil {
		return fmt.Errorf("consumer %s: start at the end: %w", c.name, err)
	}
	return nil
}

// RunOptions tune Run.
type RunOptions struct {
	// BatchSize is the most events per handler call (default 100).
	BatchSize int
	// PollInterval is how long Run waits when no event is ready (default
	// 1s). Polling is needed even with Wake: an event can become readable
	// only when an unrelated older transaction ends.
	PollInterval time.Duration
	// Wake, when set (e.g. a Listener's SubscribeAll), ends a wait early.
	Wake <-chan Notice
}

// Run handles batches until ctx ends (then it returns nil) or a batch
// fails (then it returns the error; the batch comes again on the next
// start).
func (c *Consumer) Run(ctx context.Context, opts RunOptions, handle Handler) error {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 100
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		n, err := c.Process(ctx, opts.BatchSize, handle)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		if n == opts.BatchSize {
			continue
		}
		timer.Reset(opts.PollInterval)
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case _, ok := <-opts.Wake:
			if !ok {
				opts.Wake = nil // the listener stopped: poll only
			}
		}
	}
}
