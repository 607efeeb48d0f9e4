package play_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// botGames are the configurations bots play to the end.
var botGames = []struct {
	ruleset string
	options engine.Options
	players int
}{
	{"azul-mini", engine.Options{}, 2},
	{"azul-mini", engine.Options{Wall: "grey"}, 3},
	{"summer-pavilion", engine.Options{}, 2},
	{"summer-pavilion", engine.Options{Board: "monochrome"}, 4},
	{"summer-pavilion-mini", engine.Options{}, 3},
}

func TestBotGamesPlayToTheEndAndRevealTheSeed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 16)
	ctx := context.Background()
	owner := e.register(t, "Ana")
	for _, c := range botGames {
		t.Run(fmt.Sprintf("%s-%v-%dp", c.ruleset, c.options, c.players), func(t *testing.T) {
			seats := make([]play.SeatSpec, c.players)
			for i := range seats {
				seats[i].Bot = "random"
			}
			g, err := e.svc.CreateGame(ctx, owner, play.CreateGame{Ruleset: c.ruleset, Options: c.options, Seats: seats}, "")
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if g.Status != play.StatusFinished {
				t.Fatalf("status %q after the bots played, want finished", g.Status)
			}
			final := g.State.Final()
			if final == nil || len(final.Players) != c.players || len(final.Winners) == 0 {
				t.Fatalf("final breakdown missing or incomplete: %+v", final)
			}
			// The seed is revealed and matches the commitment published
			// at creation.
			sum := sha256.Sum256(mustSeed(t, g.Seed))
			if hex.EncodeToString(sum[:]) != g.SeedCommitment {
				t.Fatalf("revealed seed %q does not match commitment %s", g.Seed, g.SeedCommitment)
			}
			// Loading (with snapshots) equals a fresh fold without them.
			loaded, err := e.svc.Game(ctx, g.ID)
			if err != nil {
				t.Fatal(err)
			}
			plain := newService(e.pool, e.store, -1)
			unsnapped, err := plain.Game(ctx, g.ID)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := viewJSON(t, loaded), viewJSON(t, unsnapped); a != b {
				t.Fatalf("snapshot load differs from a full fold:\n%s\n%s", a, b)
			}
			if a, b := viewJSON(t, g), viewJSON(t, loaded); a != b {
				t.Fatalf("loaded state differs from the live one:\n%s\n%s", a, b)
			}
			// Deleting every snapshot changes nothing.
			if err := e.store.DeleteSnapshots(ctx, g.ID); err != nil {
				t.Fatal(err)
			}
			again, err := e.svc.Game(ctx, g.ID)
			if err != nil {
				t.Fatal(err)
			}
			if viewJSON(t, again) != viewJSON(t, g) {
				t.Fatal("state changed after deleting the snapshots")
			}
			row, found, err := projections.Game(ctx, e.pool, g.ID)
			if err != nil || !found {
				t.Fatalf("games row: found=%v err=%v", found, err)
			}
			if row.Status != play.StatusFinished || row.Version != g.Version || row.Final == nil {
				t.Fatalf("games row out of date: %+v", row)
			}
		})
	}
}

func mustSeed(t *testing.T, text string) []byte {
	t.Helper()
	s, err := engine.ParseSeed(text)
	if err != nil {
		t.Fatalf("seed %q: %v", text, err)
	}
	return s[:]
}

// twoPlayerGame creates an active 2-player Summer Pavilion game between
// two registered players with a public seed.
func twoPlayerGame(t *testing.T, e *env) (*play.Game, play.Player, play.Player) {
	t.Helper()
	ana, ben := e.register(t, "Ana"), e.register(t, "Ben")
	g, err := e.createAccepted(context.Background(), ana, play.CreateGame{
		Ruleset: "summer-pavilion",
		Seats:   []play.SeatSpec{{Player: "me"}, {Player: ben.ID}},
		Seed:    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
	}, "")
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if g.Status != play.StatusActive {
		t.Fatalf("status %q, want active", g.Status)
	}
	return g, ana, ben
}

func playerMove(g *play.Game, p play.Player, move string) play.MoveRequest {
	return play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: p.ID}, Move: json.RawMessage(move), Channel: "api"}
}

func TestMoveErrorsChangeNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	g, ana, ben := twoPlayerGame(t, e)
	stranger := e.register(t, "Cy")
	legal := g.LegalMoves(0)[0]

	cases := []struct {
		name string
		req  play.MoveRequest
		want func(error) bool
	}{
		{"stranger", playerMove(g, stranger, string(legal.JSON)), func(err error) bool { return errors.Is(err, play.ErrForbidden) }},
		{"not your turn", playerMove(g, ben, string(g.LegalMoves(0)[0].JSON)), func(err error) bool { return errors.Is(err, engine.ErrNotYourTurn) }},
		{"illegal move", playerMove(g, ana, `{"type":"place","star":1,"space":1,"color":"purple","wilds":0}`), func(err error) bool {
			var re *engine.RuleError
			return errors.As(err, &re) && re.Rule != ""
		}},
		{"malformed", playerMove(g, ana, `{"type":"take","factory":"x"}`), func(err error) bool { return errors.Is(err, engine.ErrBadCommand) }},
		{"stale version", func() play.MoveRequest {
			r := playerMove(g, ana, string(legal.JSON))
			v := g.Version - 1
			r.ExpectedVersion = &v
			return r
		}(), func(err error) bool { return errors.Is(err, events.ErrConflict) }},
		{"unknown game", play.MoveRequest{GameID: "not-a-uuid", Actor: events.Actor{Kind: "player", PlayerID: ana.ID}, Notation: "F1 red"}, func(err error) bool { return errors.Is(err, play.ErrNotFound) }},
	}
	for _, c := range cases {
		_, err := e.svc.Move(ctx, c.req)
		if err == nil || !c.want(err) {
			t.Errorf("%s: error %v", c.name, err)
		}
	}
	after, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Version != g.Version {
		t.Fatalf("refused moves changed the game: version %d -> %d", g.Version, after.Version)
	}
}

func TestIdempotentMoveAppliesOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	g, ana, _ := twoPlayerGame(t, e)
	moves := g.LegalMoves(0)
	req := playerMove(g, ana, string(moves[0].JSON))
	req.IdempotencyKey = "key-1"
	first, err := e.svc.Move(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.svc.Move(ctx, req)
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	if !second.Replayed || second.Version != first.Version || len(second.Events) != len(first.Events) {
		t.Fatalf("retry was not a replay of the first result: %+v vs %+v", second, first)
	}
	other := playerMove(g, ana, string(moves[1].JSON))
	other.IdempotencyKey = "key-1"
	if _, err := e.svc.Move(ctx, other); !errors.Is(err, events.ErrIdempotencyMismatch) {
		t.Fatalf("same key, other move: %v", err)
	}
	now, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if now.Version != first.Version {
		t.Fatalf("version %d after the retries, want %d", now.Version, first.Version)
	}
}

func TestNotationAndJSONMovesAndReplayByVersion(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 4)
	ctx := context.Background()
	g, ana, ben := twoPlayerGame(t, e)
	seen := map[int64]string{g.Version: viewJSON(t, g)}
	players := []play.Player{ana, ben}
	for i := 0; i < 30 && g.Status == play.StatusActive; i++ {
		seat := g.ToAct()[0]
		m := g.LegalMoves(seat)[i%len(g.LegalMoves(seat))]
		req := play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: players[seat].ID}, Channel: "api"}
		if i%2 == 0 {
			req.Notation = m.Notation
		} else {
			req.Move = m.JSON
		}
		res, err := e.svc.Move(ctx, req)
		if err != nil {
			t.Fatalf("move %d (%s): %v", i, m.Notation, err)
		}
		if got := res.Events[0].Meta.Notation; got != m.Notation {
			t.Fatalf("event meta notation %q, want %q", got, m.Notation)
		}
		g = res.Game
		seen[g.Version] = viewJSON(t, g)
	}
	for version, want := range seen {
		at, err := e.svc.GameAt(ctx, g.ID, version)
		if err != nil {
			t.Fatalf("GameAt(%d): %v", version, err)
		}
		if got := viewJSON(t, at); got != want {
			t.Fatalf("GameAt(%d) differs from the live state:\n%s\n%s", version, got, want)
		}
	}
	if _, err := e.svc.GameAt(ctx, g.ID, g.Version+1); !errors.Is(err, play.ErrInvalid) {
		t.Fatalf("GameAt past the end: %v", err)
	}
}

func TestJoinFillsSeatsAndStartsTheGame(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	ana, ben := e.register(t, "Ana"), e.register(t, "Ben")
	g, err := e.svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != play.StatusOpen || g.State != nil {
		t.Fatalf("status %q, want open", g.Status)
	}
	if _, err := e.svc.Join(ctx, g.ID, ana, nil); !errors.Is(err, play.ErrForbidden) {
		t.Fatalf("second seat for the same player: %v", err)
	}
	joined, err := e.svc.Join(ctx, g.ID, ben, nil)
	if err != nil {
		t.Fatal(err)
	}
	if joined.Status != play.StatusActive || joined.Seats[1].PlayerID != ben.ID {
		t.Fatalf("after join: status %q seats %+v", joined.Status, joined.Seats)
	}
	cy := e.register(t, "Cy")
	if _, err := e.svc.Join(ctx, g.ID, cy, nil); !errors.Is(err, play.ErrForbidden) {
		t.Fatalf("join a full game: %v", err)
	}
	e.caughtUp(t)
	inbox, err := e.svc.Turns(ctx, ana.ID)
	if err != nil || len(inbox) != 1 || inbox[0].GameID != g.ID {
		t.Fatalf("Ana's inbox: %+v, %v", inbox, err)
	}
}

func TestConcurrentJoinsTakeDistinctSeats(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	ana := e.register(t, "Ana")
	g, err := e.svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "summer-pavilion-mini", Seats: []play.SeatSpec{{}, {}, {}, {}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range 4 {
		p := e.register(t, fmt.Sprintf("P%d", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.svc.Join(ctx, g.ID, p, nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("join %d: %v", i, err)
		}
	}
	final, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != play.StatusActive {
		t.Fatalf("status %q after four joins", final.Status)
	}
	ids := map[string]bool{}
	for _, s := range final.Seats {
		ids[s.PlayerID] = true
	}
	if len(ids) != 4 {
		t.Fatalf("seats %+v: want four distinct players", final.Seats)
	}
}

func TestCreateRejectsBadRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ana := e.register(t, "Ana")
	bad := []play.CreateGame{
		{Ruleset: "chess", Seats: []play.SeatSpec{{Player: "me"}, {}}},
		{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}}},
		{Ruleset: "azul-mini", Seats: []play.SeatSpec{{}, {}, {}, {}, {}}},
		{Ruleset: "azul-mini", Options: engine.Options{Board: "monochrome"}, Seats: []play.SeatSpec{{}, {}}},
		{Ruleset: "summer-pavilion", Options: engine.Options{WildOrder: []string{"red"}}, Seats: []play.SeatSpec{{}, {}}},
		{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Bot: "oracle"}, {}}},
		{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "00000000-0000-0000-0000-000000000000"}, {}}},
		{Ruleset: "azul-mini", Seats: []play.SeatSpec{{}, {}}, Seed: "xyz"},
	}
	for i, req := range bad {
		if _, err := e.svc.CreateGame(context.Background(), ana, req, ""); !errors.Is(err, play.ErrInvalid) {
			t.Errorf("request %d (%+v): error %v, want ErrInvalid", i, req, err)
		}
	}
	rows, _, err := e.svc.ListGames(context.Background(), projections.Filter{})
	if err != nil || len(rows) != 0 {
		t.Fatalf("refused creations left games: %d, %v", len(rows), err)
	}
}

func TestRebuiltProjectionsEqualLiveOnes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	ana := e.register(t, "Ana")
	for _, c := range botGames[:3] {
		seats := []play.SeatSpec{{Player: "me"}}
		for len(seats) < c.players {
			seats = append(seats, play.SeatSpec{Bot: "random"})
		}
		if _, err := e.svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: c.ruleset, Options: c.options, Seats: seats}, ""); err != nil {
			t.Fatal(err)
		}
	}
	e.caughtUp(t)
	before, _, err := e.svc.ListGames(ctx, projections.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	inboxBefore, err := e.svc.Turns(ctx, ana.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.RebuildProjections(ctx); err != nil {
		t.Fatal(err)
	}
	after, _, err := e.svc.ListGames(ctx, projections.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	inboxAfter, err := e.svc.Turns(ctx, ana.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, before), mustJSON(t, after); a != b {
		t.Fatalf("games list changed by a rebuild:\n%s\n%s", a, b)
	}
	if a, b := mustJSON(t, inboxBefore), mustJSON(t, inboxAfter); a != b || len(inboxAfter) != 3 {
		t.Fatalf("inbox changed by a rebuild (or not 3 games waiting):\n%s\n%s", a, b)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
