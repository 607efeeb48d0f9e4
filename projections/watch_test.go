package projections_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/projections"
)

// TestWatchList: the watch list holds the running public games only, the
// best-rated seat first (a seat without a rating counts 0, a bot too),
// ties by the latest move; it pages; private games are listed to their
// seated players only.
func TestWatchList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	strong, weak, newcomer, other := uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString()
	// strong: ordinal 40 - 9 = 31; weak: 10 - 3*5 = -5 (below a newcomer's 0).
	if _, err := pool.Exec(ctx, `INSERT INTO ratings (ruleset, players, subject, player_id, mu, sigma, games, last_game_at)
		VALUES ('azul-mini', 2, $1::text, $1::uuid, 40, 3, 20, now()), ('azul-mini', 2, $2::text, $2::uuid, 10, 5, 20, now()),
			('azul-mini', 3, $3::text, $3::uuid, 90, 1, 20, now()),
			('azul-mini', 2, 'bot:greedy', NULL, 90, 1, 20, now())`, strong, weak, newcomer); err != nil {
		t.Fatal(err)
	}
	row := func(at time.Duration, status string, seats ...projections.SeatRow) projections.GameRow {
		for i := range seats {
			seats[i].Seat = i
		}
		r := projections.GameRow{ID: uuid.NewString(), Ruleset: "azul-mini", Status: status, Version: 3, ToAct: []int{0},
			Seats: seats, CreatedAt: base, LastMoveAt: base.Add(at), Options: engine.Options{Wall: "grey"}}
		if status == "finished" {
			r.ToAct = []int{}
			r.Final = &engine.Final{Players: []engine.FinalPlayer{{Seat: 0, Rank: 1}, {Seat: 1, Rank: 2}}}
		}
		return r
	}
	p := func(id string) projections.SeatRow { return projections.SeatRow{PlayerID: id} }
	bot := projections.SeatRow{Bot: "greedy"}
	best := row(time.Minute, "active", p(weak), p(strong))
	newcomers := row(3*time.Minute, "active", p(newcomer), p(other)) // 0: newcomer's rating is for 3 players
	newcomersOlder := row(2*time.Minute, "active", p(other), bot)    // 0 too: a bot counts 0
	weakOnly := row(4*time.Minute, "active", p(weak), p(weak))       // -5
	private := row(5*time.Minute, "active", p(strong), p(other))
	private.Private = true
	finished := row(6*time.Minute, "finished", p(strong), p(weak))
	open := row(7*time.Minute, "open", p(strong), projections.SeatRow{})
	applyRows(t, pool, best, newcomers, newcomersOlder, weakOnly, private, finished, open)

	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		page, next, err := projections.ListGames(ctx, pool, projections.Filter{Watch: true, Limit: 2, Cursor: cursor, Viewer: other})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range page {
			got = append(got, g.ID)
		}
		if next == "" {
			break
		}
		if cursor = next; pages > 5 {
			t.Fatal("no end")
		}
	}
	want := []string{best.ID, newcomers.ID, newcomersOlder.ID, weakOnly.ID}
	if !slices.Equal(got, want) {
		t.Fatalf("watch list %v, want %v", got, want)
	}

	// The plain list: the private game for its players only.
	for _, c := range []struct {
		f    projections.Filter
		want bool
	}{
		{projections.Filter{}, false},
		{projections.Filter{Viewer: weak}, false},
		{projections.Filter{Viewer: other}, true},
		{projections.Filter{Player: other}, false},
		{projections.Filter{Everything: true}, true},
	} {
		c.f.Limit = projections.MaxLimit
		page, _, err := projections.ListGames(ctx, pool, c.f)
		if err != nil {
			t.Fatal(err)
		}
		listed := slices.ContainsFunc(page, func(g projections.GameRow) bool { return g.ID == private.ID })
		if listed != c.want || (c.f.Player == "" && len(page) < 5) {
			t.Errorf("%+v: private game listed %v, want %v (%d games)", c.f, listed, c.want, len(page))
		}
	}
	// Without one's own games (the lobby's list).
	page, _, err := projections.ListGames(ctx, pool, projections.Filter{Watch: true, Without: other})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 2 || page[0].ID != best.ID || page[1].ID != weakOnly.ID {
		t.Errorf("watch list without other's games: %d games", len(page))
	}
	if _, _, err := projections.ListGames(ctx, pool, projections.Filter{Watch: true, Cursor: "djEuMTIzLng"}); err == nil {
		t.Error("the watch list took a cursor of the other list")
	}
	if _, _, err := projections.ListGames(ctx, pool, projections.Filter{Watch: true, Status: "active"}); err == nil {
		t.Error("the watch list took a status")
	}
}

// TestWatchOrderKeptFromTheStart: a game's place on the watch list is
// written when it starts (here through ApplyChange and QueueFollowed, the
// two ways a move writes the read models), and stays while ratings
// change, until the read models are rebuilt. The list reads it from the
// games row: it does not read every running game's seats.
func TestWatchOrderKeptFromTheStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	strong, other := uuid.NewString(), uuid.NewString()
	if _, err := pool.Exec(ctx, `INSERT INTO ratings (ruleset, players, subject, player_id, mu, sigma, games, last_game_at)
		VALUES ('azul-mini', 2, $1::text, $1::uuid, 40, 3, 20, now())`, strong); err != nil {
		t.Fatal(err)
	}
	game := func(at time.Duration, status string, seats ...projections.SeatRow) projections.GameRow {
		for i := range seats {
			seats[i].Seat = i
		}
		return projections.GameRow{ID: uuid.NewString(), Ruleset: "azul-mini", Status: status, Version: 2, ToAct: []int{0},
			Seats: seats, CreatedAt: base, LastMoveAt: base.Add(at), Options: engine.Options{Wall: "grey"}}
	}
	p := func(id string) projections.SeatRow { return projections.SeatRow{PlayerID: id} }
	// Two open games; the newer one unrated throughout.
	viaChange := game(time.Minute, "open", p(strong), projections.SeatRow{})
	viaFollower := game(2*time.Minute, "open", p(strong), projections.SeatRow{})
	plain := game(3*time.Minute, "active", p(other), p(other))
	applyRows(t, pool, viaChange, viaFollower, plain)
	watched := func() []string {
		t.Helper()
		page, _, err := projections.ListGames(ctx, pool, projections.Filter{Watch: true})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, g := range page {
			ids = append(ids, g.ID)
		}
		return ids
	}
	if got := watched(); !slices.Equal(got, []string{plain.ID}) {
		t.Fatalf("before the games start: %v", got)
	}
	// Each starts when its second seat is taken.
	start := func(g projections.GameRow) projections.GameRow {
		g.Status, g.Version, g.LastMoveAt = "active", 3, g.LastMoveAt.Add(time.Second)
		g.Seats = []projections.SeatRow{{Seat: 0, PlayerID: strong}, {Seat: 1, PlayerID: other}}
		return g
	}
	before := viaChange
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return projections.ApplyChange(ctx, tx, &before, start(viaChange)) }); err != nil {
		t.Fatal(err)
	}
	beforeF := viaFollower
	started := start(viaFollower)
	companions, err := projections.Companions(&beforeF, started)
	if err != nil {
		t.Fatal(err)
	}
	// The store runs companions in the append's statement, where
	// "appended" names the rows it inserts: here one row of now().
	b := &pgx.Batch{}
	for _, c := range companions {
		b.Queue(strings.ReplaceAll(c.SQL, "appended", "(SELECT now() AS recorded_at) appended"), c.Args...)
	}
	if err := projections.QueueFollowed(b, &beforeF, started); err != nil {
		t.Fatal(err)
	}
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() }); err != nil {
		t.Fatal(err)
	}
	// Both have strong's 31 and come first, the later move first.
	if got, want := watched(), []string{viaFollower.ID, viaChange.ID, plain.ID}; !slices.Equal(got, want) {
		t.Fatalf("once started: %v, want %v", got, want)
	}
	// other becomes the strongest: the running games keep their places
	// until a rebuild writes them again.
	if _, err := pool.Exec(ctx, `INSERT INTO ratings (ruleset, players, subject, player_id, mu, sigma, games, last_game_at)
		VALUES ('azul-mini', 2, $1::text, $1::uuid, 90, 3, 20, now())`, other); err != nil {
		t.Fatal(err)
	}
	if got, want := watched(), []string{viaFollower.ID, viaChange.ID, plain.ID}; !slices.Equal(got, want) {
		t.Fatalf("after a rating changed: %v, want %v", got, want)
	}
	if err := projections.UpdateWatchOrder(ctx, pool); err != nil {
		t.Fatal(err)
	}
	// All three now have other's rating: the latest move first (the
	// follower's game moved now, the others in May).
	if got, want := watched(), []string{viaFollower.ID, plain.ID, viaChange.ID}; !slices.Equal(got, want) {
		t.Fatalf("after the order was written again: %v, want %v", got, want)
	}
}
