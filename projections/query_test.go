package projections_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/projections"
)

// applyRows writes rows with Apply, each in its own transaction.
func applyRows(t *testing.T, pool *pgxpool.Pool, rows ...projections.GameRow) {
	t.Helper()
	for _, row := range rows {
		if err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
			return projections.Apply(context.Background(), tx, row)
		}); err != nil {
			t.Fatal(err)
		}
	}
}

var base = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func TestListGamesPagesAndFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	rng := rand.New(rand.NewPCG(1, 1))
	players := []string{uuid.NewString(), uuid.NewString(), uuid.NewString()}
	// The names are read from players at read time; the third player's
	// account is gone, and reads as a former player.
	names := map[string]string{players[0]: "Ana", players[1]: "Ben", players[2]: projections.FormerPlayer}
	for _, p := range players[:2] {
		if _, err := pool.Exec(ctx, `INSERT INTO players (id, name, email) VALUES ($1, $2, '')`, p, names[p]); err != nil {
			t.Fatal(err)
		}
	}
	var rows []projections.GameRow
	for i := range 40 {
		row := projections.GameRow{
			ID:      uuid.NewString(),
			Ruleset: []string{"azul-mini", "summer-pavilion"}[rng.IntN(2)],
			Status:  []string{"open", "active", "finished"}[rng.IntN(3)],
			Version: int64(i),
			ToAct:   []int{},
			// Few distinct times: many ties, which the id breaks.
			CreatedAt:  base,
			LastMoveAt: base.Add(time.Duration(rng.IntN(8)) * time.Minute),
		}
		for seat := range 2 {
			p := ""
			if rng.IntN(3) > 0 {
				p = players[rng.IntN(len(players))]
			}
			// A name written is not stored: it is read from players.
			row.Seats = append(row.Seats, projections.SeatRow{Seat: seat, PlayerID: p, Name: fmt.Sprint("seat ", seat)})
		}
		rows = append(rows, row)
	}
	applyRows(t, pool, rows...)

	for _, f := range []projections.Filter{
		{},
		{Status: "active"},
		{Ruleset: "summer-pavilion"},
		{Player: players[0]},
		{Player: strings.ToUpper(players[1]), Status: "finished"},
		{Ruleset: "azul-mini", Status: "open", Player: players[2]},
		{Player: uuid.NewString()},
	} {
		// The expected list, computed here.
		var want []string
		sorted := slices.Clone(rows)
		slices.SortFunc(sorted, func(a, b projections.GameRow) int {
			if c := b.LastMoveAt.Compare(a.LastMoveAt); c != 0 {
				return c
			}
			return strings.Compare(b.ID, a.ID)
		})
		for _, r := range sorted {
			hasPlayer := f.Player == "" || slices.ContainsFunc(r.Seats, func(s projections.SeatRow) bool { return strings.EqualFold(s.PlayerID, f.Player) })
			if (f.Status == "" || r.Status == f.Status) && (f.Ruleset == "" || r.Ruleset == f.Ruleset) && hasPlayer {
				want = append(want, r.ID)
			}
		}
		for _, limit := range []int{1, 3, 7, 0} {
			f.Limit, f.Cursor = limit, ""
			var got []string
			for pages := 0; ; pages++ {
				page, next, err := projections.ListGames(ctx, pool, f)
				if err != nil {
					t.Fatal(err)
				}
				if limit > 0 && len(page) > limit || pages > 100 {
					t.Fatalf("%+v: page of %d", f, len(page))
				}
				for _, g := range page {
					got = append(got, g.ID)
				}
				if next == "" {
					break
				}
				f.Cursor = next
			}
			if !slices.Equal(got, want) {
				t.Fatalf("filter %+v limit %d:\n got %v\nwant %v", f, limit, got, want)
			}
		}
	}

	// A row reads back as written.
	page, _, err := projections.ListGames(ctx, pool, projections.Filter{Limit: projections.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range page {
		i := slices.IndexFunc(rows, func(r projections.GameRow) bool { return r.ID == g.ID })
		want := rows[i]
		want.Seats = slices.Clone(want.Seats)
		for j := range want.Seats {
			want.Seats[j].Name = names[want.Seats[j].PlayerID]
		}
		if !g.LastMoveAt.Equal(want.LastMoveAt) || !g.CreatedAt.Equal(want.CreatedAt) {
			t.Fatalf("times of %s: %v %v", g.ID, g.LastMoveAt, g.CreatedAt)
		}
		g.LastMoveAt, g.CreatedAt = want.LastMoveAt, want.CreatedAt
		if !reflect.DeepEqual(g, want) {
			t.Fatalf("read back\n%+v\nwrote\n%+v", g, want)
		}
	}

	for _, f := range []projections.Filter{
		{Status: "paused"}, {Player: "me"}, {Limit: -1}, {Limit: projections.MaxLimit + 1},
		{Cursor: "x"}, {Cursor: strings.Repeat("A", 300)}, {Cursor: "djEuMTIzLm5vdC1hLXV1aWQ"},
	} {
		if _, _, err := projections.ListGames(ctx, pool, f); !errors.Is(err, projections.ErrInvalid) {
			t.Errorf("filter %+v: %v, want ErrInvalid", f, err)
		}
	}
}

func TestInboxAndResults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	ana, ben := uuid.NewString(), uuid.NewString()
	soon, later := base.Add(24*time.Hour), base.Add(72*time.Hour)
	g1 := projections.GameRow{ID: uuid.NewString(), Ruleset: "azul-mini", Status: "active", Version: 5,
		ToAct: []int{0, 2}, CreatedBy: ana, CreatedAt: base, LastMoveAt: base.Add(time.Minute), Deadline: &later,
		Seats: []projections.SeatRow{{Seat: 0, PlayerID: ana, Name: "Ana"}, {Seat: 1, PlayerID: ben, Name: "Ben"}, {Seat: 2, PlayerID: ana, Name: "Ana"}}}
	g2 := projections.GameRow{ID: uuid.NewString(), Ruleset: "summer-pavilion", Status: "active", Version: 9,
		ToAct: []int{1}, CreatedAt: base, LastMoveAt: base.Add(2 * time.Minute), Deadline: &soon,
		Seats: []projections.SeatRow{{Seat: 0, Bot: "greedy", Name: "greedy bot"}, {Seat: 1, PlayerID: ana, Name: "Ana"}}}
	// A bot to act: no inbox row.
	g3 := projections.GameRow{ID: uuid.NewString(), Ruleset: "azul-mini", Status: "active", Version: 2,
		ToAct: []int{0}, CreatedAt: base, LastMoveAt: base,
		Seats: []projections.SeatRow{{Seat: 0, Bot: "random", Name: "r"}, {Seat: 1, PlayerID: ben, Name: "Ben"}}}
	applyRows(t, pool, g1, g2, g3)

	inbox, err := projections.Inbox(ctx, pool, ana)
	if err != nil {
		t.Fatal(err)
	}
	// The earliest deadline first; both of Ana's seats of g1 in one row.
	want := []projections.TurnRow{
		{GameID: g2.ID, Ruleset: "summer-pavilion", Seats: []int{1}, Version: 9, Since: g2.LastMoveAt, Deadline: &soon},
		{GameID: g1.ID, Ruleset: "azul-mini", Seats: []int{0, 2}, Version: 5, Since: g1.LastMoveAt, Deadline: &later},
	}
	sameTurns(t, inbox, want)
	if inbox, err := projections.Inbox(ctx, pool, ben); err != nil || len(inbox) != 0 {
		t.Fatalf("Ben's inbox: %+v, %v", inbox, err)
	}

	// Ana plays seat 0 of g1: seat 2 stays to act and keeps its since.
	g1.ToAct, g1.Version, g1.LastMoveAt = []int{2, 1}, 6, base.Add(10*time.Minute)
	applyRows(t, pool, g1)
	inbox, _ = projections.Inbox(ctx, pool, ana)
	want[1].Seats, want[1].Version = []int{2}, 6
	sameTurns(t, inbox, want)
	benInbox, _ := projections.Inbox(ctx, pool, ben)
	sameTurns(t, benInbox, []projections.TurnRow{{GameID: g1.ID, Ruleset: "azul-mini", Seats: []int{1}, Version: 6, Since: g1.LastMoveAt, Deadline: &later}})

	// g1 ends: no more turns, results for every seat.
	g1.Status, g1.ToAct, g1.Version, g1.Deadline = "finished", []int{}, 7, nil
	g1.Final = &engine.Final{Reason: "row_completed", Winners: []int{1}, Players: []engine.FinalPlayer{
		{Seat: 0, Score: 20, Rank: 2}, {Seat: 1, Score: 31, Rank: 1}, {Seat: 2, Score: 20, Rank: 2}}}
	applyRows(t, pool, g1)
	if benInbox, _ := projections.Inbox(ctx, pool, ben); len(benInbox) != 0 {
		t.Fatalf("Ben's inbox after the end: %+v", benInbox)
	}
	results, err := projections.Results(ctx, pool, ana)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 || results[0].Seat != 0 || results[1].Seat != 2 || results[0].Score != 20 || results[0].Rank != 2 ||
		results[0].Seats != 3 || results[0].GameID != g1.ID || results[0].Ruleset != "azul-mini" || !results[0].FinishedAt.Equal(g1.LastMoveAt) {
		t.Fatalf("Ana's results: %+v", results)
	}
	if results, _ := projections.Results(ctx, pool, ben); len(results) != 1 || results[0].Rank != 1 || results[0].Score != 31 {
		t.Fatalf("Ben's results: %+v", results)
	}
	row, found, err := projections.Game(ctx, pool, g1.ID)
	if err != nil || !found || row.Final == nil || row.Final.Winners[0] != 1 || row.Status != "finished" {
		t.Fatalf("game %s: %+v %v %v", g1.ID, row, found, err)
	}
	if _, found, err := projections.Game(ctx, pool, "nope"); found || err != nil {
		t.Fatalf("game nope: %v %v", found, err)
	}

	for _, bad := range []string{"", "me", "1234"} {
		if _, err := projections.Inbox(ctx, pool, bad); !errors.Is(err, projections.ErrInvalid) {
			t.Errorf("inbox of %q: %v", bad, err)
		}
		if _, err := projections.Results(ctx, pool, bad); !errors.Is(err, projections.ErrInvalid) {
			t.Errorf("results of %q: %v", bad, err)
		}
	}
}

func sameTurns(t *testing.T, got, want []projections.TurnRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("inbox %+v, want %+v", got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		sameDeadline := (g.Deadline == nil) == (w.Deadline == nil) && (g.Deadline == nil || g.Deadline.Equal(*w.Deadline))
		if g.GameID != w.GameID || g.Ruleset != w.Ruleset || !slices.Equal(g.Seats, w.Seats) || g.Version != w.Version ||
			!g.Since.Equal(w.Since) || !sameDeadline {
			t.Fatalf("inbox row %d: %+v, want %+v", i, g, w)
		}
	}
}

func TestApplyRefusesMalformedRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	good := projections.GameRow{ID: uuid.NewString(), Ruleset: "azul-mini", Status: "active", ToAct: []int{0},
		CreatedAt: base, LastMoveAt: base, Seats: []projections.SeatRow{{Seat: 0, PlayerID: uuid.NewString(), Name: "A"}}}
	for name, change := range map[string]func(r *projections.GameRow){
		"id":            func(r *projections.GameRow) { r.ID = "game-1" },
		"status":        func(r *projections.GameRow) { r.Status = "" },
		"ruleset":       func(r *projections.GameRow) { r.Ruleset = "" },
		"version":       func(r *projections.GameRow) { r.Version = -1 },
		"player":        func(r *projections.GameRow) { r.Seats[0].PlayerID = "ana" },
		"creator":       func(r *projections.GameRow) { r.CreatedBy = "ana" },
		"seat twice":    func(r *projections.GameRow) { r.Seats = append(r.Seats, r.Seats[0]) },
		"negative seat": func(r *projections.GameRow) { r.ToAct = []int{-1} },
		"no time":       func(r *projections.GameRow) { r.LastMoveAt = time.Time{} },
		"final seat twice": func(r *projections.GameRow) {
			r.Final = &engine.Final{Players: []engine.FinalPlayer{{Seat: 0}, {Seat: 0}}}
		},
	} {
		row := good
		row.Seats = slices.Clone(good.Seats)
		change(&row)
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return projections.Apply(ctx, tx, row) })
		if !errors.Is(err, projections.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if d := dump(t, pool); len(d["games"])+len(d["game_seats"])+len(d["turn_inbox"])+len(d["results"]) != 0 {
		t.Fatalf("refused rows were written: %v", d)
	}
	// The good row goes in, and applying it twice changes nothing.
	applyRows(t, pool, good)
	once := dump(t, pool)
	applyRows(t, pool, good)
	sameDump(t, dump(t, pool), once)
}

// ApplyChange writes the same tables as Apply, also when the game's row is
// missing (it was truncated by a rebuild under way) or the seats change.
func TestApplyChangeEqualsApply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	changed, full := newPool(t), newPool(t)
	ana, ben := uuid.NewString(), uuid.NewString()
	before := projections.GameRow{ID: uuid.NewString(), Ruleset: "azul-mini", Status: "open", ToAct: []int{},
		CreatedAt: base, LastMoveAt: base, Seats: []projections.SeatRow{{Seat: 0, PlayerID: ana, Name: "A"}, {Seat: 1}}}
	joined := before
	joined.Seats = []projections.SeatRow{{Seat: 0, PlayerID: ana, Name: "A"}, {Seat: 1, PlayerID: ben, Name: "B"}}
	joined.Status, joined.Version, joined.ToAct, joined.LastMoveAt = "active", 3, []int{0}, base.Add(time.Minute)
	moved := joined
	moved.Version, moved.ToAct, moved.LastMoveAt = 4, []int{1}, base.Add(2*time.Minute)
	over := moved
	over.Status, over.Version, over.ToAct, over.LastMoveAt = "finished", 5, []int{}, base.Add(3*time.Minute)
	over.Final = &engine.Final{Reason: "resigned", Players: []engine.FinalPlayer{{Seat: 0, Rank: 1}, {Seat: 1, Rank: 2}}, Winners: []int{0}}

	applyRows(t, changed, before)
	steps := [][2]projections.GameRow{{before, joined}, {joined, moved}, {moved, over}}
	for i, s := range steps {
		if i == 1 {
			// A rebuild emptied the table between two moves.
			if _, err := changed.Exec(ctx, `DELETE FROM games`); err != nil {
				t.Fatal(err)
			}
		}
		prev := s[0]
		if err := pgx.BeginFunc(ctx, changed, func(tx pgx.Tx) error { return projections.ApplyChange(ctx, tx, &prev, s[1]) }); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		applyRows(t, full, s[1])
		sameDump(t, dump(t, changed), dump(t, full))
	}
}
