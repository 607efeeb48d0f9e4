package notify_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/play"
)

// TestSearchBotMovesFromAJob: a search bot seat never moves inside the
// command that brings its turn; a job worker moves it, with the seat's
// budget, and the greedy bot of the other seat follows by the next job.
func TestSearchBotMovesFromAJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana := e.Register("Ana")
	ctx := context.Background()
	g, err := e.Svc.CreateGame(ctx, ana, play.CreateGame{
		Ruleset: "azul-mini", Seed: strings.Repeat("3c", 32),
		Seats: []play.SeatSpec{{Bot: "search", Budget: "20ms"}, {Bot: "greedy"}, {Player: "me"}},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	// Seat 0 (search) acts first: the create returned without its move.
	if g.ToAct()[0] != 0 {
		t.Fatalf("created at version %d, to act %v", g.Version, g.ToAct())
	}
	if g.Seats[0].Budget != "20ms" || g.Seats[1].Budget != "" {
		t.Fatalf("seats %+v", g.Seats)
	}
	// The job moves seat 0, then the job its move enqueued moves the
	// greedy seat 1: ana is to act.
	eventually.True(t, 20*time.Second, func() bool {
		g, err = e.Svc.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		return g.ToAct()[0] == 2
	}, "the bots have not moved: version %d, to act %v",
		eventually.Last(func() any { return g.Version }), eventually.Last(func() any { return g.ToAct() }))
	recs, err := e.Svc.Events(ctx, g.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var actors []events.Meta
	for _, r := range recs {
		if r.Meta.Channel == "bot" {
			actors = append(actors, r.Meta)
		}
	}
	if len(actors) < 2 || actors[0].Actor.Bot != "search" || actors[len(actors)-1].Actor.Bot != "greedy" {
		t.Fatalf("bot moves %+v", actors)
	}
}

// TestCreateRefusesBadBotBudgets: a budget out of bounds, a budget for a
// bot that takes none, an unknown time-control bot.
func TestCreateRefusesBadBotBudgets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana := e.Register("Ana")
	for _, req := range []play.CreateGame{
		{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "search", Budget: "5s"}}},
		{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "search", Budget: "soon"}}},
		{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "greedy", Budget: "100ms"}}},
		{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ""}},
			TimeControl: &play.TimeControl{PerMove: play.Duration(time.Hour), OnTimeout: "bot", Bot: "oracle"}},
	} {
		if _, err := e.Svc.CreateGame(context.Background(), ana, req, ""); !errors.Is(err, play.ErrInvalid) {
			t.Fatalf("%+v: %v", req, err)
		}
	}
}
