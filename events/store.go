package events

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Querier is what the read functions need: a *pgxpool.Pool, a *pgx.Conn
// or a pgx.Tx.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Store is the PostgreSQL event store. It is safe for concurrent use.
type Store struct {
	pool     *pgxpool.Pool
	log      *slog.Logger
	notifier *notifier
}

// StoreOption configures a Store.
type StoreOption func(*Store)

// WithLogger sets where the store reports what it cannot return as an
// error (a notification that failed to go out). Default: slog.Default().
func WithLogger(l *slog.Logger) StoreOption {
	return func(s *Store) {
		if l != nil {
			s.log = l
		}
	}
}

// NewStore returns a store on pool. The schema comes from package
// migrations.
func NewStore(pool *pgxpool.Pool, opts ...StoreOption) *Store {
	s := &Store{pool: pool, log: slog.Default()}
	for _, o := range opts {
		o(s)
	}
	s.notifier = newNotifier(pool, s.log)
	return s
}

// canonicalID checks that a stream id is a UUID and returns its canonical
// lower-case form.
func canonicalID(streamID string) (string, error) {
	u, err := uuid.Parse(streamID)
	if err != nil {
		return "", fmt.Errorf("%w: stream id %.64q is not a UUID", ErrInvalid, streamID)
	}
	return u.String(), nil
}

// Load returns the events of a stream after afterVersion, in version
// order, at most limit of them (0: all). An unknown stream has no events.
func (s *Store) Load(ctx context.Context, streamID string, afterVersion int64, limit int) ([]Record, error) {
	return ReadStream(ctx, s.pool, streamID, afterVersion, limit)
}

// Version is the stream's current version; ErrNotFound for a stream that
// has no events.
func (s *Store) Version(ctx context.Context, streamID string) (int64, error) {
	id, err := canonicalID(streamID)
	if err != nil {
		return 0, err
	}
	v, err := streamVersion(ctx, s.pool, id)
	if err != nil {
		return 0, err
	}
	if v == 0 {
		return 0, fmt.Errorf("stream %s: %w", id, ErrNotFound)
	}
	return v, nil
}

// streamVersion is the version of a stream, 0 if it has no events.
func streamVersion(ctx context.Context, q Querier, id string) (int64, error) {
	var v int64
	err := q.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM events WHERE stream_id = $1`, id).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("read the version of stream %s: %w", id, err)
	}
	return v, nil
}

const readStreamSQL = `SELECT version, global_position, type, schema_version, data, meta, recorded_at
FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version LIMIT $3`

// ReadStream reads the events of a stream through q (a pool, a connection
// or a transaction): those after afterVersion, at most limit (0: all).
// This is also the page reader of the event log.
func ReadStream(ctx context.Context, q Querier, streamID string, afterVersion int64, limit int) ([]Record, error) {
	id, err := canonicalID(streamID)
	if err != nil {
		return nil, err
	}
	if afterVersion < 0 || limit < 0 {
		return nil, fmt.Errorf("read stream %s: %w: negative bounds", id, ErrInvalid)
	}
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := q.Query(ctx, readStreamSQL, id, afterVersion, lim)
	if err != nil {
		return nil, fmt.Errorf("read stream %s: %w", id, err)
	}
	var recs []Record
	if limit > 0 {
		recs = make([]Record, 0, min(limit, 1024))
	}
	var metas metaResolver
	for rows.Next() {
		var r Record
		var meta []byte
		if err := rows.Scan(&r.Version, &r.Position, &r.Type, &r.Schema, (*[]byte)(&r.Data), &meta, &r.RecordedAt); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read stream %s: %w", id, err)
		}
		r.StreamID = id
		recs = append(recs, r)
		if err := metas.add(recs, len(recs)-1, meta); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read stream %s: event %d: meta: %w", id, r.Version, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read stream %s: %w", id, err)
	}
	// A read that starts inside an append: its first events take their
	// meta from the append's first event.
	if err := metas.resolve(ctx, q, recs); err != nil {
		return nil, fmt.Errorf("read stream %s: %w", id, err)
	}
	return recs, nil
}

// ReadBatches reads a whole stream grouped by the append (the
// transaction) that wrote each event, in order.
func ReadBatches(ctx context.Context, q Querier, streamID string) ([][]Record, error) {
	id, err := canonicalID(streamID)
	if err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, `SELECT version, global_position, type, schema_version, data, meta, recorded_at, tx_id::text
		FROM events WHERE stream_id = $1 ORDER BY version`, id)
	if err != nil {
		return nil, fmt.Errorf("read stream %s: %w", id, err)
	}
	var all []Record
	var txs []string
	var metas metaResolver
	for rows.Next() {
		var r Record
		var meta []byte
		var tx string
		if err := rows.Scan(&r.Version, &r.Position, &r.Type, &r.Schema, (*[]byte)(&r.Data), &meta, &r.RecordedAt, &tx); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read stream %s: %w", id, err)
		}
		r.StreamID = id
		all, txs = append(all, r), append(txs, tx)
		if err := metas.add(all, len(all)-1, meta); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read stream %s: event %d: meta: %w", id, r.Version, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read stream %s: %w", id, err)
	}
	if err := metas.resolve(ctx, q, all); err != nil {
		return nil, fmt.Errorf("read stream %s: %w", id, err)
	}
	var batches [][]Record
	for i, r := range all {
		if i == 0 || txs[i] != txs[i-1] {
			batches = append(batches, nil)
		}
		batches[len(batches)-1] = append(batches[len(batches)-1], r)
	}
	return batches, nil
}

// StreamIDs lists every stream, in id order.
func StreamIDs(ctx context.Context, q Querier) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT s.id::text FROM streams s ORDER BY s.id`)
	if err != nil {
		return nil, fmt.Errorf("list streams: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list streams: %w", err)
	}
	return ids, nil
}
