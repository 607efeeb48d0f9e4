package play_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// finishedGame creates a game of the given seats and ends it: the first
// player to act resigns.
func finishedGame(t *testing.T, e *env, creator play.Player, req play.CreateGame) *play.Game {
	t.Helper()
	ctx := context.Background()
	g, err := e.createAccepted(ctx, creator, req, "")
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if g.Status != play.StatusActive {
		t.Fatalf("status %q, want active", g.Status)
	}
	toAct := g.ToAct()
	if len(toAct) == 0 {
		t.Fatal("nobody to act")
	}
	seat := toAct[0]
	res, err := e.svc.Move(ctx, play.MoveRequest{
		GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: g.Seats[seat].PlayerID}, Seat: &seat,
		Notation: "resign", Channel: "api",
	})
	if err != nil {
		t.Fatalf("resign: %v", err)
	}
	if res.Game.Status != play.StatusFinished {
		t.Fatalf("after a resignation the game is %q", res.Game.Status)
	}
	old, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	return old
}

func TestRematchRotatesSeatsAndReservesThem(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 64)
	ctx := context.Background()
	ana, ben, cat := e.register(t, "Ana"), e.register(t, "Ben"), e.register(t, "Cat")
	tc := &play.TimeControl{PerMove: play.Duration(72 * time.Hour), OnTimeout: "bot", Bot: "random"}
	cases := []struct {
		name  string
		seats []play.SeatSpec
	}{
		{"2 seats", []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}},
		{"3 seats", []play.SeatSpec{{Player: "me"}, {Bot: "search", Budget: "300ms"}, {Player: ben.ID}}},
		{"4 seats", []play.SeatSpec{{Player: ben.ID}, {Player: "me"}, {Bot: "greedy"}, {Player: cat.ID}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old := finishedGame(t, e, ana, play.CreateGame{Ruleset: "azul-mini", Seats: c.seats, TimeControl: tc,
				Seed: "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"})
			// Ben asks: his seats are taken, the others reserved.
			g, created, err := e.svc.Rematch(ctx, old.ID, ben, "api")
			if err != nil || !created {
				t.Fatalf("rematch: created %v, %v", created, err)
			}
			n := len(old.Seats)
			if len(g.Seats) != n || g.Config.Ruleset != old.Config.Ruleset || g.Status != play.StatusOpen {
				t.Fatalf("rematch %+v of %+v", g.Seats, old.Seats)
			}
			for i, s := range old.Seats {
				ns := g.Seats[(i+1)%n]
				switch {
				case s.Bot != "":
					if ns.Bot != s.Bot || ns.Budget != s.Budget || ns.PlayerID != "" {
						t.Errorf("old seat %d (%s %s) became %+v", i, s.Bot, s.Budget, ns)
					}
				case s.PlayerID == ben.ID:
					if ns.PlayerID != ben.ID || ns.Reserved != "" {
						t.Errorf("the caller's old seat %d became %+v", i, ns)
					}
				default:
					if ns.PlayerID != "" || ns.Reserved != s.PlayerID || ns.Name != s.Name {
						t.Errorf("old seat %d (%s) became %+v, want reserved", i, s.Name, ns)
					}
				}
			}
			if g.TimeControl == nil || *g.TimeControl != *tc {
				t.Errorf("time control %+v, want %+v", g.TimeControl, tc)
			}
			if g.Seed != "" || g.SeedCommitment == old.SeedCommitment {
				t.Errorf("the seed was carried over: %q / %q", g.Seed, g.SeedCommitment)
			}
			// A seeded game is unrated and private: the rematch too.
			if g.Settings != old.Settings || g.Settings.Rated {
				t.Errorf("settings %+v, want the old game's %+v", g.Settings, old.Settings)
			}
			if g.RematchOf != old.ID {
				t.Errorf("rematch_of %q, want %q", g.RematchOf, old.ID)
			}
			again, err := e.svc.Game(ctx, old.ID)
			if err != nil || again.Rematch != g.ID || again.Status != play.StatusFinished {
				t.Fatalf("old game after the rematch: %+v, %v", again, err)
			}
			// The others accept by joining; the game starts with the last.
			for _, p := range []play.Player{ana, cat} {
				if len(g.ReservedFor(p.ID)) == 0 {
					continue
				}
				if g, err = e.svc.Join(ctx, g.ID, p, nil); err != nil {
					t.Fatalf("%s joins: %v", p.Name, err)
				}
			}
			if g.Status != play.StatusActive {
				t.Fatalf("after every acceptance the rematch is %q", g.Status)
			}
			// The projections hold what a rebuild would.
			row, found, err := projections.Game(ctx, e.pool, g.ID)
			if err != nil || !found || row.Status != play.StatusActive {
				t.Fatalf("read model %+v %v %v", row, found, err)
			}
		})
	}
}

func TestRematchReservedSeatRefusedToOthers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 64)
	ctx := context.Background()
	ana, ben, eve := e.register(t, "Ana"), e.register(t, "Ben"), e.register(t, "Eve")
	old := finishedGame(t, e, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}})
	g, _, err := e.svc.Rematch(ctx, old.ID, ana, "api")
	if err != nil {
		t.Fatal(err)
	}
	seat := g.ReservedFor(ben.ID)[0]
	for _, try := range []*int{nil, &seat} {
		_, err := e.svc.Join(ctx, g.ID, eve, try)
		if !errors.Is(err, play.ErrForbidden) || !errors.Is(err, play.ErrReserved) {
			t.Fatalf("a stranger's join: %v, want forbidden: reserved", err)
		}
	}
	if _, err := e.svc.Join(ctx, g.ID, ana, nil); !errors.Is(err, play.ErrForbidden) {
		t.Fatalf("the caller joins again: %v", err)
	}
	after, _ := e.svc.Game(ctx, g.ID)
	if after.Version != g.Version {
		t.Fatalf("refused joins changed the game: version %d -> %d", g.Version, after.Version)
	}
	// Invitations are listed for Ben only.
	rows, _, err := e.svc.ListGames(ctx, projections.Filter{Invited: ben.ID})
	if err != nil || len(rows) != 1 || rows[0].ID != g.ID || rows[0].Seats[seat].Reserved != ben.ID {
		t.Fatalf("Ben's invitations: %+v, %v", rows, err)
	}
	if rows, _, _ := e.svc.ListGames(ctx, projections.Filter{Invited: eve.ID}); len(rows) != 0 {
		t.Fatalf("Eve's invitations: %+v", rows)
	}
	if g, err = e.svc.Join(ctx, g.ID, ben, &seat); err != nil || g.Status != play.StatusActive {
		t.Fatalf("Ben accepts: %v", err)
	}
	if rows, _, _ := e.svc.ListGames(ctx, projections.Filter{Invited: ben.ID}); len(rows) != 0 {
		t.Fatalf("an accepted invitation is still listed: %+v", rows)
	}
}

func TestRematchIdempotentAndConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 64)
	ctx := context.Background()
	ana, ben, cat := e.register(t, "Ana"), e.register(t, "Ben"), e.register(t, "Cat")
	old := finishedGame(t, e, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}, {Player: cat.ID}}})
	const n = 6
	games := make([]string, n)
	created := make([]bool, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			// A separate service per caller: as on separate replicas.
			svc := newService(e.pool, e.store, 64)
			p := []play.Player{ana, ben, cat}[i%3]
			g, c, err := svc.Rematch(ctx, old.ID, p, "api")
			if err == nil {
				games[i], created[i] = g.ID, c
			}
			errs[i] = err
		}()
	}
	close(start)
	wg.Wait()
	made := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		if games[i] != games[0] {
			t.Fatalf("two rematches: %s and %s", games[0], games[i])
		}
		if created[i] {
			made++
		}
	}
	if made != 1 {
		t.Fatalf("%d requests say they created the rematch, want 1", made)
	}
	g, err := e.svc.Game(ctx, games[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Awaiting()) != 2 {
		t.Fatalf("the rematch awaits %v, want the two players who did not create it", g.Awaiting())
	}
	recs, err := e.svc.Events(ctx, old.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	links := 0
	for _, r := range recs {
		if r.Type == play.EvRematch {
			links++
		}
	}
	if links != 1 {
		t.Fatalf("%d game.rematch events, want 1", links)
	}
	// Later: the same game, not created.
	again, c, err := e.svc.Rematch(ctx, old.ID, cat, "api")
	if err != nil || c || again.ID != g.ID {
		t.Fatalf("a later request: %v %v %v", again, c, err)
	}
}

func TestRematchStrangerAndUnfinished(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 64)
	ctx := context.Background()
	g, ana, _ := twoPlayerGame(t, e)
	eve := e.register(t, "Eve")
	if _, _, err := e.svc.Rematch(ctx, g.ID, ana, "api"); !errors.Is(err, play.ErrNotFinished) {
		t.Fatalf("rematch of a running game: %v", err)
	}
	if _, _, err := e.svc.Rematch(ctx, g.ID, eve, "api"); !errors.Is(err, play.ErrNotFound) {
		t.Fatalf("a stranger's rematch: %v", err)
	}
	if _, _, err := e.svc.Rematch(ctx, "00000000-0000-0000-0000-000000000000", ana, "api"); !errors.Is(err, play.ErrNotFound) {
		t.Fatalf("rematch of no game: %v", err)
	}
	after, _ := e.svc.Game(ctx, g.ID)
	if after.Version != g.Version || after.Rematch != "" {
		t.Fatal("a refused rematch changed the game")
	}
}

func TestDeclineFreesTheReservedSeat(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 64)
	ctx := context.Background()
	ana, ben, eve := e.register(t, "Ana"), e.register(t, "Ben"), e.register(t, "Eve")
	old := finishedGame(t, e, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}})
	g, _, err := e.svc.Rematch(ctx, old.ID, ana, "api")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Decline(ctx, g.ID, eve, "api"); !errors.Is(err, play.ErrNotFound) {
		t.Fatalf("a stranger declines: %v", err)
	}
	if _, err := e.svc.Decline(ctx, g.ID, ana, "api"); !errors.Is(err, play.ErrForbidden) {
		t.Fatalf("the caller declines: %v", err)
	}
	g, err = e.svc.Decline(ctx, g.ID, ben, "api")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Awaiting()) != 0 || len(g.Declined) != 1 || g.Declined[0] != ben.ID || g.Status != play.StatusOpen {
		t.Fatalf("after Ben declined: %+v", g)
	}
	if _, err := e.svc.Decline(ctx, g.ID, ben, "api"); err == nil {
		t.Fatal("a second decline went through")
	}
	// The seat is an ordinary free seat now.
	if g, err = e.svc.Join(ctx, g.ID, eve, nil); err != nil || g.Status != play.StatusActive {
		t.Fatalf("Eve joins the freed seat: %v", err)
	}
	// The log folds and verifies.
	for _, id := range []string{g.ID, old.ID} {
		v, err := e.svc.Verify(ctx, id)
		if err != nil || v.Result == play.VerifyFail {
			t.Fatalf("verify %s: %+v %v", id, v, err)
		}
	}
	var text []string
	for _, id := range []string{g.ID, old.ID} {
		lines, err := e.svc.AuditLog(ctx, id, play.LogQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			text = append(text, l.Description)
		}
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"rematch of game " + old.ID, "Ben declined", "reserved for Ben", "rematch: game " + g.ID} {
		if !strings.Contains(all, want) {
			t.Errorf("the audit logs do not say %q:\n%s", want, all)
		}
	}
}

func TestDeleteAccountDeclinesKeptSeats(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 64)
	ctx := context.Background()
	ana, ben := e.register(t, "Ana"), e.register(t, "Ben")
	old := finishedGame(t, e, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}})
	g, _, err := e.svc.Rematch(ctx, old.ID, ana, "api")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.DeleteAccount(ctx, ben.ID); err != nil {
		t.Fatal(err)
	}
	after, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Awaiting()) != 0 || len(after.Declined) != 1 {
		t.Fatalf("after Ben's account went, the rematch: %+v", after.Seats)
	}
	if rows, _, _ := e.svc.ListGames(ctx, projections.Filter{Invited: ben.ID}); len(rows) != 0 {
		t.Fatalf("Ben still has invitations: %+v", rows)
	}
}
