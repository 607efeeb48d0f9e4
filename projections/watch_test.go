package projections_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

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
