package events

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"
)

// SaveSnapshot stores data as the state of a stream at version, written
// in the state format format. A snapshot already stored for the same
// stream, format and version is replaced. The version must exist.
func (s *Store) SaveSnapshot(ctx context.Context, streamID string, version int64, format int, data []byte) error {
	id, err := canonicalID(streamID)
	if err != nil {
		return err
	}
	if version < 1 {
		return fmt.Errorf("snapshot of stream %s: %w: version %d", id, ErrInvalid, version)
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO snapshots (stream_id, format, version, data)
		SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT FROM events WHERE stream_id = $1 AND version = $3)
		ON CONFLICT (stream_id, format, version) DO UPDATE SET data = excluded.data, created_at = now()`,
		id, format, version, data)
	if err != nil {
		return fmt.Errorf("save snapshot of stream %s at version %d: %w", id, version, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("snapshot of stream %s at version %d: %w: the stream has no such version", id, version, ErrInvalid)
	}
	return nil
}

// LatestSnapshot returns the newest snapshot of a stream in format at or
// before version atOrBefore; found is false when there is none.
func (s *Store) LatestSnapshot(ctx context.Context, streamID string, format int, atOrBefore int64) (version int64, data []byte, found bool, err error) {
	id, err := canonicalID(streamID)
	if err != nil {
		return 0, nil, false, err
	}
	err = s.pool.QueryRow(ctx, `SELECT version, data FROM snapshots
		WHERE stream_id = $1 AND format = $2 AND version <= $3
		ORDER BY version DESC LIMIT 1`, id, format, atOrBefore).Scan(&version, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil, false, nil
	}
	if err != nil {
		return 0, nil, false, fmt.Errorf("read the latest snapshot of stream %s: %w", id, err)
	}
	return version, data, true, nil
}

// DeleteSnapshots deletes every snapshot of a stream, of every format.
func (s *Store) DeleteSnapshots(ctx context.Context, streamID string) error {
	id, err := canonicalID(streamID)
	if err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM snapshots WHERE stream_id = $1`, id); err != nil {
		return fmt.Errorf("delete the snapshots of stream %s: %w", id, err)
	}
	return nil
}

// Folding says how LoadState turns a stream into a state of type S. It
// knows nothing of the store, and the store nothing of the rules.
type Folding[S any] struct {
	// Format is the state format: snapshots of another format are ignored.
	// Change it whenever Encode's output or its meaning changes.
	Format int
	// Fold applies records, in version order, to s: the zero S when the
	// stream is read from its first event.
	Fold func(s S, records []Record) (S, error)
	// Decode reads a snapshot written by Encode. A snapshot it refuses is
	// ignored (reported to BadSnapshot) and the stream folded from the start.
	Decode func(data []byte) (S, error)
	// Encode writes a state for a snapshot; needed when SnapshotEvery > 0.
	Encode func(s S) ([]byte, error)
	// SnapshotEvery, when positive, makes LoadState save a snapshot of the
	// state it returns whenever at least that many events were folded
	// after the snapshot it started from (or from the start).
	SnapshotEvery int
	// BadSnapshot, when set, hears of snapshots that failed to decode or
	// to be saved; they cost speed, never correctness.
	BadSnapshot func(version int64, err error)
}

// Loaded is a folded stream.
type Loaded[S any] struct {
	State S
	// Version is the version of the last event folded (0: no events).
	Version int64
	// SnapshotVersion is the version of the snapshot the fold started from
	// (0: from the first event).
	SnapshotVersion int64
}

// LoadState folds a stream up to version upTo (0: all of it): the latest
// snapshot of f.Format at or before upTo, then the events after it.
// Deleting snapshots never changes the result, only the time it takes.
func LoadState[S any](ctx context.Context, store *Store, streamID string, upTo int64, f Folding[S]) (Loaded[S], error) {
	var out Loaded[S]
	if upTo < 0 {
		return out, fmt.Errorf("load stream %s: %w: negative version", streamID, ErrInvalid)
	}
	if f.Fold == nil {
		return out, fmt.Errorf("load stream %s: %w: no fold function", streamID, ErrInvalid)
	}
	limit := upTo
	if limit == 0 {
		limit = math.MaxInt64
	}
	if f.Decode != nil {
		version, data, found, err := store.LatestSnapshot(ctx, streamID, f.Format, limit)
		if err != nil {
			return out, err
		}
		if found {
			state, err := f.Decode(data)
			if err == nil {
				out = Loaded[S]{State: state, Version: version, SnapshotVersion: version}
			} else if f.BadSnapshot != nil {
				f.BadSnapshot(version, err)
			}
		}
	}
	n := 0
	if upTo > 0 {
		if upTo <= out.Version {
			return out, nil
		}
		n = int(upTo - out.Version)
	}
	recs, err := store.Load(ctx, streamID, out.Version, n)
	if err != nil {
		return out, err
	}
	if len(recs) > 0 {
		state, err := f.Fold(out.State, recs)
		if err != nil {
			return out, fmt.Errorf("fold stream %s after version %d: %w", streamID, out.Version, err)
		}
		out.State, out.Version = state, recs[len(recs)-1].Version
	}
	if f.SnapshotEvery > 0 && f.Encode != nil && out.Version-out.SnapshotVersion >= int64(f.SnapshotEvery) {
		if err := saveSnapshot(ctx, store, streamID, out, f); err != nil {
			if f.BadSnapshot != nil {
				f.BadSnapshot(out.Version, err)
			}
		} else {
			out.SnapshotVersion = out.Version
		}
	}
	return out, nil
}

func saveSnapshot[S any](ctx context.Context, store *Store, streamID string, l Loaded[S], f Folding[S]) error {
	data, err := f.Encode(l.State)
	if err != nil {
		return fmt.Errorf("encode the snapshot of stream %s at version %d: %w", streamID, l.Version, err)
	}
	return store.SaveSnapshot(ctx, streamID, l.Version, f.Format, data)
}
