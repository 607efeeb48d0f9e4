package play_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/play"
)

// TestBotJobsLeaveEveryBotToTheFollower: with BotJobs, no command moves a
// bot (not even a random or greedy one): the follower of the log sees the
// bot seat to act in the append that brought its turn (where the outbox
// enqueues its job), and the game waits. RunBots leaves such a game to its
// job for a while, then moves the bot itself.
func TestBotJobsLeaveEveryBotToTheFollower(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	var mu sync.Mutex
	due := map[int64]int{} // the bot seat to act, by version
	seen := func(_ context.Context, _ pgx.Tx, appends []play.Followed) error {
		mu.Lock()
		defer mu.Unlock()
		for _, a := range appends {
			if seat, ok := a.After.BotToAct(); ok {
				due[a.After.Version] = seat
			}
		}
		return nil
	}
	var skew atomic.Int64
	svc := play.New(play.Config{
		Pool: e.pool, Store: e.store, Rules: rulesets.All(), BotJobs: true,
		Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) },
	})
	ctx := context.Background()
	followCtx, stopFollow := context.WithCancel(ctx)
	followed := make(chan error, 1)
	go func() {
		followed <- svc.Follow(followCtx, play.FollowOptions{Consumer: "test.bots", PollInterval: 10 * time.Millisecond, Also: seen})
	}()
	t.Cleanup(func() {
		stopFollow()
		if err := <-followed; err != nil {
			t.Error(err)
		}
	})
	ana := e.register(t, "ana")
	g, err := svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "random"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.ToAct(), []int{0}) {
		t.Fatalf("created: to act %v, bots due %v", g.ToAct(), due)
	}
	move := g.State.LegalMoves(0)[0]
	res, err := svc.Move(ctx, play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: ana.ID}, Move: move.JSON, Channel: "api"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Game.ToAct(), []int{1}) || res.Game.Version != res.Version {
		t.Fatalf("after Ana's move: version %d of %d, to act %v: the command moved the bot", res.Version, res.Game.Version, res.Game.ToAct())
	}
	var seat int
	eventually.True(t, 20*time.Second, func() bool {
		mu.Lock()
		s, ok := due[res.Version]
		others := len(due) > 1 || (len(due) == 1 && !ok)
		seen := fmt.Sprint(due)
		mu.Unlock()
		if others {
			t.Fatalf("the follower saw bots due %s, want seat 1 at version %d only", seen, res.Version)
		}
		seat = s
		return ok
	}, "the follower never saw the bot due at version %d", res.Version)
	if seat != 1 {
		t.Fatalf("the follower saw bot seat %d due, want 1", seat)
	}

	// RunBots within the grace: the game is left to its job.
	runBots := func() (stop func()) {
		ctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- svc.RunBots(ctx) }()
		return func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
		}
	}
	// Nothing to wait for: give RunBots a second in which it must not
	// move the bot.
	stop := runBots()
	time.Sleep(time.Second)
	stop()
	now, err := svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if now.Version != res.Version {
		t.Fatalf("RunBots moved within the grace: version %d, Ana's move %d", now.Version, res.Version)
	}

	// Past the grace (three minutes on the service's clock) it moves the bot.
	skew.Store(int64(3 * time.Minute))
	stop = runBots()
	defer stop()
	eventually.True(t, 20*time.Second, func() bool {
		now, err = svc.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		return now.Version > res.Version
	}, "RunBots did not move the bot past the grace")
	recs, err := svc.Events(ctx, g.ID, res.Version, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m := recs[0].Meta; m.Actor.Kind != "bot" || m.Actor.Bot != "random" || m.Channel != "bot" {
		t.Fatalf("the move after Ana's: %+v", m)
	}
}
