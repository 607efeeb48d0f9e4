package events

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ImportStream writes a whole stream at once through tx: a new stream
// streamID holding recs as they are given (their versions, which must run
// 1, 2, … without a gap, types, schema versions, data and meta), for a log
// brought in from elsewhere rather than appended command by command. It
// runs in the caller's transaction, so that whatever else the import
// writes commits with the stream or not at all. The events get this
// store's positions and times (recorded_at is the transaction's), and
// nothing is announced on NotifyChannel: nobody follows a stream that did
// not exist. Errors: ErrInvalid for a malformed request; a stream that
// exists already fails the transaction.
func (s *Store) ImportStream(ctx context.Context, tx pgx.Tx, streamID string, recs []Record) error {
	id, err := canonicalID(streamID)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return fmt.Errorf("import stream %s: %w: no events", id, ErrInvalid)
	}
	for i, rec := range recs {
		if rec.Version != int64(i)+1 {
			return fmt.Errorf("import stream %s: %w: event %d holds version %d", id, ErrInvalid, i+1, rec.Version)
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO streams (id) VALUES ($1)`, id); err != nil {
		return fmt.Errorf("import stream %s: create stream: %w", id, err)
	}
	// One pipelined batch: an import is up to thousands of events.
	batch := &pgx.Batch{}
	for _, rec := range recs {
		meta, err := json.Marshal(rec.Meta)
		if err != nil {
			return fmt.Errorf("import stream %s: encode meta of version %d: %w", id, rec.Version, err)
		}
		batch.Queue(`INSERT INTO events (stream_id, version, type, schema_version, data, meta)
			VALUES ($1, $2, $3, $4, $5::json, $6::json)`, id, rec.Version, rec.Type, rec.Schema, []byte(rec.Data), meta)
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("import stream %s: store the events: %w", id, err)
	}
	return nil
}
