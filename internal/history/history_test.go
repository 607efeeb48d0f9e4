package history

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/migrations"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// pg hands every test a migrated database of its own.
var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

// newService is azuld's command path on pool, as a Service used alone
// (bots move within the command, read models in the append's
// transaction).
func newService(pool *pgxpool.Pool) *play.Service {
	return play.New(play.Config{Pool: pool, Store: events.NewStore(pool), Rules: rulesets.All()})
}

// A generated history is what azuld itself makes of the games: every game
// loads and folds through play.Service, passes the fairness check (the
// running ones once played to the end through azuld's own command path,
// which proves their secret seeds), shows in the read models, and
// `projections rebuild` finds the read models as generated.
func TestGenerateVerifies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pg.NewPool(t)
	const finished, running = 30, 16
	var progress []Stats
	stats, err := Generate(ctx, pool, Options{
		Finished: finished, Running: running, BotSeats: 0.4, Joined: 0.3, Keyed: 0.7,
		Batch: 8, Workers: 2, Seed: 7, Progress: func(s Stats) { progress = append(progress, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Games != finished+running || stats.Finished != finished || stats.Running != running {
		t.Fatalf("stats %+v, want %d finished and %d running", stats, finished, running)
	}
	if len(progress) != 6 || progress[5].Games != finished+running {
		t.Errorf("progress reported %d times (%+v), want 6 batches", len(progress), progress)
	}
	var stored int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != stats.Events {
		t.Errorf("%d events stored, stats say %d", stored, stats.Events)
	}
	if n := compactMetaMismatches(t, pool, ""); n != 0 {
		t.Errorf("%d generated events store their meta otherwise than azuld", n)
	}

	// The follower of the log has nothing left to do: no mail, webhook or
	// bot job for the history.
	n, err := events.NewConsumer(pool, notify.OutboxConsumer).Process(ctx, 100, func(context.Context, pgx.Tx, []events.Record) error {
		return nil
	})
	if err != nil || n != 0 {
		t.Errorf("the follower found %d events to handle (%v), want none", n, err)
	}

	for table, least := range map[string]int{"turn_inbox": running, "results": 2 * finished, "snapshots": finished, "idempotency_keys": 1, "game_secrets": finished + running, "players": 8} {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n < least {
			t.Errorf("%s holds %d rows, want at least %d", table, n, least)
		}
	}

	// A keyed move sent again gets its first result, as from azuld: the
	// keys' scopes and request hashes are the server's (the key is the
	// command id of its append).
	keys, err := pool.Query(ctx, `
		SELECT e.meta->>'command_id', k.stream_id::text, k.last_version, e.meta->'actor'->>'player_id', (e.meta->'actor'->>'seat')::int, (e.meta->'command')::text
		FROM idempotency_keys k JOIN events e ON e.stream_id = k.stream_id AND e.version = k.first_version
		ORDER BY k.id LIMIT 20`)
	if err != nil {
		t.Fatal(err)
	}
	type keyed struct {
		key, game string
		last      int64
		player    string
		seat      int
		command   string
	}
	sent, err := pgx.CollectRows(keys, func(r pgx.CollectableRow) (keyed, error) {
		var k keyed
		err := r.Scan(&k.key, &k.game, &k.last, &k.player, &k.seat, &k.command)
		return k, err
	})
	if err != nil || len(sent) == 0 {
		t.Fatalf("keyed moves: %v, %v", sent, err)
	}
	replayer := newService(pool)
	for _, k := range sent {
		res, err := replayer.Move(ctx, play.MoveRequest{
			GameID: k.game, Actor: events.Actor{Kind: "player", PlayerID: k.player}, Seat: &k.seat,
			Move: json.RawMessage(k.command), IdempotencyKey: k.key, Channel: "api",
		})
		if err != nil || !res.Replayed || res.Version != k.last {
			t.Errorf("move %s of game %s sent again: %+v, %v; want its first result at version %d", k.key, k.game, res, err, k.last)
		}
	}

	before := dumpReadModels(t, pool)
	svc := newService(pool)
	if err := svc.RebuildProjections(ctx); err != nil {
		t.Fatal(err)
	}
	if after := dumpReadModels(t, pool); after != before {
		t.Errorf("projections rebuild changes the read models:\ngenerated %s\nrebuilt   %s", before, after)
	}

	rows, _, err := projections.ListGames(ctx, pool, projections.Filter{Limit: projections.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != finished+running {
		t.Fatalf("the games list holds %d games, want %d", len(rows), finished+running)
	}
	// A service that ignores snapshots folds every game from its events.
	noSnapshots := play.New(play.Config{Pool: pool, Store: events.NewStore(pool), Rules: rulesets.All(), SnapshotEvery: -1})
	rulesetsSeen := map[string]map[string]bool{"finished": {}, "active": {}}
	var runningGames []projections.GameRow
	for _, row := range rows {
		g, err := svc.Game(ctx, row.ID)
		if err != nil {
			t.Fatalf("load game %s: %v", row.ID, err)
		}
		if g.Status != row.Status || g.Version != row.Version {
			t.Errorf("game %s: loaded %s at version %d, listed %s at %d", row.ID, g.Status, g.Version, row.Status, row.Version)
		}
		folded, err := noSnapshots.Game(ctx, row.ID)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := viewJSON(t, g), viewJSON(t, folded); a != b {
			t.Errorf("game %s from its snapshot:\n%s\nfrom its events:\n%s", row.ID, a, b)
		}
		rulesetsSeen[row.Status][row.Ruleset] = true
		v, err := svc.Verify(ctx, row.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := play.VerifyPass
		if row.Status == play.StatusActive {
			want = play.VerifyCommitted
			runningGames = append(runningGames, row)
		}
		if v.Result != want {
			t.Errorf("game %s (%s, %s): verify %s %+v, want %s", row.ID, row.Ruleset, row.Status, v.Result, v.Mismatch, want)
		}
		// The player's own list finds the game.
		for _, s := range row.Seats {
			if s.PlayerID == "" {
				continue
			}
			mine, _, err := projections.ListGames(ctx, pool, projections.Filter{Player: s.PlayerID, Limit: projections.MaxLimit})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(mine, func(r projections.GameRow) bool { return r.ID == row.ID }) {
				t.Errorf("game %s is missing from the list of its player %s", row.ID, s.PlayerID)
			}
		}
	}
	for status, seen := range rulesetsSeen {
		for id := range rulesets.All() {
			if !seen[id] {
				t.Errorf("no %s game of %s", status, id)
			}
		}
	}

	// Each running game waits for a player, whose turn inbox shows it;
	// played to the end through azuld's command path, it reveals its
	// secret seed and passes the fairness check.
	for _, row := range runningGames {
		waiting := false
		for _, seat := range row.ToAct {
			p := row.Seats[seat].PlayerID
			if p == "" {
				continue
			}
			waiting = true
			inbox, err := projections.Inbox(ctx, pool, p)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(inbox, func(r projections.TurnRow) bool { return r.GameID == row.ID && slices.Contains(r.Seats, seat) }) {
				t.Errorf("game %s is missing from the turn inbox of seat %d (%s)", row.ID, seat, p)
			}
		}
		if !waiting {
			t.Errorf("running game %s waits for no player (to act %v)", row.ID, row.ToAct)
		}
		playToEnd(t, svc, row.ID)
		v, err := svc.Verify(ctx, row.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v.Result != play.VerifyPass {
			t.Errorf("game %s played to the end: verify %s %+v", row.ID, v.Result, v.Mismatch)
		}
	}
}

// playToEnd plays a game's players' moves through play.Service until it
// is over (its bots move by themselves).
func playToEnd(t *testing.T, svc *play.Service, id string) {
	t.Helper()
	ctx := context.Background()
	for range 2000 {
		g, err := svc.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if g.Status != play.StatusActive {
			return
		}
		seat := g.ToAct()[0]
		move, err := bots.Choose(bots.Random, g.State, seat, uint64(g.Version))
		if err != nil {
			t.Fatal(err)
		}
		_, err = svc.Move(ctx, play.MoveRequest{
			GameID: id, Actor: events.Actor{Kind: "player", PlayerID: g.Seats[seat].PlayerID},
			Seat: &seat, Move: move.JSON, Channel: "api",
		})
		if err != nil {
			t.Fatalf("game %s: seat %d plays %s: %v", id, seat, move.JSON, err)
		}
	}
	t.Fatalf("game %s did not end", id)
}

// dumpReadModels is every read model's content as text.
func dumpReadModels(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var out string
	for _, q := range []string{
		// The watch order comes from the ratings, which the generator
		// leaves to a rebuild (it writes none).
		`SELECT json_agg(to_jsonb(x) - 'watch_best' ORDER BY x.id)::text FROM games x`,
		`SELECT json_agg(x ORDER BY x.game_id, x.seat)::text FROM game_seats x`,
		`SELECT json_agg(x ORDER BY x.game_id, x.seat)::text FROM turn_inbox x`,
		`SELECT json_agg(x ORDER BY x.game_id, x.seat)::text FROM results x`,
	} {
		var s *string
		if err := pool.QueryRow(context.Background(), q).Scan(&s); err != nil {
			t.Fatal(err)
		}
		if s != nil {
			out += *s + "\n"
		}
	}
	return out
}

// A game of bots played by azuld (created with a public seed, so its
// bots move within the creating command) and the same game played by
// PlayGame hold the same events and metadata, but for the command ids.
func TestPlayGameWritesWhatAzuldWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pg.NewPool(t)
	svc := newService(pool)
	creator, _, err := svc.RegisterPlayer(ctx, "Creator", "creator@example.org", play.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	reg := rulesets.All()
	snapshots := 0
	for i, v := range variants {
		seed, err := engine.NewSeed()
		if err != nil {
			t.Fatal(err)
		}
		kinds := []string{bots.Greedy, bots.Random, bots.Greedy}[:2+i%2]
		specs := make([]play.SeatSpec, len(kinds))
		seats := make([]play.Seat, len(kinds))
		for j, k := range kinds {
			specs[j] = play.SeatSpec{Bot: k}
			seats[j] = play.Seat{Bot: k}
		}
		g, err := svc.CreateGame(ctx, creator, play.CreateGame{Ruleset: v.ruleset, Options: v.options, Seats: specs, Seed: seed.String()}, "")
		if err != nil {
			t.Fatal(err)
		}
		if g.Status != play.StatusFinished {
			t.Fatalf("%s: the bots' game is %s", v.ruleset, g.Status)
		}
		live, err := svc.Events(ctx, g.ID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		played, err := PlayGame(reg, Spec{
			ID: g.ID, Config: engine.Config{Ruleset: v.ruleset, Players: len(kinds), Options: v.options},
			Seats: seats, Creator: creator.ID, Seed: seed, PublicSeed: true, JoinSeat: -1, Mover: bots.Greedy,
			Start: time.Now(),
		})
		if err != nil {
			t.Fatal(err)
		}
		recs := played.Records()
		if len(recs) != len(live) {
			t.Fatalf("%s %+v: %d events generated, azuld wrote %d", v.ruleset, v.options, len(recs), len(live))
		}
		for k := range recs {
			a, b := live[k], recs[k]
			a.Meta.CommandID, b.Meta.CommandID = "", ""
			am, _ := json.Marshal(a.Meta)
			bm, _ := json.Marshal(b.Meta)
			if a.Type != b.Type || a.Schema != b.Schema || string(a.Data) != string(b.Data) || string(am) != string(bm) {
				t.Fatalf("%s %+v: event %d differs:\nazuld     %s %d %s %s\ngenerated %s %d %s %s", v.ruleset, v.options, k+1,
					a.Type, a.Schema, a.Data, am, b.Type, b.Schema, b.Data, bm)
			}
		}
		// The same snapshots, at the same versions, in the server's
		// format (their times aside).
		got, err := pool.Query(ctx, `SELECT version, format, data FROM snapshots WHERE stream_id = $1 ORDER BY version`, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		type snap struct {
			version int64
			format  int
			data    string
		}
		liveSnaps, err := pgx.CollectRows(got, func(r pgx.CollectableRow) (snap, error) {
			var s snap
			var data []byte
			err := r.Scan(&s.version, &s.format, &data)
			s.data = withoutTimes(t, data)
			return s, err
		})
		if err != nil {
			t.Fatal(err)
		}
		var genSnaps []snap
		for k, a := range played.Appends {
			if a.Snapshot != nil {
				data, err := played.snapshotData(k)
				if err != nil {
					t.Fatal(err)
				}
				genSnaps = append(genSnaps, snap{a.Snapshot.Version, play.SnapshotFormat(reg), withoutTimes(t, data)})
			}
		}
		if !slices.Equal(liveSnaps, genSnaps) {
			t.Fatalf("%s %+v: snapshots differ:\nazuld     %+v\ngenerated %+v", v.ruleset, v.options, liveSnaps, genSnaps)
		}
		snapshots += len(genSnaps)
		// azuld stores the meta as the generator does.
		if n := compactMetaMismatches(t, pool, g.ID); n != 0 {
			t.Fatalf("%s: %d events of azuld store their meta otherwise than the generator", v.ruleset, n)
		}
		// The same appends: the command ids group the same events.
		for k := 1; k < len(recs); k++ {
			if (live[k].Meta.CommandID == live[k-1].Meta.CommandID) != (recs[k].Meta.CommandID == recs[k-1].Meta.CommandID) {
				t.Fatalf("%s: event %d is not in the same append as in azuld", v.ruleset, k+1)
			}
		}
	}
	if snapshots == 0 {
		t.Error("no game wrote a snapshot: the comparison of snapshots compared nothing")
	}
}

// compactMetaMismatches counts the events (of one stream, or all when
// stream is empty) that break the event store's rule of one meta per
// append: the first event of an append (of a transaction: azuld writes
// one append per transaction, the generator one per game and
// transaction) holds the full meta, the others the marker 0.
func compactMetaMismatches(t *testing.T, pool *pgxpool.Pool, stream string) int64 {
	t.Helper()
	var n int64
	err := pool.QueryRow(context.Background(), `SELECT count(*) FROM events e
		WHERE ($1 = '' OR e.stream_id = $1::text::uuid)
		  AND (e.meta::text = '0') <> EXISTS (SELECT FROM events p
		      WHERE p.stream_id = e.stream_id AND p.version = e.version - 1 AND p.tx_id = e.tx_id)`, stream).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// withoutTimes is a snapshot's JSON without the game's times.
func withoutTimes(t *testing.T, data []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	game, ok := m["game"].(map[string]any)
	if !ok {
		t.Fatalf("a snapshot without its game: %s", data)
	}
	delete(game, "created_at")
	delete(game, "updated_at")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// viewJSON is a game as the API shows it.
func viewJSON(t *testing.T, g *play.Game) string {
	t.Helper()
	b, err := json.Marshal(g.View())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A running game is cut where players, and no bot, are to act: azuld
// moves its bots at once, so no game of its waits for one, even when
// players and bots act together (Azul's grey-wall tiling).
func TestCutWaitsForPlayersOnly(t *testing.T) {
	t.Parallel()
	reg := rulesets.All()
	seats := []play.Seat{{PlayerID: "0195f6a4-8c1e-7cc1-9a3f-2d4b6c8e0f11"}, {Bot: bots.Random}, {PlayerID: "0195f6a4-8c1e-7cc1-9a3f-2d4b6c8e0f12"}}
	for i := range 40 {
		seed, err := engine.NewSeed()
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(i), 3))
		g, err := PlayGame(reg, Spec{
			ID: newGameID(), Config: engine.Config{Ruleset: "azul-mini", Players: len(seats), Options: engine.Options{Wall: "grey"}},
			Seats: seats, Creator: seats[0].PlayerID, Seed: seed, JoinSeat: -1, Mover: bots.Random, Start: time.Now(), Rand: rng,
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := g.cut(rng, seats); err != nil {
			t.Fatal(err)
		}
		last := g.Appends[len(g.Appends)-1]
		if !last.active {
			t.Fatalf("game %d was cut after its end", i)
		}
		for _, s := range last.toAct {
			if seats[s].Bot != "" {
				t.Fatalf("game %d was cut where its bot (seat %d) is to act with %v", i, s, last.toAct)
			}
		}
	}
}

// A database whose follower of the log has events left to handle is
// refused: marking the history as followed would skip them.
func TestGenerateRefusesAnUnfollowedLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pg.NewPool(t)
	if _, err := Generate(ctx, pool, Options{Finished: 2, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	// A game created through azuld after the history, which no follower
	// has handled.
	svc := newService(pool)
	p, _, err := svc.RegisterPlayer(ctx, "Ana", "", play.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateGame(ctx, p, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {}}}, ""); err != nil {
		t.Fatal(err)
	}
	var games int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM games`).Scan(&games); err != nil {
		t.Fatal(err)
	}
	_, err = Generate(ctx, pool, Options{Finished: 2, Seed: 4})
	if err == nil || !strings.Contains(err.Error(), "follower") {
		t.Fatalf("generating over an unfollowed log: %v", err)
	}
	var after int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM games`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != games {
		t.Errorf("the refused generation wrote %d games", after-games)
	}
}
