package migrations_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/migrations"
	"github.com/azuld/azuld/play"
)

// TestUpgradeKeepsRealGames: games played for real, written as a server
// before the names left the log wrote them (names in game.created and
// game.joined, one token column on players), into a database at
// migration 14; after migrating up every game still folds, verifies and
// shows its players by name from their accounts, no name is left in the
// log, the players' tokens still sign in, and a running game goes on.
func TestUpgradeKeepsRealGames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	// Real games, played by the service of today.
	now := newService(t, pg.NewDatabase(t))
	ana, anaToken, err := now.svc.RegisterPlayer(ctx, "Ana Upgraded", "ana.upgraded@example.org", play.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	ben, _, err := now.svc.RegisterPlayer(ctx, "Ben Upgraded", "ben.upgraded@example.org", play.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	seed := "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	// A finished game against bots (its seed revealed), and a running one
	// whose second seat was joined.
	done, err := now.svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "azul-mini",
		Seats: []play.SeatSpec{{Player: "me"}, {Bot: "greedy"}, {Bot: "random"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	for done.Status != play.StatusFinished {
		seat := done.ToAct()[0]
		res, err := now.svc.Move(ctx, moveOf(done, ana, seat))
		if err != nil {
			t.Fatal(err)
		}
		done = res.Game
	}
	running, err := now.svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "summer-pavilion",
		Seats: []play.SeatSpec{{Player: "me"}, {}}, Seed: seed}, "")
	if err != nil {
		t.Fatal(err)
	}
	if running, err = now.svc.Join(ctx, running.ID, ben, nil); err != nil {
		t.Fatal(err)
	}
	for range 6 {
		seat := running.ToAct()[0]
		who := map[int]play.Player{0: ana, 1: ben}[seat]
		res, err := now.svc.Move(ctx, moveOf(running, who, seat))
		if err != nil {
			t.Fatal(err)
		}
		running = res.Game
	}

	// The same log as an older server wrote it, at migration 14.
	oldURL := pg.NewDatabase(t)
	if err := migrations.UpTo(ctx, oldURL, 14); err != nil {
		t.Fatal(err)
	}
	old, err := pgxpool.New(ctx, oldURL)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	names := map[string]string{ana.ID: ana.Name, ben.ID: ben.Name}
	for _, p := range []play.Player{ana, ben} {
		token := []byte(p.ID) // Ben's token is never used
		if p.ID == ana.ID {
			token = play.HashToken(anaToken)
		}
		if _, err := old.Exec(ctx, `INSERT INTO players (id, name, email, token_hash) VALUES ($1, $2, $3, $4)`, p.ID, p.Name, p.Email, token); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{done.ID, running.ID} {
		recs, err := now.svc.Events(ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := old.Exec(ctx, `INSERT INTO streams (id) VALUES ($1)`, id); err != nil {
			t.Fatal(err)
		}
		var secret string
		if err := now.pool.QueryRow(ctx, `SELECT seed FROM game_secrets WHERE game_id = $1`, id).Scan(&secret); err != nil {
			t.Fatal(err)
		}
		if _, err := old.Exec(ctx, `INSERT INTO game_secrets (game_id, seed) VALUES ($1, $2)`, id, secret); err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			meta, err := json.Marshal(rec.Meta)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := old.Exec(ctx, `INSERT INTO events (stream_id, version, type, schema_version, data, meta, recorded_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7)`, id, rec.Version, rec.Type, rec.Schema, string(oldPayload(t, rec, names)), string(meta), rec.RecordedAt); err != nil {
				t.Fatal(err)
			}
		}
	}
	var named int
	if err := old.QueryRow(ctx, `SELECT count(*) FROM events WHERE data::text LIKE '%Upgraded%'`).Scan(&named); err != nil || named != 3 {
		t.Fatalf("the old log names players in %d events (%v), want 3: the test's old form is wrong", named, err)
	}

	if err := migrations.Up(ctx, oldURL); err != nil {
		t.Fatal(err)
	}
	if err := old.QueryRow(ctx, `SELECT count(*) FROM events WHERE data::text LIKE '%Upgraded%'`).Scan(&named); err != nil || named != 0 {
		t.Fatalf("after the upgrade %d events still name players (%v)", named, err)
	}
	up := newService(t, oldURL)
	for _, want := range []*play.Game{done, running} {
		g, err := up.svc.Game(ctx, want.ID)
		if err != nil {
			t.Fatalf("game %s after the upgrade: %v", want.ID, err)
		}
		if g.Version != want.Version || g.Status != want.Status {
			t.Fatalf("game %s after the upgrade: version %d %s, want %d %s", want.ID, g.Version, g.Status, want.Version, want.Status)
		}
		if g.Seats[0].Name != ana.Name || (want.ID == running.ID && g.Seats[1].Name != ben.Name) {
			t.Fatalf("game %s after the upgrade names its seats %+v", want.ID, g.Seats)
		}
		v, err := up.svc.Verify(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v.Result != play.VerifyPass {
			t.Fatalf("game %s after the upgrade verifies %q: %+v", want.ID, v.Result, v.Mismatch)
		}
	}
	// The account and its token carried over, and the game goes on.
	p, err := up.svc.Authenticate(ctx, anaToken)
	if err != nil || p.ID != ana.ID || p.Name != ana.Name || !p.EmailVerified {
		t.Fatalf("Ana's token after the upgrade: %+v, %v", p, err)
	}
	g, err := up.svc.Game(ctx, running.ID)
	if err != nil {
		t.Fatal(err)
	}
	seat := g.ToAct()[0]
	if _, err := up.svc.Move(ctx, moveOf(g, map[int]play.Player{0: ana, 1: ben}[seat], seat)); err != nil {
		t.Fatalf("a move after the upgrade: %v", err)
	}
}

type service struct {
	pool *pgxpool.Pool
	svc  *play.Service
}

func newService(t *testing.T, url string) service {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := migrations.Up(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	return service{pool, play.New(play.Config{Pool: pool, Store: events.NewStore(pool), Rules: rulesets.All()})}
}

// moveOf is the first legal move of seat, by p (the game's creator moves
// for bot seats only through the bots themselves, so seat is a player's).
func moveOf(g *play.Game, p play.Player, seat int) play.MoveRequest {
	m := g.LegalMoves(seat)[0]
	return play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: p.ID}, Seat: &seat, Move: m.JSON, Channel: "api"}
}

// oldPayload is an event's data as servers before migration 17 wrote it:
// the players' names in game.created's seats and in game.joined.
func oldPayload(t *testing.T, rec events.Record, names map[string]string) []byte {
	t.Helper()
	if rec.Type != play.EvGameCreated && rec.Type != play.EvSeatJoined {
		return rec.Data
	}
	var fields map[string]any
	if err := json.Unmarshal(rec.Data, &fields); err != nil {
		t.Fatal(err)
	}
	if rec.Type == play.EvSeatJoined {
		fields["name"] = names[fields["player_id"].(string)]
	} else {
		for _, s := range fields["seats"].([]any) {
			if seat := s.(map[string]any); seat["player_id"] != nil {
				seat["name"] = names[seat["player_id"].(string)]
			}
		}
	}
	data, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "Upgraded") {
		t.Fatalf("no name put into %s", rec.Type)
	}
	return data
}
