package play

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/pavilion"
	"github.com/azuld/azuld/events"
)

// News is what happened in a game since a seat last moved, told for its
// player with the players' names: what the others played, and how each
// round that ended meanwhile was scored for everyone. A player who
// answers by mail days later reads it before the table.
type News struct {
	// After is the version before the seat's last move (0: it has not
	// moved yet). The news tells the events after it but the seat's own
	// moves: what its last move set off (the end of a round) is news.
	After int64 `json:"after"`
	// Items are in the order they happened.
	Items []NewsItem `json:"items"`
}

// NewsItem is one line of news (Text: "Ana took 4 red from F2 to line
// 4") or, with Scoring set, how a round was scored.
type NewsItem struct {
	Text    string        `json:"text,omitempty"`
	Scoring *RoundScoring `json:"scoring,omitempty"`
}

// RoundScoring is how a round was scored, seat by seat.
type RoundScoring struct {
	Round int           `json:"round"`
	Seats []SeatScoring `json:"seats"`
}

// SeatScoring is one seat's part of a round's scoring.
type SeatScoring struct {
	Seat int `json:"seat"`
	// Items say what scored or cost points, in words: "red from line 4
	// to the wall: +3", "floor, 2 tiles: −2".
	Items []string `json:"items"`
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
	scored  map[int][]string
	// placed counts the items told of the round's placements and passes
	// (Summer Pavilion), which its scoring tells again: they are dropped
	// when the round ends within the news.
	placed []int
}

// byActor reports whether seat caused rec.
func byActor(rec events.Record, seat int) bool {
	return rec.Meta.Actor.Seat != nil && *rec.Meta.Actor.Seat == seat
}

// line adds one line of news about an event after the seat's last move,
// unless it tells the reader's own move (by is the seat that moved, -1
// for what no seat chose).
func (t *teller) line(version int64, by int, format string, args ...any) {
	if version > t.after && !(t.readers && by == t.reader) {
		t.items = append(t.items, NewsItem{Text: fmt.Sprintf(format, args...)})
	}
}

// score notes what a seat scored in the round.
func (t *teller) score(seat int, item string) {
	if t.scored == nil {
		t.scored = map[int][]string{}
	}
	t.scored[seat] = append(t.scored[seat], item)
}

// name is a seat's player name ("seat N" for a seat without one).
func (t *teller) name(seat int) string {
	if seat >= 0 && seat < len(t.g.Seats) {
		if n := t.g.Seats[seat].displayName(); n != "" {
			return n
		}
	}
	return "seat " + strconv.Itoa(seat)
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
		t.line(rec.Version, -1, "A take-back was agreed: the game went back to version %d.", tb.ToVersion)
		return nil
	}
	if isServerEvent(rec.Type) || t.g.Rules == nil {
		return nil
	}
	ev, err := t.g.Rules.DecodeEvent(rec.Type, rec.Schema, rec.Data)
	if err != nil {
		return err
	}
	switch e := ev.(type) {
	case azul.Event:
		t.tellAzul(rec.Version, e)
	case *pavilion.Event:
		t.tellPavilion(rec.Version, e)
	}
	return nil
}

func (t *teller) tellAzul(v int64, e azul.Event) {
	who := t.name(int(e.Seat))
	switch e.Kind {
	case azul.EvFactoriesFilled:
		t.nextRound(v, int(e.Round))
		if e.Round > 1 {
			t.line(v, -1, "Round %d began; %s starts.", e.Round, who)
		}
	case azul.EvTilesTaken:
		took := fmt.Sprintf("%s took %s from %s", who, tilesOf(int(e.Count), e.Color.String()), sourceName(e.Source, e.Source == azul.Center))
		if e.Marker {
			took += " and the start marker"
		}
		var to []string
		if e.ToLine > 0 {
			to = append(to, fmt.Sprintf("%d to line %d", e.ToLine, e.Line))
		}
		if e.ToFloor > 0 {
			to = append(to, fmt.Sprintf("%d to the floor", e.ToFloor))
		}
		if e.ToLid > 0 {
			to = append(to, fmt.Sprintf("%d to the lid", e.ToLid))
		}
		switch {
		case len(to) == 1 && !e.Marker:
			// "4 red to line 4": the count is said once.
			_, where, _ := strings.Cut(to[0], " ")
			t.line(v, int(e.Seat), "%s %s.", took, where)
		default:
			t.line(v, int(e.Seat), "%s: %s.", took, strings.Join(to, ", "))
		}
	case azul.EvWallTiled:
		t.score(int(e.Seat), fmt.Sprintf("%s from line %d to the wall: %s", e.Color, e.Line, signed(int(e.Points))))
	case azul.EvLineToFloor:
		t.score(int(e.Seat), fmt.Sprintf("line %d (%s) had no free wall space: %d to the floor", e.Line, tilesOf(int(e.Count), e.Color.String()), e.ToFloor))
	case azul.EvFloorScored:
		item := fmt.Sprintf("floor, %s: %s", tilesOf(int(e.FloorLen), "tile"), signed(-int(e.Points)))
		if e.Points < e.Penalty {
			item += fmt.Sprintf(" (of %s: a score does not go below 0)", signed(-int(e.Penalty)))
		}
		t.score(int(e.Seat), item)
	case azul.EvGameEnded:
		t.nextRound(v, 0)
	}
}

func (t *teller) tellPavilion(v int64, e *pavilion.Event) {
	who := t.name(int(e.Seat))
	switch e.Kind {
	case pavilion.EvRoundStarted:
		t.nextRound(v, int(e.Round))
		if e.Round > 1 {
			t.line(v, -1, "Round %d began: %s is wild; %s starts.", e.Round, e.Wild, who)
		}
	case pavilion.EvTilesTaken:
		took := fmt.Sprintf("%s took %s", who, tilesOf(int(e.Count), e.Colour.String()))
		if e.WildTaken > 0 {
			took += fmt.Sprintf(" and %d wild", e.WildTaken)
		}
		took += " from " + sourceName(e.Source, e.Source == pavilion.Center)
		if e.Token {
			took += " and the start token"
			item := "took the start token"
			if e.Lost > 0 {
				item = "start token: " + signed(-int(e.Lost))
			}
			t.score(int(e.Seat), item)
		}
		if e.Lost > 0 {
			took += ": " + signed(-int(e.Lost))
		}
		t.line(v, int(e.Seat), "%s.", took)
	case pavilion.EvAcquisitionEnded:
		t.line(v, -1, "No tiles are left to take: placing began, %s first.", who)
	case pavilion.EvTilePlaced:
		what := fmt.Sprintf("%s on %s, space %d", e.Colour, t.star(int(e.Star)), e.Space)
		var done []string
		for f := range pavilion.NumFeatures {
			if e.Features&(1<<uint(f)) != 0 {
				done = append(done, fmt.Sprintf("the %s of star %d", pavilion.FeatureKind(f), pavilion.FeatureStar(f)))
			}
		}
		if len(done) > 0 {
			what += ", completing " + strings.Join(done, " and ")
		}
		item := what + ": " + signed(int(e.Points))
		t.score(int(e.Seat), item)
		t.placedLine(v, int(e.Seat), "%s placed %s.", who, item)
	case pavilion.EvBonusTaken:
		t.placedLine(v, int(e.Seat), "%s took bonus tiles: %s.", who, tileCounts(e.Tiles))
	case pavilion.EvPassed:
		item := "passed, keeping " + tileCounts(e.Tiles)
		if n := e.Discarded.Total(); n > 0 {
			item += ", discarding " + tilesOf(int(n), "tile")
		}
		if e.Lost > 0 {
			item += ": " + signed(-int(e.Lost))
		}
		t.score(int(e.Seat), item)
		t.placedLine(v, int(e.Seat), "%s %s.", who, item)
	case pavilion.EvResigned:
		t.line(v, int(e.Seat), "%s resigned.", who)
	case pavilion.EvGameEnded:
		t.nextRound(v, 0)
	}
}

// placedLine adds a line that the round's scoring tells again, and notes
// it so that it can be dropped if the round ends within the news.
func (t *teller) placedLine(v int64, by int, format string, args ...any) {
	n := len(t.items)
	t.line(v, by, format, args...)
	if len(t.items) > n {
		t.placed = append(t.placed, n)
	}
}

// star names a Summer Pavilion star as the table does.
func (t *teller) star(star int) string {
	if star == 0 {
		return "the centre star"
	}
	if c, ok := pavilion.StarColour(star); ok && t.g.Config.Options.Board != "monochrome" {
		return "the " + c.String() + " star"
	}
	return "star " + strconv.Itoa(star)
}

// sourceName names a factory ("F2", counting from 1) or the centre.
func sourceName(source int8, centre bool) string {
	if centre {
		return "the centre"
	}
	return fmt.Sprintf("F%d", source+1)
}

// tilesOf is "1 red", "4 red", "1 tile", "3 tiles".
func tilesOf(n int, what string) string {
	if what == "tile" && n != 1 {
		what = "tiles"
	}
	return strconv.Itoa(n) + " " + what
}

// tileCounts is "4 yellow, 1 red" ("none" for no tiles).
func tileCounts(t pavilion.Tiles) string {
	var parts []string
	for c, n := range t {
		if n > 0 {
			parts = append(parts, tilesOf(int(n), pavilion.Colour(c).String()))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// signed is "+3", "−2", "0" (a minus sign, as the tables print it).
func signed(n int) string {
	switch {
	case n > 0:
		return "+" + strconv.Itoa(n)
	case n < 0:
		return "−" + strconv.Itoa(-n)
	}
	return "0"
}
