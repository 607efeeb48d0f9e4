package projections_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/projections"
)

// playSyntheticGames appends random synthetic games, interleaved, with
// the read models updated live by each append's hook. Players may hold
// several seats of a game; seats stay to act across appends (several at
// once, notes that change nothing, repeated turns), so that the inbox's
// since is not just the last move.
// It stops after moves appends, leaving the games not finished by then
// going.
func playSyntheticGames(t *testing.T, store *events.Store, rng *rand.Rand, games, moves int) []*liveGame {
	players := make([]string, 5)
	for i := range players {
		players[i] = uuid.NewString()
	}
	var live []*liveGame
	var active []*liveGame
	steps := map[*liveGame]int{}
	free := map[*liveGame][]int{}
	seatsOf := map[*liveGame]int{}
	for gi := range games {
		g := &liveGame{id: uuid.NewString()}
		n := 2 + rng.IntN(3)
		c := created{Ruleset: []string{"azul-mini", "summer-pavilion", "summer-pavilion-mini"}[rng.IntN(3)], CreatedBy: players[rng.IntN(len(players))]}
		// Some games unrated, some private (by their place, so that the
		// random choices stay those of before the settings).
		c.Unrated, c.Private = gi%4 == 3, gi%3 == 1
		for seat := range n {
			switch k := rng.IntN(6); {
			case k == 0:
				c.Seats = append(c.Seats, seatSpec{Bot: "random", Name: "random bot"})
			case k == 1:
				c.Seats = append(c.Seats, seatSpec{}) // free
				free[g] = append(free[g], seat)
			default:
				p := rng.IntN(len(players))
				c.Seats = append(c.Seats, seatSpec{PlayerID: players[p], Name: fmt.Sprintf("P%d", p)})
			}
		}
		g.append(t, store, newEvent(t, "game.created", c))
		if gi%7 == 5 {
			// A seat left (and taken over): the game is never rated,
			// live or rebuilt.
			g.append(t, store, newEvent(t, "game.seat_left", map[string]any{"seat": 0, "by": "bot", "bot": "greedy"}))
		}
		seatsOf[g] = n
		live = append(live, g)
		active = append(active, g)
	}
	for ; len(active) > 0 && moves > 0; moves-- {
		i := rng.IntN(len(active))
		g := active[i]
		steps[g]++
		switch {
		case len(free[g]) > 0:
			seat := free[g][0]
			free[g] = free[g][1:]
			p := rng.IntN(len(players))
			g.append(t, store, newEvent(t, "seat.joined", joined{Seat: seat, PlayerID: players[p], Name: fmt.Sprintf("P%d", p)}))
		case steps[g] > 6 && rng.IntN(8) == 0:
			scores := make([]int, seatsOf[g])
			for s := range scores {
				scores[s] = rng.IntN(4) * 10
			}
			g.append(t, store, newEvent(t, "finished", finished{Scores: scores}))
			active = append(active[:i], active[i+1:]...)
		case rng.IntN(4) == 0:
			g.append(t, store, newEvent(t, "note", struct{}{}))
		default:
			var tu turn
			for s := range seatsOf[g] {
				if rng.IntN(seatsOf[g]) == 0 {
					tu.ToAct = append(tu.ToAct, s)
				}
			}
			if len(tu.ToAct) == 0 {
				tu.ToAct = []int{rng.IntN(seatsOf[g])}
			}
			if rng.IntN(2) == 0 {
				d := time.Date(2030, 1, 1+rng.IntN(28), rng.IntN(24), 0, 0, 0, time.UTC)
				tu.Deadline = &d
			}
			evs := []events.NewEvent{newEvent(t, "turn", tu)}
			if rng.IntN(3) == 0 {
				evs = append(evs, newEvent(t, "note", struct{}{}))
			}
			g.append(t, store, evs...)
		}
	}
	return live
}

func TestRebuildEqualsLive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	store := events.NewStore(pool)
	rng := rand.New(rand.NewPCG(3, 4))
	playSyntheticGames(t, store, rng, 16, 160)
	live := dump(t, pool)

	// The scenario is not trivial: finished games, inbox rows whose turn
	// began before the game's last move, players with several seats.
	var laterMoves, multiSeat int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM turn_inbox i JOIN games g ON g.id = i.game_id WHERE i.since < g.last_move_at`).Scan(&laterMoves); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM game_seats WHERE player_id IS NOT NULL GROUP BY game_id, player_id HAVING count(*) > 1) x`).Scan(&multiSeat); err != nil {
		t.Fatal(err)
	}
	if len(live["results"]) == 0 || len(live["turn_inbox"]) == 0 || laterMoves == 0 || multiSeat == 0 {
		t.Fatalf("weak scenario: %d results, %d inbox rows, %d turns older than their game's last move, %d players with several seats",
			len(live["results"]), len(live["turn_inbox"]), laterMoves, multiSeat)
	}

	if err := projections.Rebuild(ctx, pool, fold); err != nil {
		t.Fatal(err)
	}
	sameDump(t, dump(t, pool), live)

	// After losing or damaging the read models, a rebuild restores them.
	if _, err := pool.Exec(ctx, `DELETE FROM turn_inbox WHERE seat = 0; UPDATE games SET status = 'open', version = 0;
		DELETE FROM results WHERE rank = 1; INSERT INTO game_seats VALUES (gen_random_uuid(), 0, NULL, 'x')`); err != nil {
		t.Fatal(err)
	}
	if err := projections.Rebuild(ctx, pool, fold); err != nil {
		t.Fatal(err)
	}
	sameDump(t, dump(t, pool), live)
}

func TestRebuildFailsWholly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	store := events.NewStore(pool)
	playSyntheticGames(t, store, rand.New(rand.NewPCG(5, 6)), 4, 30)
	live := dump(t, pool)
	errRules := errors.New("unknown rule set")
	calls := 0
	failing := func(ctx context.Context, id string, recs []events.Record) (projections.GameRow, error) {
		calls++
		if calls == 3 {
			return projections.GameRow{}, errRules
		}
		return fold(ctx, id, recs)
	}
	if err := projections.Rebuild(ctx, pool, failing); !errors.Is(err, errRules) {
		t.Fatalf("rebuild with a failing fold: %v", err)
	}
	// A fold that returns a malformed row fails it too.
	bad := func(ctx context.Context, id string, recs []events.Record) (projections.GameRow, error) {
		row, err := fold(ctx, id, recs)
		row.Status = "paused"
		return row, err
	}
	if err := projections.Rebuild(ctx, pool, bad); !errors.Is(err, projections.ErrInvalid) || !strings.Contains(err.Error(), "paused") {
		t.Fatalf("rebuild with a malformed row: %v", err)
	}
	// Nothing changed: the rebuild is one transaction.
	sameDump(t, dump(t, pool), live)
}

// TestRebuildWhileServing: a rebuild runs beside the live writers and
// readers. Held in the middle (its second page locked), the games list
// still answers, games of pages done and to come take moves, and new
// games come; once it ends, the read models hold all of that, exactly as
// a rebuild of the quiet database then makes them.
func TestRebuildWhileServing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	store := events.NewStore(pool)
	rng := rand.New(rand.NewPCG(7, 8))
	games := playSyntheticGames(t, store, rng, 150, 500)
	ids := make([]string, len(games))
	byID := map[string]*liveGame{}
	for i, g := range games {
		ids[i], byID[g.id] = g.id, g
	}
	// The rebuild's order: the streams' ids (uuid order is the text's).
	slices.Sort(ids)
	held := ids[64] // the first game of the second page
	paused, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	holding := func(ctx context.Context, id string, recs []events.Record) (projections.GameRow, error) {
		if id == held {
			once.Do(func() {
				close(paused)
				<-resume
			})
		}
		return fold(ctx, id, recs)
	}
	done := make(chan error, 1)
	go func() { done <- projections.Rebuild(ctx, pool, holding) }()
	<-paused
	// A failure below lets the rebuild go on, so that the test ends.
	release := sync.OnceFunc(func() { close(resume) })
	defer release()

	listCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	list, _, err := projections.ListGames(listCtx, pool, projections.Filter{Limit: projections.MaxLimit})
	if err != nil || len(list) == 0 {
		t.Fatalf("the games list during a rebuild: %d games, %v", len(list), err)
	}
	// Moves on a game the rebuild has done and on one it has yet to do
	// (the page it holds is locked: a move there would wait for it).
	for _, id := range []string{ids[3], ids[140]} {
		g := byID[id]
		g.append(t, store, newEvent(t, "note", struct{}{}))
		if g.recs[len(g.recs)-2].Type != "finished" {
			g.append(t, store, newEvent(t, "turn", turn{ToAct: []int{0}}))
		}
	}
	playSyntheticGames(t, store, rng, 5, 30)
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	after := dump(t, pool)
	var version int64
	if err := pool.QueryRow(ctx, `SELECT version FROM games WHERE id = $1`, ids[3]).Scan(&version); err != nil || version != int64(len(byID[ids[3]].recs)) {
		t.Fatalf("game %s: version %d (%v) in the read model, %d in the log", ids[3], version, err, len(byID[ids[3]].recs))
	}
	if err := projections.Rebuild(ctx, pool, fold); err != nil {
		t.Fatal(err)
	}
	sameDump(t, dump(t, pool), after)
}
