package play

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/google/uuid"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/projections"
)

// ErrBadLog: an imported log is malformed, does not fold, or fails the
// fairness check; nothing was written.
var ErrBadLog = errors.New("the game log is refused")

// MaxImportEvents bounds an imported log (a long four-player game has
// well under a thousand events).
const MaxImportEvents = 20000

// maxExportLine bounds one line of an export (one event).
const maxExportLine = 1 << 20

// Export writes a game's whole log as JSON lines, one stored record per
// line, oldest first: the form ImportGame and `azuld verify` read.
func (s *Service) Export(ctx context.Context, id string, w io.Writer) error {
	recs, err := s.Events(ctx, id, 0, 0)
	if err != nil {
		return err
	}
	return WriteRecords(w, recs)
}

// WriteRecords writes records as JSON lines.
func WriteRecords(w io.Writer, recs []events.Record) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, rec := range recs {
		if err := enc.Encode(rec); err != nil {
			return fmt.Errorf("write event %d: %w", rec.Version, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write export: %w", err)
	}
	return nil
}

// ReadRecords reads an export: JSON lines of records of one game, in
// version order from 1 with no gap. Blank lines are skipped.
func ReadRecords(r io.Reader) ([]events.Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxExportLine)
	var recs []events.Record
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if len(recs) == MaxImportEvents {
			return nil, fmt.Errorf("%w: more than %d events", ErrBadLog, MaxImportEvents)
		}
		var rec events.Record
		// Unknown fields are ignored, so the audit log's JSON lines
		// (with descriptions) import too.
		dec := json.NewDecoder(bytes.NewReader(text))
		if err := dec.Decode(&rec); err != nil || dec.More() {
			if err == nil {
				err = errors.New("trailing data")
			}
			return nil, fmt.Errorf("%w: line %d is not an event record: %v", ErrBadLog, line, err)
		}
		if rec.Version != int64(len(recs))+1 {
			return nil, fmt.Errorf("%w: line %d holds version %d, want %d", ErrBadLog, line, rec.Version, len(recs)+1)
		}
		if len(recs) > 0 && rec.StreamID != recs[0].StreamID {
			return nil, fmt.Errorf("%w: line %d belongs to another game", ErrBadLog, line)
		}
		if rec.Type == "" || rec.Schema < 1 || !json.Valid(rec.Data) {
			return nil, fmt.Errorf("%w: line %d: an event needs a type, a schema of at least 1 and JSON data", ErrBadLog, line)
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: read: %v", ErrBadLog, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: no events", ErrBadLog)
	}
	return recs, nil
}

// ImportGame stores an exported log as a new game (a new id; every
// event's type, data and meta as exported, except that the players it
// names get opaque ids: see anonymise). The log must fold event by
// event and, when its seed is known, pass the fairness check. A game
// still running with a secret seed cannot be imported: nobody could draw
// its next tiles. The import is one transaction: all or nothing.
func (s *Service) ImportGame(ctx context.Context, recs []events.Record) (*Game, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: no events", ErrBadLog)
	}
	id := newGameID()
	g := newGame(id)
	recs = slices.Clone(recs)
	for i := range recs {
		// An import stores no names, even from a log exported before
		// names left the log.
		rec, err := stripNames(recs[i])
		if err != nil {
			return nil, fmt.Errorf("%w: version %d: %v", ErrBadLog, recs[i].Version, err)
		}
		recs[i] = rec
	}
	// Nor the ids of this server's players: its seats belong to nobody
	// here (the importer imported a record; they did not play it).
	recs, err := anonymise(recs)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadLog, err)
	}
	for _, rec := range recs {
		rec.StreamID = id
		if err := g.apply(s.rules, rec); err != nil {
			return nil, fmt.Errorf("%w: it does not fold at version %d (%s): %v", ErrBadLog, rec.Version, rec.Type, err)
		}
	}
	check := VerifyRecords(s.rules, recs)
	switch check.Result {
	case VerifyFail:
		return nil, fmt.Errorf("%w: the fairness check fails at version %d: %s", ErrBadLog, check.Mismatch.Version, check.Mismatch.Reason)
	case VerifyCommitted:
		// A finished game always reveals its seed; a running one with a
		// secret seed could not draw its next tiles here.
		return nil, fmt.Errorf("%w: the seed is not in the log (a running game with a secret seed, or a finished game without game.seed_revealed)", ErrBadLog)
	}
	// The log then says it was imported, so that no rating ever counts
	// it (a log that folds and verifies is easy to write).
	from := recs[0].StreamID
	if u, err := uuid.Parse(from); err == nil {
		from = u.String()
	} else {
		// Not a game id of azuld's: nothing worth keeping.
		from = ""
	}
	marker, err := serverEvent(EvImported, gameImported{From: from})
	if err != nil {
		return nil, err
	}
	imported := events.Record{StreamID: id, Version: int64(len(recs)) + 1, Type: marker.Type, Schema: marker.Schema, Data: marker.Data,
		Meta: events.Meta{Actor: events.Actor{Kind: "system"}, Channel: "import", CommandID: "import:" + id},
		// Not a move: the game's last move keeps its time.
		RecordedAt: recs[len(recs)-1].RecordedAt}
	if err := g.apply(s.rules, imported); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	recs = append(recs, imported)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("import: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := s.store.ImportStream(ctx, tx, id, recs); err != nil {
		return nil, fmt.Errorf("%w: storing the events failed: %v", ErrBadLog, err)
	}
	if check.Seed != "" {
		if _, err := tx.Exec(ctx, `INSERT INTO game_secrets (game_id, seed) VALUES ($1, $2)`, id, check.Seed); err != nil {
			return nil, fmt.Errorf("import: store seed: %w", err)
		}
	}
	if err := projections.Apply(ctx, tx, g.Row()); err != nil {
		return nil, fmt.Errorf("import: update read models: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("import: commit: %w", err)
	}
	return s.Game(ctx, id)
}
