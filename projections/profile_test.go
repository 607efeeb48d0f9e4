package projections_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/projections"
)

// countingDB counts the statements a read sends.
type countingDB struct {
	db projections.DB
	n  int
}

func (c *countingDB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	c.n++
	return c.db.Query(ctx, sql, args...)
}

func (c *countingDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	c.n++
	return c.db.QueryRow(ctx, sql, args...)
}

// A profile costs the same number of statements with 3 games as with 60,
// its lists stay bounded, and a game a player sat in twice counts once.
func TestProfileQueriesBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	ana, ben := uuid.NewString(), uuid.NewString()
	for _, p := range [][2]string{{ana, "Ana"}, {ben, "Ben"}} {
		if _, err := pool.Exec(ctx, `INSERT INTO players (id, name, email) VALUES ($1, $2, '')`, p[0], p[1]); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	finished := func(anaRank int, selfPlay bool) {
		n++
		at := base.Add(time.Duration(n) * time.Minute)
		seats := []projections.SeatRow{{Seat: 0, PlayerID: ana}, {Seat: 1, PlayerID: ben}}
		final := &engine.Final{Reason: "resigned", Players: []engine.FinalPlayer{{Seat: 0, Score: 10, Rank: anaRank}, {Seat: 1, Score: 5, Rank: 3 - anaRank}}}
		if selfPlay {
			seats = append(seats, projections.SeatRow{Seat: 2, PlayerID: ana})
			final.Players = append(final.Players, engine.FinalPlayer{Seat: 2, Score: 1, Rank: 3})
		}
		applyRows(t, pool, projections.GameRow{ID: uuid.NewString(), Ruleset: "azul-mini", Status: "finished", Version: 9, ToAct: []int{},
			CreatedAt: at, LastMoveAt: at, Seats: seats, Final: final})
	}
	running := func() {
		n++
		at := base.Add(time.Duration(n) * time.Minute)
		applyRows(t, pool, projections.GameRow{ID: uuid.NewString(), Ruleset: "azul-mini", Status: "active", Version: 3, ToAct: []int{1},
			CreatedAt: at, LastMoveAt: at, Seats: []projections.SeatRow{{Seat: 0, PlayerID: ana}, {Seat: 1, Bot: "greedy"}}})
	}
	load := func() (projections.Profile, int) {
		t.Helper()
		db := &countingDB{db: pool}
		p, err := projections.LoadProfile(ctx, db, projections.ProfileRequest{PlayerID: ana, Viewer: ben, History: true, Rulesets: []string{"azul-mini"}})
		if err != nil {
			t.Fatal(err)
		}
		return p, db.n
	}

	finished(1, false)
	finished(2, true)
	running()
	small, few := load()
	if len(small.Recent) != 2 || len(small.Running) != 1 || small.HeadToHead == nil || small.HeadToHead.Games != 2 ||
		small.HeadToHead.Ahead != 1 || small.HeadToHead.Behind != 1 {
		t.Fatalf("profile after 3 games: %+v", small)
	}
	// Two seats of the three-seat game: one game, at the better place.
	if len(small.Results) != 2 {
		t.Fatalf("results %+v", small.Results)
	}
	for _, r := range small.Results {
		if r.Games != 1 || (r.Players == 3 && (r.Placings[1] != 1 || r.BestScore != 10)) {
			t.Errorf("results %+v", r)
		}
	}

	for i := range 30 {
		finished(1+i%2, false)
		running()
	}
	big, many := load()
	if many != few {
		t.Errorf("%d statements with 3 games, %d with 63", few, many)
	}
	if len(big.Recent) != projections.RecentGames || len(big.Running) != projections.RunningGames {
		t.Errorf("lists of %d and %d games", len(big.Recent), len(big.Running))
	}
	for i := 1; i < len(big.Recent); i++ {
		if big.Recent[i].LastMoveAt.After(big.Recent[i-1].LastMoveAt) {
			t.Fatal("recent games not latest first")
		}
	}
	if big.HeadToHead.Games != 32 || big.HeadToHead.Ahead+big.HeadToHead.Behind != 32 {
		t.Errorf("head-to-head %+v", big.HeadToHead)
	}

	// Hidden: nothing of the lists for Ben, everything for Ana.
	if _, err := pool.Exec(ctx, `UPDATE players SET hide_games = true WHERE id = $1`, ana); err != nil {
		t.Fatal(err)
	}
	if hidden, _ := load(); !hidden.GamesHidden || hidden.Recent != nil || hidden.Running != nil || hidden.HeadToHead != nil || len(hidden.Results) != 2 {
		t.Errorf("hidden for Ben: %+v", hidden)
	}
	own, err := projections.LoadProfile(ctx, pool, projections.ProfileRequest{PlayerID: ana, Viewer: ana})
	if err != nil || own.GamesHidden || len(own.Recent) != projections.RecentGames || own.HeadToHead != nil {
		t.Errorf("own profile: %+v, %v", own, err)
	}
	if _, err := projections.LoadProfile(ctx, pool, projections.ProfileRequest{PlayerID: uuid.NewString()}); !errors.Is(err, projections.ErrNoProfile) {
		t.Errorf("a profile of nobody: %v", err)
	}
	if _, err := projections.LoadProfile(ctx, pool, projections.ProfileRequest{Bot: "chess"}); !errors.Is(err, projections.ErrNoProfile) {
		t.Errorf("a profile of an unknown bot: %v", err)
	}
}
