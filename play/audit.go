package play

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
)

// LogEvent is one event of the audit trail: the stored record, a one-line
// human description with seat names, and whether a take-back undid it.
type LogEvent struct {
	events.Record
	Description string `json:"description"`
	// Undone is set on the events of an undone branch; UndoneBy is the
	// version of the game.taken_back event that undid it.
	Undone   bool  `json:"undone,omitempty"`
	UndoneBy int64 `json:"undone_by,omitempty"`
}

// LogQuery selects a page of the audit trail.
type LogQuery struct {
	// After is the version the page starts after.
	After int64
	// Limit is the page size (0: no limit).
	Limit int
	// Types keeps only events of these types (empty: all).
	Types []string
	// Seat keeps only events caused by this seat.
	Seat *int
}

// summarizer is an engine event that can describe itself in one line.
type summarizer interface{ Summary() string }

// AuditLog returns a page of the game's events with descriptions and
// undone marks. Descriptions need the game's seats and the engine events
// decoded, so the game is folded from its latest snapshot at or before
// the page up to the page's last event; the undone marks need every
// take-back after the page, so the log is read to its end.
func (s *Service) AuditLog(ctx context.Context, id string, q LogQuery) ([]LogEvent, error) {
	if q.After < 0 || q.Limit < 0 {
		return nil, fmt.Errorf("%w: negative page bounds", ErrInvalid)
	}
	if !validUUID(id) {
		return nil, fmt.Errorf("%w: game %q", ErrNotFound, id)
	}
	g := newGame(id)
	if q.After > 0 {
		var err error
		if g, err = s.snapshotGame(ctx, id, q.After); err != nil {
			return nil, err
		}
	}
	recs, err := s.Events(ctx, id, g.Version, 0)
	if err != nil {
		return nil, err
	}
	if g.names, err = s.namesForLog(ctx, g, recs); err != nil {
		return nil, err
	}
	g.fillNames()
	return describePage(s.rules, g, recs, q)
}

// describePage folds recs into g, which is at or before q.After, and
// describes the events q selects until the page is full; recs run to the
// end of the log, for the undone marks.
func describePage(reg engine.Registry, g *Game, recs []events.Record, q LogQuery) ([]LogEvent, error) {
	undoneBy := UndoneVersions(recs)
	out := []LogEvent{}
	for _, rec := range recs {
		if q.Limit > 0 && len(out) == q.Limit {
			break
		}
		if err := g.apply(reg, rec); err != nil {
			return nil, fmt.Errorf("fold game %s: %w", g.ID, err)
		}
		if rec.Version <= q.After || (len(q.Types) > 0 && !slices.Contains(q.Types, rec.Type)) {
			continue
		}
		if q.Seat != nil && (rec.Meta.Actor.Seat == nil || *rec.Meta.Actor.Seat != *q.Seat) {
			continue
		}
		e := LogEvent{Record: rec, Description: g.describe(rec)}
		if by, ok := undoneBy[rec.Version]; ok {
			e.Undone, e.UndoneBy = true, by
		}
		out = append(out, e)
	}
	return out, nil
}

// UndoneVersions maps every undone event's version to the version of the
// take-back that undid it.
func UndoneVersions(recs []events.Record) map[int64]int64 {
	undone := map[int64]int64{}
	for _, rec := range recs {
		if rec.Type != EvTakenBack {
			continue
		}
		var tb takenBack
		if json.Unmarshal(rec.Data, &tb) != nil {
			continue
		}
		for _, v := range tb.Undone {
			undone[v] = rec.Version
		}
	}
	return undone
}

// seatPattern finds the seat numbers in the engines' summaries.
var seatPattern = regexp.MustCompile(`\bseat (\d+)`)

// describe is the one-line description of a record just folded into g.
func (g *Game) describe(rec events.Record) string {
	var text string
	switch rec.Type {
	case EvGameCreated:
		names := make([]string, len(g.Seats))
		for i, s := range g.Seats {
			names[i] = s.displayName()
			if names[i] == "" {
				names[i] = "free"
			}
		}
		text = fmt.Sprintf("game created: %s, %d seats (%s); seed commitment %s", g.Config.Ruleset, len(g.Seats),
			strings.Join(names, ", "), g.SeedCommitment)
		if g.Seed != "" {
			text += ", public seed " + g.Seed
		}
		return text
	case EvSeatJoined:
		var j seatJoined
		_ = json.Unmarshal(rec.Data, &j)
		name := g.nameOf(j.PlayerID)
		if name == "" {
			name = "player " + j.PlayerID
		}
		return fmt.Sprintf("%s joined at seat %d", name, j.Seat)
	case EvSeatLeft:
		var l seatLeft
		_ = json.Unmarshal(rec.Data, &l)
		if l.By == LeftForfeit {
			return fmt.Sprintf("the player of seat %d left the game, which the seat forfeits", l.Seat)
		}
		return fmt.Sprintf("the player of seat %d left the game; the %s bot plays the seat from now on", l.Seat, l.Bot)
	case EvSeedRevealed:
		return "the secret seed was revealed: " + g.Seed
	case EvTakebackRequested:
		var r takebackRequested
		_ = json.Unmarshal(rec.Data, &r)
		text = fmt.Sprintf("seat %d asked to take back %s, back to version %d (%s)", r.Seat, plural(r.Moves, "move"), r.ToVersion, plural(len(r.Undo), "event"))
		if len(r.Needs) > 0 {
			parts := make([]string, len(r.Needs))
			for i, n := range r.Needs {
				parts[i] = "seat " + strconv.Itoa(n)
			}
			text += "; needs the consent of " + strings.Join(parts, ", ")
		}
	case EvTakebackAccepted:
		var a takebackAnswer
		_ = json.Unmarshal(rec.Data, &a)
		text = fmt.Sprintf("seat %d consented to take-back %d", a.Seat, a.Takeback)
	case EvTakebackDeclined:
		var a takebackAnswer
		_ = json.Unmarshal(rec.Data, &a)
		text = fmt.Sprintf("seat %d declined take-back %d", a.Seat, a.Takeback)
	case EvTakenBack:
		var tb takenBack
		_ = json.Unmarshal(rec.Data, &tb)
		text = fmt.Sprintf("take-back %d: the game went back to version %d, %s undone", tb.Takeback, tb.ToVersion, plural(len(tb.Undone), "event"))
	default:
		text = rec.Type
		if g.Rules != nil {
			if ev, err := g.Rules.DecodeEvent(rec.Type, rec.Schema, rec.Data); err == nil {
				if sum, ok := ev.(summarizer); ok {
					text = sum.Summary()
				}
			}
		}
		if rec.Meta.Notation != "" && rec.Meta.Actor.Seat != nil && !strings.Contains(text, "seat") {
			text = fmt.Sprintf("seat %d played %q: %s", *rec.Meta.Actor.Seat, rec.Meta.Notation, text)
		}
	}
	return g.withNames(text)
}

// plural is "1 move", "2 moves".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// withNames puts the seats' names in place of "seat N".
func (g *Game) withNames(text string) string {
	return seatPattern.ReplaceAllStringFunc(text, func(m string) string {
		n, err := strconv.Atoi(m[len("seat "):])
		if err != nil || n < 0 || n >= len(g.Seats) {
			return m
		}
		if name := g.Seats[n].displayName(); name != "" {
			return name
		}
		return m
	})
}

// RoundSummary sums up one round of the line of play that stands (undone
// branches excluded).
type RoundSummary struct {
	Round int `json:"round"`
	// FromVersion and ToVersion bound the round's events.
	FromVersion int64 `json:"from_version"`
	ToVersion   int64 `json:"to_version"`
	// Moves counts the commands played in the round; TakenBack the
	// commands undone.
	Moves     int `json:"moves"`
	TakenBack int `json:"taken_back"`
	// Scores are the seats' scores at the end of the round, and Gained
	// what each seat scored during it.
	Scores []int `json:"scores"`
	Gained []int `json:"gained"`
}

// Rounds returns per-round summaries of a game.
func (s *Service) Rounds(ctx context.Context, id string) ([]RoundSummary, error) {
	recs, err := s.Events(ctx, id, 0, 0)
	if err != nil {
		return nil, err
	}
	undone := UndoneVersions(recs)
	g := newGame(id)
	if g.names, err = s.namesForLog(ctx, g, recs); err != nil {
		return nil, err
	}
	out := []RoundSummary{}
	// prev are the scores when the current round began.
	var prev []int
	lastBatch := ""
	for _, rec := range recs {
		var before []int
		if g.State != nil {
			before = g.State.Scores()
		}
		if err := g.apply(s.rules, rec); err != nil {
			return nil, fmt.Errorf("fold game %s: %w", id, err)
		}
		if g.State == nil {
			continue
		}
		round := g.State.View().Round
		if round == 0 {
			// Setup, before the first deal.
			continue
		}
		if !isServerEvent(rec.Type) && (len(out) == 0 || out[len(out)-1].Round != round) {
			prev = before
			out = append(out, RoundSummary{Round: round, FromVersion: rec.Version})
		}
		if len(out) == 0 {
			continue
		}
		r := &out[len(out)-1]
		r.ToVersion = rec.Version
		if key := batchKey(rec.Meta); len(rec.Meta.Command) > 0 && key != lastBatch {
			lastBatch = key
			if _, ok := undone[rec.Version]; ok {
				r.TakenBack++
			} else {
				r.Moves++
			}
		}
		r.Scores = g.State.Scores()
		r.Gained = make([]int, len(r.Scores))
		for i, sc := range r.Scores {
			r.Gained[i] = sc
			if i < len(prev) {
				r.Gained[i] -= prev[i]
			}
		}
	}
	return out, nil
}

// UndoneBy is the version of the take-back that undid version of a game,
// or 0 when version stands.
func (s *Service) UndoneBy(ctx context.Context, id string, version int64) (int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT version, data::text FROM events WHERE stream_id = $1 AND type = $2 AND version > $3 ORDER BY version`,
		id, EvTakenBack, version)
	if err != nil {
		return 0, fmt.Errorf("read the take-backs of game %s: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var at int64
		var data string
		if err := rows.Scan(&at, &data); err != nil {
			return 0, fmt.Errorf("read the take-backs of game %s: %w", id, err)
		}
		var tb takenBack
		if json.Unmarshal([]byte(data), &tb) == nil && tb.ToVersion < version && slices.Contains(tb.Undone, version) {
			return at, rows.Err()
		}
	}
	return 0, rows.Err()
}
