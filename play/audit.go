package play

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/tell"
	"github.com/azuld/azuld/projections"
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
	// Reader is the language and zone the descriptions are written in;
	// nil: English.
	Reader *i18n.Localizer
	// Viewer is the player who reads ("" for a visitor). Table talk
	// (game.message) keeps its text only for those the game's chat lets
	// read it (Game.MayReadTalk); for the others its payload is empty.
	Viewer string
}

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
	if q.Reader == nil {
		cat, err := s.catalogue()
		if err != nil {
			return nil, err
		}
		q.Reader = cat.Localizer(i18n.Default, time.UTC)
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
		e := LogEvent{Record: rec, Description: g.describe(q.Reader, rec)}
		if rec.Type == EvMessage && !g.MayReadTalk(q.Viewer) {
			e.Record.Data = hiddenTalk
			e.Description = q.Reader.T("talk.log.hidden", "Seat", strconv.Itoa(seatOf(rec)))
		}
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

// describe is the one-line description of a record just folded into g,
// in the reader's language: the game's events through i18n/tell, the
// server's own (seats, seeds, take-backs) through the log domain.
func (g *Game) describe(l *i18n.Localizer, rec events.Record) string {
	seat := func(n int) string { return g.table().Name(l, n) }
	switch rec.Type {
	case EvGameCreated:
		names := make([]string, len(g.Seats))
		for i, s := range g.Seats {
			names[i] = s.displayName()
			switch {
			case s.PlayerID == "" && s.Reserved != "" && s.Name != "":
				names[i] = l.T("rematch.log.reserved_seat", "Name", s.Name)
			case s.Imported, s.namedBot() != "":
				// Nobody here: the seat is its number. A bot is its
				// kind's name in the reader's words.
				names[i] = seat(i)
			case names[i] == "":
				names[i] = l.T("log.free_seat")
			}
		}
		text := l.T("log.game_created", "Ruleset", l.T("game.ruleset."+g.Config.Ruleset),
			"Seats", l.N("log.seats", len(g.Seats)), "Names", strings.Join(names, ", "), "Commitment", g.SeedCommitment)
		if g.Seed != "" {
			text = l.T("log.with_public_seed", "Text", text, "Seed", g.Seed)
		}
		if g.RematchOf != "" {
			text = l.T("rematch.log.created", "Text", text, "ID", g.RematchOf)
		}
		return text
	case EvSeatJoined:
		var j seatJoined
		_ = json.Unmarshal(rec.Data, &j)
		name := g.nameOf(j.PlayerID)
		switch {
		case projections.ImportedPlayer(j.PlayerID):
			name = seat(j.Seat)
		case name == "":
			name = l.T("log.player_id", "ID", j.PlayerID)
		}
		return l.T("log.seat_joined", "Name", name, "Seat", strconv.Itoa(j.Seat))
	case EvSeatLeft:
		var left seatLeft
		_ = json.Unmarshal(rec.Data, &left)
		if left.By == LeftForfeit {
			return l.T("log.seat_left_forfeit", "Seat", strconv.Itoa(left.Seat))
		}
		bot := tell.BotName(l, left.Bot)
		if bot == "" {
			bot = left.Bot
		}
		return l.T("log.seat_left_bot", "Seat", strconv.Itoa(left.Seat), "Bot", bot)
	case EvSeedRevealed:
		return l.T("log.seed_revealed", "Seed", g.Seed)
	case EvRematch:
		return l.T("rematch.log.linked", "ID", g.Rematch)
	case EvImported:
		return l.T("log.imported")
	case EvMessage:
		var m messageSaid
		_ = json.Unmarshal(rec.Data, &m)
		name := l.T("talk.former_player")
		if id := rec.Meta.Actor.PlayerID; id != "" {
			if n := g.nameOf(id); n != "" && n != FormerPlayer {
				name = n
			}
		}
		return l.T("talk.log.message", "Name", name, "Text", m.Text)
	case EvReservationDeclined, EvReservationExpired:
		// Both payloads name the seat and the player invited to it.
		var d reservationDeclined
		_ = json.Unmarshal(rec.Data, &d)
		name := g.nameOf(d.PlayerID)
		switch {
		case projections.ImportedPlayer(d.PlayerID):
			name = seat(d.Seat)
		case name == "":
			name = l.T("log.player_id", "ID", d.PlayerID)
		}
		id := "invited.log.declined"
		switch {
		case rec.Type == EvReservationExpired:
			id = "invited.log.expired"
		case g.RematchOf != "":
			id = "rematch.log.declined"
		}
		return l.T(id, "Name", name, "Seat", strconv.Itoa(d.Seat))
	case EvTakebackRequested:
		var r takebackRequested
		_ = json.Unmarshal(rec.Data, &r)
		text := l.T("log.takeback_requested", "Who", seat(r.Seat), "Moves", l.N("log.moves", r.Moves),
			"Version", strconv.FormatInt(r.ToVersion, 10), "Events", l.N("log.events", len(r.Undo)))
		if len(r.Needs) > 0 {
			who := make([]string, len(r.Needs))
			for i, n := range r.Needs {
				who[i] = seat(n)
			}
			text = l.T("log.takeback_needs", "Text", text, "Who", l.List(who))
		}
		return text
	case EvTakebackAccepted:
		var a takebackAnswer
		_ = json.Unmarshal(rec.Data, &a)
		return l.T("log.takeback_accepted", "Who", seat(a.Seat), "N", strconv.FormatInt(a.Takeback, 10))
	case EvTakebackDeclined:
		var a takebackAnswer
		_ = json.Unmarshal(rec.Data, &a)
		return l.T("log.takeback_declined", "Who", seat(a.Seat), "N", strconv.FormatInt(a.Takeback, 10))
	case EvTakenBack:
		var tb takenBack
		_ = json.Unmarshal(rec.Data, &tb)
		return l.T("log.taken_back", "N", strconv.FormatInt(tb.Takeback, 10), "Version", strconv.FormatInt(tb.ToVersion, 10),
			"Events", l.N("log.events", len(tb.Undone)))
	}
	if g.Rules == nil {
		return rec.Type
	}
	ev, err := g.Rules.DecodeEvent(rec.Type, rec.Schema, rec.Data)
	if err != nil {
		return rec.Type
	}
	return tell.Line(l, g.table(), ev)
}

// table is what i18n/tell needs of the game: its seats' names and the
// board's side.
func (g *Game) table() tell.Table {
	names := make([]string, len(g.Seats))
	bots := make([]string, len(g.Seats))
	for i, s := range g.Seats {
		names[i] = s.displayName()
		bots[i] = s.namedBot()
	}
	return tell.Table{Names: names, Bots: bots, Monochrome: g.Config.Options.Board == "monochrome"}
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
