package play

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n/tell"
)

// News is what happened in a game since a seat last moved: what the
// others played, and how each round that ended meanwhile was scored for
// everyone. A player who answers by mail days later reads it before the
// table. It holds the events themselves, not words: the reader's
// language is chosen where it is read (tell.Line, tell.Item with a
// reader's Localizer and Table).
type News struct {
	// After is the version before the seat's last move (0: it has not
	// moved yet). The news tells the events after it but the seat's own
	// moves: what its last move set off (the end of a round) is news.
	After int64 `json:"after"`
	// Table names the seats and the board's side, for tell.
	Table tell.Table `json:"-"`
	// Items are in the order they happened.
	Items []NewsItem `json:"items"`
}

// NewsItem is one item of news: an event (told by tell.Line), an agreed
// take-back (TakenBackTo, told by tell.TakenBack), or, with Scoring set,
// how a round was scored.
type NewsItem struct {
	Event       engine.Event  `json:"-"`
	TakenBackTo int64         `json:"taken_back_to,omitempty"`
	Scoring     *RoundScoring `json:"scoring,omitempty"`
}

// RoundScoring is how a round was scored, seat by seat.
type RoundScoring struct {
	Round int           `json:"round"`
	Seats []SeatScoring `json:"seats"`
}

// SeatScoring is one seat's part of a round's scoring.
type SeatScoring struct {
	Seat int `json:"seat"`
	// Items are the events that scored or cost points (told by
	// tell.Item: "red from line 4 to the wall: +3").
	Items []engine.Event `json:"-"`
	// Gained is what the round changed the seat's score by; Score is the
	// score after it.
	Gained int `json:"gained"`
	Score  int `json:"score"`
}

// NewsSince tells what happened in game id, up to version upTo, since
// seat last moved (a move the time control made for it counts). Undone
// moves are left out; a take-back is told as such.
func (s *Service) NewsSince(ctx context.Context, id string, seat int, upTo int64) (News, error) {
	if upTo < 0 {
		return News{}, fmt.Errorf("%w: negative version", ErrInvalid)
	}
	recs, err := s.Events(ctx, id, 0, int(upTo))
	if err != nil {
		return News{}, err
	}
	names, err := s.namesForLog(ctx, newGame(id), recs)
	if err != nil {
		return News{}, err
	}
	return newsOf(s.rules, id, recs, seat, names)
}

// newsOf folds recs, a game's log from its start, and tells seat's news.
// The whole log is folded because a round's scoring covers the whole
// round, moves before the seat's last one included.
func newsOf(reg engine.Registry, id string, recs []events.Record, seat int, names map[string]string) (News, error) {
	undone := UndoneVersions(recs)
	var news News
	// The seat's last move is the batch of its last standing event.
	lastBatch, prev := "", int64(-1)
	for _, rec := range recs {
		if _, gone := undone[rec.Version]; gone || isServerEvent(rec.Type) || !byActor(rec, seat) {
			continue
		}
		if key := batchKey(rec.Meta); key != lastBatch || rec.Version != prev+1 {
			news.After = rec.Version - 1
			lastBatch = key
		}
		prev = rec.Version
	}
	t := teller{g: newGame(id), after: news.After, reader: seat}
	t.g.names = names
	for _, rec := range recs {
		if err := t.g.apply(reg, rec); err != nil {
			return News{}, fmt.Errorf("fold game %s: %w", id, err)
		}
		if _, gone := undone[rec.Version]; gone {
			continue
		}
		t.readers = byActor(rec, seat)
		if err := t.tell(rec); err != nil {
			return News{}, fmt.Errorf("tell game %s version %d: %w", id, rec.Version, err)
		}
	}
	news.Items = t.items
	news.Table = tell.Table{Monochrome: t.g.Config.Options.Board == "monochrome"}
	for _, st := range t.g.Seats {
		news.Table.Names = append(news.Table.Names, st.displayName())
		news.Table.Bots = append(news.Table.Bots, st.namedBot())
	}
	if news.Items == nil {
		news.Items = []NewsItem{}
	}
	return news, nil
}

// teller turns a game's events into news, folding them as it goes.
type teller struct {
	g      *Game
	after  int64
	reader int
	// readers is set while telling an event of the reader's own move.
	readers bool
	items   []NewsItem
	// round is the round being played, started its scores when it began,
	// scored what each seat scored or lost in it.
	round   int
	started []int
	scored  map[int][]engine.Event
	// placed counts the items told of the round's placements and passes
	// (Summer Pavilion), which its scoring tells again: they are dropped
	// when the round ends within the news.
	placed []int
}

// byActor reports whether seat caused rec.
func byActor(rec events.Record, seat int) bool {
	return rec.Meta.Actor.Seat != nil && *rec.Meta.Actor.Seat == seat
}

// line adds an item of news about an event after the seat's last move,
// unless it tells the reader's own move (by is the seat that moved, -1
// for what no seat chose).
func (t *teller) line(version int64, by int, it NewsItem) {
	if version > t.after && !(t.readers && by == t.reader) {
		t.items = append(t.items, it)
	}
}

// score notes an event that scored for a seat in the round.
func (t *teller) score(seat int, ev engine.Event) {
	if t.scored == nil {
		t.scored = map[int][]engine.Event{}
	}
	t.scored[seat] = append(t.scored[seat], ev)
}

// nextRound ends the round being played, telling how it was scored, and
// starts the account of round n (0: the game is over) at the scores now.
func (t *teller) nextRound(version int64, n int) {
	t.endRound(version)
	t.round, t.scored, t.placed = n, nil, nil
	t.started = t.g.State.Scores()
}

// endRound tells how the round being played was scored, when it ended
// after the seat's last move.
func (t *teller) endRound(version int64) {
	if version <= t.after || t.round == 0 {
		return
	}
	scores := t.g.State.Scores()
	// The round's scoring tells its placements and passes again.
	for i := len(t.placed) - 1; i >= 0; i-- {
		t.items = slices.Delete(t.items, t.placed[i], t.placed[i]+1)
	}
	t.placed = nil
	sc := &RoundScoring{Round: t.round}
	for seat, score := range scores {
		gained := score
		if seat < len(t.started) {
			gained -= t.started[seat]
		}
		sc.Seats = append(sc.Seats, SeatScoring{Seat: seat, Items: slices.Clone(t.scored[seat]), Gained: gained, Score: score})
	}
	t.items = append(t.items, NewsItem{Scoring: sc})
}

// tell adds the news of one record just folded.
func (t *teller) tell(rec events.Record) error {
	if rec.Type == EvTakenBack {
		var tb takenBack
		if err := json.Unmarshal(rec.Data, &tb); err != nil {
			return err
		}
		t.line(rec.Version, -1, NewsItem{TakenBackTo: tb.ToVersion})
		return nil
	}
	if isServerEvent(rec.Type) || t.g.Rules == nil {
		return nil
	}
	ev, err := t.g.Rules.DecodeEvent(rec.Type, rec.Schema, rec.Data)
	if err != nil {
		return err
	}
	t.tellEvent(rec.Version, ev)
	return nil
}

// tellEvent sorts one game event into the news by what it describes.
func (t *teller) tellEvent(v int64, ev engine.Event) {
	d := ev.Describe()
	switch d.Phrase {
	case engine.PhraseRoundStarted:
		t.nextRound(v, d.Round)
		if d.Round > 1 {
			t.line(v, -1, NewsItem{Event: ev})
		}
		return
	case engine.PhraseGameEnded:
		t.nextRound(v, 0)
		return
	}
	if d.Scoring {
		t.score(d.Seat, ev)
	}
	switch d.News {
	case engine.NewsMove:
		t.line(v, d.Seat, NewsItem{Event: ev})
	case engine.NewsTable:
		t.line(v, -1, NewsItem{Event: ev})
	case engine.NewsPlay:
		t.placedLine(v, d.Seat, NewsItem{Event: ev})
	}
}

// placedLine adds an item that the round's scoring tells again, and
// notes it so that it can be dropped if the round ends within the news.
func (t *teller) placedLine(v int64, by int, it NewsItem) {
	n := len(t.items)
	t.line(v, by, it)
	if len(t.items) > n {
		t.placed = append(t.placed, n)
	}
}
