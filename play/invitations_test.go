package play_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// clock is a service's time, moved on by the test.
type clock struct {
	mu sync.Mutex
	at time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}

// clockedService is a service on e's database whose time is c's.
func clockedService(e *env, c *clock) *play.Service {
	return play.New(play.Config{Pool: e.pool, Store: e.store, Rules: rulesets.All(), Now: c.now})
}

// strangerGame is the probe of a stranger: an unverified account creates
// a rated game with a one-minute forfeit time control that names the
// victim's id for a seat.
func strangerGame(t *testing.T, svc *play.Service, stranger, victim play.Player) *play.Game {
	t.Helper()
	rated := true
	g, err := svc.CreateGame(context.Background(), stranger, play.CreateGame{
		Ruleset: "azul-mini", Rated: &rated,
		Seats:       []play.SeatSpec{{Player: "me"}, {Player: victim.ID}},
		TimeControl: &play.TimeControl{PerMove: play.Duration(time.Minute), OnTimeout: "forfeit"},
	}, "")
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return g
}

// ratingRows counts a player's rows in the ratings and their history.
func ratingRows(t *testing.T, e *env, p play.Player) int {
	t.Helper()
	e.caughtUp(t)
	var n int
	if err := e.pool.QueryRow(context.Background(), `
		SELECT (SELECT count(*) FROM ratings WHERE player_id = $1) + (SELECT count(*) FROM rating_history WHERE player_id = $1)`,
		p.ID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// inboxRows counts a player's rows in the turn inbox.
func inboxRows(t *testing.T, e *env, p play.Player) int {
	t.Helper()
	e.caughtUp(t)
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM turn_inbox WHERE player_id = $1`, p.ID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNamedSeatIsAnInvitation: the stranger's probe seats nobody. The
// victim's seat is kept for them, the game stays open with no clock,
// nobody can move or resign in it, time passing past the per-move limit
// changes nothing, no rating row is written, and it is listed as the
// victim's invitation, not as a turn; once the victim accepts, it starts.
func TestNamedSeatIsAnInvitation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, 0)
	c := &clock{at: time.Now()}
	svc := clockedService(e, c)
	stranger, victim := e.register(t, "Stranger"), e.register(t, "Victim")
	if stranger.EmailVerified {
		t.Fatal("the stranger's account is verified")
	}
	g := strangerGame(t, svc, stranger, victim)
	if g.Status != play.StatusOpen || g.Deadline != nil || g.State != nil {
		t.Fatalf("the probe's game is %q with deadline %v: want open, no clock", g.Status, g.Deadline)
	}
	if g.Seats[1].PlayerID != "" || g.Seats[1].Reserved != victim.ID {
		t.Fatalf("seat 1 is %+v: want it kept for the victim, not taken", g.Seats[1])
	}
	if !slices.Equal(g.Awaiting(), []string{victim.ID}) || len(g.SeatsOf(victim.ID)) != 0 {
		t.Fatalf("the game awaits %v and seats the victim at %v", g.Awaiting(), g.SeatsOf(victim.ID))
	}
	if _, err := svc.Move(ctx, play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: stranger.ID}, Notation: "resign", Channel: "api"}); err == nil {
		t.Fatal("the stranger resigned in a game nobody accepted")
	}
	// Past the per-move limit, and past it many times over: no deadline
	// to pass, no invitation old enough to expire.
	c.advance(time.Hour)
	if n, err := svc.ExpireInvitations(ctx); err != nil || n != 0 {
		t.Fatalf("expire an hour on: %d, %v", n, err)
	}
	after, err := svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Version != g.Version || after.Status != play.StatusOpen || after.Deadline != nil {
		t.Fatalf("an hour on the game is %q at version %d (was %d)", after.Status, after.Version, g.Version)
	}
	if n := ratingRows(t, e, victim) + ratingRows(t, e, stranger); n != 0 {
		t.Fatalf("%d rating rows for a game nobody accepted", n)
	}
	if n := inboxRows(t, e, victim); n != 0 {
		t.Fatalf("the invitation is %d turns in the victim's inbox", n)
	}
	invited, _, err := svc.ListGames(ctx, projections.Filter{Invited: victim.ID, Viewer: victim.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(invited) != 1 || invited[0].ID != g.ID {
		t.Fatalf("the victim's invitations: %+v", invited)
	}

	started, err := svc.Join(ctx, g.ID, victim, nil)
	if err != nil {
		t.Fatalf("accept: %v", err)
	}
	if started.Status != play.StatusActive || started.Seats[1].PlayerID != victim.ID || started.Deadline == nil {
		t.Fatalf("after the victim accepted the game is %q, seat 1 %+v, deadline %v", started.Status, started.Seats[1], started.Deadline)
	}
}

// TestDeclinedInvitationFreesTheSeat: the invited player's no frees the
// seat for anyone; the game stays open and unstarted.
func TestDeclinedInvitationFreesTheSeat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, 0)
	stranger, victim, other := e.register(t, "Stranger"), e.register(t, "Victim"), e.register(t, "Other")
	g := strangerGame(t, e.svc, stranger, victim)
	if _, err := e.svc.Decline(ctx, g.ID, other, "api"); !errors.Is(err, play.ErrNotFound) {
		t.Fatalf("a decline by a player not invited: %v, want not found", err)
	}
	after, err := e.svc.Decline(ctx, g.ID, victim, "api")
	if err != nil {
		t.Fatalf("decline: %v", err)
	}
	if after.Status != play.StatusOpen || after.Seats[1].Reserved != "" || after.Seats[1].PlayerID != "" || !slices.Equal(after.Declined, []string{victim.ID}) {
		t.Fatalf("after the decline: %q, seat 1 %+v, declined %v", after.Status, after.Seats[1], after.Declined)
	}
	if _, err := e.svc.Decline(ctx, g.ID, victim, "api"); !errors.Is(err, play.ErrNotFound) {
		t.Fatalf("a second decline: %v, want not found", err)
	}
}

// TestInvitationExpires: an invitation left unanswered past its time
// frees the seat by one game.reservation_expired, whichever service
// sweeps and however often; before its time it is left alone.
func TestInvitationExpires(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, 0)
	c := &clock{at: time.Now()}
	svc := clockedService(e, c)
	stranger, victim := e.register(t, "Stranger"), e.register(t, "Victim")
	g := strangerGame(t, svc, stranger, victim)
	c.advance(play.DefaultInvitationTTL - time.Hour)
	if n, err := svc.ExpireInvitations(ctx); err != nil || n != 0 {
		t.Fatalf("expire before the time: %d, %v", n, err)
	}
	c.advance(2 * time.Hour)
	// Two services sweep at once (two replicas), and again later (after
	// a restart): the seat is freed once.
	other := clockedService(e, c)
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for i, s := range []*play.Service{svc, other} {
		wg.Go(func() {
			n, err := s.ExpireInvitations(ctx)
			if err != nil {
				t.Errorf("expire: %v", err)
			}
			counts[i] = n
		})
	}
	wg.Wait()
	if counts[0]+counts[1] != 1 {
		t.Fatalf("the sweeps freed %v seats, want 1 in all", counts)
	}
	if n, err := clockedService(e, c).ExpireInvitations(ctx); err != nil || n != 0 {
		t.Fatalf("expire again: %d, %v", n, err)
	}
	after, err := svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Status != play.StatusOpen || after.Seats[1].Reserved != "" || after.Seats[1].PlayerID != "" || !slices.Equal(after.Declined, []string{victim.ID}) {
		t.Fatalf("after the expiry: %q, seat 1 %+v, declined %v", after.Status, after.Seats[1], after.Declined)
	}
	recs, err := e.store.Load(ctx, g.ID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	expired := 0
	for _, r := range recs {
		if r.Type == play.EvReservationExpired {
			expired++
			if r.Meta.Actor.Kind != "system" {
				t.Errorf("the expiry was appended by %+v", r.Meta.Actor)
			}
		}
	}
	if expired != 1 {
		t.Fatalf("%d game.reservation_expired events, want 1", expired)
	}
	// The log folds from scratch (no snapshot) to the same seats.
	if cold, err := newService(e.pool, e.store, -1).Game(ctx, g.ID); err != nil || cold.Seats[1].Reserved != "" {
		t.Fatalf("refolded: %v, %+v", err, cold)
	}
	// The victim may still take the seat, now free for anyone.
	if _, err := svc.Join(ctx, g.ID, victim, nil); err != nil {
		t.Fatalf("join the freed seat: %v", err)
	}
}

// TestOwnSeatAndBotsStartAtOnce: a game of the creator's own seats and
// bots needs nobody's consent.
func TestOwnSeatAndBotsStartAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, 0)
	ana := e.register(t, "Ana")
	for _, seats := range [][]play.SeatSpec{
		{{Player: "me"}, {Bot: "greedy"}},
		{{Bot: "random"}, {Player: ana.ID}},
	} {
		g, err := e.svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seats: seats}, "")
		if err != nil {
			t.Fatal(err)
		}
		if g.Status != play.StatusActive || len(g.Awaiting()) != 0 || len(g.SeatsOf(ana.ID)) != 1 {
			t.Fatalf("seats %+v: the game is %q, awaiting %v", seats, g.Status, g.Awaiting())
		}
	}
}
