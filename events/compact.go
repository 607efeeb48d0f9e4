package events

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// sameMeta is the meta stored on the second and later events of one
// append: "the meta of the event before me in my stream". Every event of
// an append has the same Meta, which is most of an event's bytes (the
// command's JSON and notation, the command id, the actor), so only the
// append's first event (its head) keeps it in full. The JSON number 0
// takes 2 bytes on disk, where a full meta averages over 200, and it is
// unambiguous: a Meta is an object, and before this rule a 0 failed to
// decode, so no readable event written earlier holds it (not even {} or
// null, which decode to an empty Meta and still read so). Events written
// before this rule keep their full meta and read as they always did.
const sameMeta = `0`

// isSameMeta reports whether a stored meta is the continuation marker. The
// json column keeps the bytes as written, so the comparison is exact.
func isSameMeta(raw []byte) bool { return bytes.Equal(raw, []byte(sameMeta)) }

// metaDecoder decodes the meta of consecutive events, reusing the previous
// result when the bytes repeat (events written before sameMeta repeat
// their append's meta in full).
type metaDecoder struct {
	raw  []byte
	meta Meta
}

func (d *metaDecoder) decode(raw []byte) (Meta, error) {
	if d.raw != nil && bytes.Equal(raw, d.raw) {
		return d.meta, nil
	}
	m, err := decodeMeta(raw)
	if err != nil {
		return Meta{}, err
	}
	d.raw, d.meta = raw, m
	return m, nil
}

// streamMeta is the meta of the latest event a resolver handed out for a
// stream, and that event's version.
type streamMeta struct {
	version int64
	meta    Meta
}

// metaResolver gives every record read its full Meta: a continuation
// (sameMeta) takes the meta of the event before it in its stream, when
// that event was read just before it in the same read; the others, whose
// head was not read (a read that starts inside an append), wait in
// pending for resolve, which asks the database for their heads. The rows
// may come in any order that keeps each stream's events in version order
// (a stream read, the consumer's commit order).
type metaResolver struct {
	dec     metaDecoder
	last    map[string]streamMeta
	pending []int
}

// add sets recs[i].Meta from its stored raw meta, or marks it pending.
// Records must be added in the order they were read.
func (m *metaResolver) add(recs []Record, i int, raw []byte) error {
	r := &recs[i]
	if m.last == nil {
		m.last = map[string]streamMeta{}
	}
	if !isSameMeta(raw) {
		meta, err := m.dec.decode(raw)
		if err != nil {
			return err
		}
		r.Meta = meta
		m.last[r.StreamID] = streamMeta{r.Version, meta}
		return nil
	}
	if prev, ok := m.last[r.StreamID]; ok && prev.version == r.Version-1 {
		r.Meta = prev.meta
		m.last[r.StreamID] = streamMeta{r.Version, prev.meta}
		return nil
	}
	m.pending = append(m.pending, i)
	return nil
}

// headMetaSQL finds the meta of the append that wrote event $2 of stream
// $1 when that event is a continuation: the nearest event before it that
// holds a full meta (an append's events have consecutive versions, and
// only its first holds the meta). The primary key's index is scanned
// backwards, over at most one append (MaxBatch events).
const headMetaSQL = `SELECT version, meta FROM events
WHERE stream_id = $1::uuid AND version < $2 AND meta::text <> '` + sameMeta + `'
ORDER BY version DESC LIMIT 1`

// resolve fills the pending records, reading their heads through q (after
// the rows of the read are closed: one query at a time on a connection).
// Only a read that starts inside an append has any: one more round trip.
func (m *metaResolver) resolve(ctx context.Context, q Querier, recs []Record) error {
	for _, i := range m.pending {
		r := &recs[i]
		if prev, ok := m.last[r.StreamID]; ok && prev.version == r.Version-1 {
			r.Meta = prev.meta
			m.last[r.StreamID] = streamMeta{r.Version, prev.meta}
			continue
		}
		var version int64
		var raw []byte
		err := q.QueryRow(ctx, headMetaSQL, r.StreamID, r.Version).Scan(&version, &raw)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("event %d of stream %s continues an append whose first event is missing", r.Version, r.StreamID)
		}
		if err != nil {
			return fmt.Errorf("read the meta of the append of event %d of stream %s: %w", r.Version, r.StreamID, err)
		}
		meta, err := m.dec.decode(raw)
		if err != nil {
			return fmt.Errorf("event %d of stream %s: meta: %w", version, r.StreamID, err)
		}
		r.Meta = meta
		m.last[r.StreamID] = streamMeta{r.Version, meta}
	}
	m.pending = m.pending[:0]
	return nil
}
