package projections_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/projections"
	"github.com/azuld/azuld/rating"
)

// dumpRatings reads the ratings tables in a stable order, as text (a
// float8's text is its exact shortest form).
func dumpRatings(tb testing.TB, db projections.DB) map[string][]string {
	tb.Helper()
	out := map[string][]string{}
	for table, order := range map[string]string{"ratings": "ruleset, players, subject", "rating_history": "game_id, subject"} {
		rows, err := db.Query(context.Background(), fmt.Sprintf(`SELECT t::text FROM %s t ORDER BY %s`, table, order))
		if err != nil {
			tb.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			tb.Fatal(err)
		}
		out[table] = lines
	}
	return out
}

// followLog replays the whole log as the follower does: each append's
// QueueFollowed, in the log's order, a batch per consumer batch.
func followLog(t *testing.T, pool *pgxpool.Pool, name string, batchSize int) {
	t.Helper()
	ctx := context.Background()
	seen := map[string][]events.Record{}
	consumer := events.NewConsumer(pool, name)
	for {
		n, err := consumer.ProcessBatch(ctx, batchSize, func(ctx context.Context, tx pgx.Tx, batch []events.Record, b *pgx.Batch) error {
			for len(batch) > 0 {
				k := 1
				for k < len(batch) && batch[k].StreamID == batch[0].StreamID && batch[k].TxID == batch[0].TxID {
					k++
				}
				id := batch[0].StreamID
				var before *projections.GameRow
				if len(seen[id]) > 0 {
					row, err := fold(ctx, id, seen[id])
					if err != nil {
						return err
					}
					before = &row
				}
				seen[id] = append(seen[id], batch[:k]...)
				after, err := fold(ctx, id, seen[id])
				if err != nil {
					return err
				}
				if err := projections.QueueFollowed(b, before, after); err != nil {
					return err
				}
				batch = batch[k:]
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// TestRatingsRebuildEqualsLive: the ratings written as games finish (in
// the append's transaction), those the follower of the log writes, and
// those a rebuild writes are the same numbers.
func TestRatingsRebuildEqualsLive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	store := events.NewStore(pool)
	playSyntheticGames(t, store, rand.New(rand.NewPCG(7, 8)), 60, 1200)
	live := dumpRatings(t, pool)

	// Not trivial: rated games of several sizes, bots rated, players
	// rated several times, and finished games left unrated (a player in
	// two seats, a seat still free, a game created unrated).
	var rated, finished, sizes, bots, repeat, unrated, unratedRated int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(DISTINCT game_id) FROM rating_history),
			(SELECT count(*) FROM games WHERE status = 'finished'),
			(SELECT count(DISTINCT players) FROM ratings),
			(SELECT count(*) FROM ratings WHERE bot <> ''),
			(SELECT count(*) FROM ratings WHERE games > 2),
			(SELECT count(*) FROM games WHERE status = 'finished' AND NOT rated),
			(SELECT count(*) FROM games g WHERE NOT g.rated AND EXISTS (SELECT FROM rating_history h WHERE h.game_id = g.id))`).Scan(
		&rated, &finished, &sizes, &bots, &repeat, &unrated, &unratedRated); err != nil {
		t.Fatal(err)
	}
	if rated < 5 || rated == finished || sizes < 2 || bots == 0 || repeat == 0 || unrated == 0 {
		t.Fatalf("weak scenario: %d of %d finished games rated, %d sizes, %d bot ratings, %d ratings of more than two games, %d finished unrated",
			rated, finished, sizes, bots, repeat, unrated)
	}
	if unratedRated != 0 {
		t.Fatalf("%d games created unrated were rated", unratedRated)
	}
	// Every rated game has one history row per seat, and every rating
	// counts its history rows.
	var bad int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM ratings r WHERE r.games <> (SELECT count(*) FROM rating_history h
		WHERE h.subject = r.subject AND h.ruleset = r.ruleset AND h.players = r.players)`).Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("%d ratings disagree with their history (%v)", bad, err)
	}

	if err := projections.Rebuild(ctx, pool, fold); err != nil {
		t.Fatal(err)
	}
	sameDump(t, dumpRatings(t, pool), live)

	// The follower's way, from an empty read model, in batches that hold
	// several finishes.
	if _, err := pool.Exec(ctx, `TRUNCATE ratings, rating_history`); err != nil {
		t.Fatal(err)
	}
	followLog(t, pool, "test.ratings", 97)
	sameDump(t, dumpRatings(t, pool), live)
	// Following it again changes nothing: a game is rated once.
	if _, err := pool.Exec(ctx, `DELETE FROM consumer_checkpoints WHERE name = 'test.ratings'`); err != nil {
		t.Fatal(err)
	}
	followLog(t, pool, "test.ratings", 500)
	sameDump(t, dumpRatings(t, pool), live)
}

// TestRatingSQLEqualsRating: rating_apply computes rating.Params.Rate.
func TestRatingSQLEqualsRating(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	p := rating.Default()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 2 + rng.IntN(4)
		subjects := make([]string, n)
		before := make([]rating.Rating, n)
		ranks := make([]int, n)
		ranks32, seats := make([]int32, n), make([]int32, n)
		for i := range n {
			subjects[i] = uuid.NewString()
			before[i] = rating.Rating{Mu: 10 + 30*rng.Float64(), Sigma: 0.5 + 8*rng.Float64()}
			ranks[i] = 1 + rng.IntN(n)
			ranks32[i], seats[i] = int32(ranks[i]), int32(i)
			if _, err := pool.Exec(ctx, `INSERT INTO ratings (ruleset, players, subject, player_id, mu, sigma, games, last_game_at)
				VALUES ('azul', $1, $2::text, $2::uuid, $3, $4, 3, now())`, n, subjects[i], before[i].Mu, before[i].Sigma); err != nil {
				t.Fatal(err)
			}
		}
		want, err := p.Rate(before, ranks)
		if err != nil {
			t.Fatal(err)
		}
		game := uuid.NewString()
		if _, err := pool.Exec(ctx, `SELECT rating_apply($1, 'azul', now(), $2, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			game, subjects, make([]string, n), seats, ranks32, p.Mu, p.Sigma, p.Beta, p.Kappa, p.Tau); err != nil {
			t.Fatal(err)
		}
		for i, s := range subjects {
			var got rating.Rating
			var games int
			if err := pool.QueryRow(ctx, `SELECT mu, sigma, games FROM ratings WHERE ruleset = 'azul' AND players = $1 AND subject = $2`,
				n, s).Scan(&got.Mu, &got.Sigma, &games); err != nil {
				t.Fatal(err)
			}
			if !near(got.Mu, want[i].Mu) || !near(got.Sigma, want[i].Sigma) || games != 4 {
				t.Fatalf("ranks %v, player %d: SQL %v after %d games, Go %v", ranks, i, got, games, want[i])
			}
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// finishedRow is a finished game of the given seats (player ids, or
// "bot:kind"), ranked in seat order by scores.
func finishedRow(ruleset string, at time.Time, seats []string, scores []int) projections.GameRow {
	row := projections.GameRow{ID: uuid.NewString(), Ruleset: ruleset, Status: "finished", Version: 9, ToAct: []int{},
		CreatedAt: at.Add(-time.Hour), LastMoveAt: at, Options: engine.Options{Wall: "grey"}, Final: &engine.Final{Reason: "row_completed"}}
	for i, s := range seats {
		seat := projections.SeatRow{Seat: i}
		if kind, ok := cutPrefix(s, projections.BotSubject); ok {
			seat.Bot, seat.Budget, _ = strings.Cut(kind, "@")
		} else {
			seat.PlayerID = s
		}
		row.Seats = append(row.Seats, seat)
		rank := 1
		for _, o := range scores {
			if o > scores[i] {
				rank++
			}
		}
		row.Final.Players = append(row.Final.Players, engine.FinalPlayer{Seat: i, Score: scores[i], Rank: rank})
	}
	return row
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}

func historyGames(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT DISTINCT game_id::text FROM rating_history ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestRatingsNotRated: games against oneself, with a seat left to a bot,
// with a bot kind in two seats, or created unrated are not rated; a finish applied twice
// rates once.
func TestRatingsNotRated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	a, b := uuid.NewString(), uuid.NewString()
	self := finishedRow("azul", at, []string{a, a}, []int{10, 5})
	bots := finishedRow("azul", at, []string{a, "bot:random", "bot:random"}, []int{10, 5, 3})
	left := finishedRow("azul", at, []string{a, b}, []int{10, 5})
	ok := finishedRow("azul", at, []string{a, b, "bot:greedy"}, []int{10, 10, 3})
	unrated := finishedRow("azul", at, []string{a, b}, []int{10, 5})
	unrated.Unrated = true
	// The left game's log has a seat_left.
	if _, err := events.NewStore(pool).Append(ctx, events.AppendRequest{StreamID: left.ID, Events: []events.NewEvent{
		newEvent(t, "game.created", created{Ruleset: "azul"}), newEvent(t, "game.seat_left", map[string]any{"seat": 1, "by": "bot", "bot": "greedy"})}}); err != nil {
		t.Fatal(err)
	}
	applyRows(t, pool, self, bots, left, ok, ok, unrated)
	got := historyGames(t, pool)
	if !slices.Equal(got, []string{ok.ID}) {
		t.Fatalf("rated games %v, want only %s", got, ok.ID)
	}
	var games int
	if err := pool.QueryRow(ctx, `SELECT games FROM ratings WHERE subject = $1 AND players = 3`, a).Scan(&games); err != nil || games != 1 {
		t.Fatalf("a's games %d (%v), want 1", games, err)
	}
	var twos int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM ratings WHERE players = 2`).Scan(&twos); err != nil || twos != 0 {
		t.Fatalf("%d two-player ratings (%v): the unrated game was rated", twos, err)
	}
}

// A search bot is rated per budget: the default budget keeps the plain
// kind (as before budgets were told apart), any other is a subject of its
// own, named with its budget on the leaderboard.
func TestRatingsPerSearchBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	a := uuid.NewString()
	applyRows(t, pool,
		finishedRow("azul", at, []string{a, "bot:search@1s"}, []int{10, 20}),
		finishedRow("azul", at.Add(time.Minute), []string{a, "bot:search@200ms"}, []int{30, 20}),
		finishedRow("azul", at.Add(2*time.Minute), []string{a, "bot:search"}, []int{30, 20}),
		finishedRow("azul", at.Add(3*time.Minute), []string{"bot:search@1s", "bot:search@10ms"}, []int{30, 20}))
	rows, err := pool.Query(ctx, `SELECT subject, bot, games FROM ratings WHERE player_id IS NULL ORDER BY subject`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var subject, bot string
		var games int
		err := r.Scan(&subject, &bot, &games)
		return fmt.Sprintf("%s %s %d", subject, bot, games), err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"bot:search search 2", "bot:search@10ms search@10ms 1", "bot:search@1s search@1s 2"}
	if !slices.Equal(got, want) {
		t.Fatalf("bot ratings %q, want %q", got, want)
	}
	for budget, subject := range map[string]string{"": "bot:search", "200ms": "bot:search", "0.2s": "bot:search", "2s": "bot:search@2s"} {
		if s := projections.BotSubjectOf("search", budget); s != subject {
			t.Errorf("BotSubjectOf(search, %q) = %q, want %q", budget, s, subject)
		}
	}
	if s := projections.BotSubjectOf("greedy", "1s"); s != "bot:greedy" {
		t.Errorf("a greedy bot's subject %q", s)
	}
}

// seedRatings writes ratings rows directly: n players of the azul rule
// set for players, the i-th with ordinal decreasing in i.
func seedRatings(tb testing.TB, pool *pgxpool.Pool, players, n int, at time.Time) []string {
	tb.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	if _, err := pool.Exec(context.Background(), `INSERT INTO ratings (ruleset, players, subject, player_id, mu, sigma, games, last_game_at)
		SELECT 'azul', $1, id, id::uuid, 40 - i * 0.01, CASE WHEN i % 5 = 4 THEN 6 ELSE 3 END, 10 + (i % 3) * 5, $3
		FROM unnest($2::text[]) WITH ORDINALITY AS s (id, i)`, players, ids, at); err != nil {
		tb.Fatal(err)
	}
	return ids
}

func TestListRatings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	now := time.Now()
	ids := seedRatings(t, pool, 2, 23, now.Add(-time.Hour))
	// An inactive player, a bot, and a player with a name.
	old := uuid.NewString()
	if _, err := pool.Exec(ctx, `INSERT INTO ratings (ruleset, players, subject, player_id, mu, sigma, games, last_game_at)
			VALUES ('azul', 2, $1::text, $1::uuid, 99, 1, 50, $2),
			('azul', 2, 'bot:greedy', NULL, 45, 3, 40, $3)`, old, now.Add(-projections.ActiveWithin-time.Hour), now.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE ratings SET bot = 'greedy' WHERE subject = 'bot:greedy'`); err != nil {
		t.Fatal(err)
	}
	var all []projections.RatingRow
	cursor := ""
	for pages := 0; ; pages++ {
		page, next, err := projections.ListRatings(ctx, pool, projections.Leaderboard{Ruleset: "azul", Players: 2, Limit: 5, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if next == "" {
			break
		}
		cursor = next
		if pages > 10 {
			t.Fatal("no end")
		}
	}
	// 23 players, every fifth provisional (sigma 6): 19 shown, and the bot.
	if len(all) != 19+1 {
		t.Fatalf("%d rows", len(all))
	}
	for i, r := range all {
		if r.Provisional || r.PlayerID == old {
			t.Errorf("row %d: %+v", i, r)
		}
		if i > 0 && r.Ordinal > all[i-1].Ordinal {
			t.Errorf("row %d out of order", i)
		}
	}
	if all[0].Bot != "greedy" || all[0].Name != "greedy" || all[1].PlayerID != ids[0] || all[1].Name != projections.FormerPlayer {
		t.Errorf("first rows %+v, %+v", all[0], all[1])
	}
	withProvisional, _, err := projections.ListRatings(ctx, pool, projections.Leaderboard{Ruleset: "azul", Players: 2, Limit: 100, Provisional: true})
	if err != nil || len(withProvisional) != 24 {
		t.Fatalf("with provisional: %d rows, %v", len(withProvisional), err)
	}
	if _, _, err := projections.ListRatings(ctx, pool, projections.Leaderboard{Ruleset: "azul", Players: 2, Cursor: "!!"}); err == nil {
		t.Error("a bad cursor was accepted")
	}
	mine, err := projections.PlayerRatings(ctx, pool, ids[0])
	if err != nil || len(mine) != 1 || mine[0].Players != 2 || mine[0].Games != 15 || mine[0].Provisional {
		t.Fatalf("player ratings %+v, %v", mine, err)
	}
}

// BenchmarkRateFinishedGame measures what rating a finished game adds to
// the follower's batch: rating_apply of a four-player game among players
// already rated, among 100,000 ratings, inside a transaction as the
// follower runs it (here one round trip each, which the follower's batch
// does not add).
func BenchmarkRateFinishedGame(b *testing.B) {
	ctx := context.Background()
	pool := newPool(b)
	ids := seedRatings(b, pool, 4, 100_000, time.Now())
	// As autovacuum would after such a load.
	if _, err := pool.Exec(ctx, `ANALYZE ratings`); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	p := rating.Default()
	tx, err := pool.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	const n = 4
	for b.Loop() {
		first := rng.IntN(len(ids) - n)
		subjects := ids[first : first+n]
		if _, err := tx.Exec(ctx, `SELECT rating_apply($1, 'azul', now(), $2, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			uuid.NewString(), subjects, make([]string, n), []int32{0, 1, 2, 3}, []int32{1, 2, 2, 4},
			p.Mu, p.Sigma, p.Beta, p.Kappa, p.Tau); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRerate rates a history of two-player games again, each game a
// player against another or against one of three bot kinds (so each bot
// plays a third of the games or more, as in a real history), the way a
// rebuild does (in memory, each rating written once) and the way it did
// before (rating_apply for each game, in one transaction: every game of
// a bot updated its row again, behind all its earlier versions). The
// figure is the time per game: flat as the history grows for a linear
// rerate.
func BenchmarkRerate(b *testing.B) {
	for _, n := range []int{1_000, 4_000, 16_000} {
		ctx := context.Background()
		pool := newPool(b)
		rows, versions := rerateHistory(b, pool, n)
		for _, way := range []struct {
			name string
			rate func(pgx.Tx) error
		}{
			{"in_memory", func(tx pgx.Tx) error { return projections.RerateRows(ctx, tx, rows, versions) }},
			{"rating_apply_each", func(tx pgx.Tx) error { return projections.RateEachRow(ctx, tx, rows) }},
		} {
			b.Run(fmt.Sprintf("games=%d/%s", n, way.name), func(b *testing.B) {
				for b.Loop() {
					tx, err := pool.Begin(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := tx.Exec(ctx, `DELETE FROM rating_history; DELETE FROM ratings`); err != nil {
						b.Fatal(err)
					}
					if err := way.rate(tx); err != nil {
						b.Fatal(err)
					}
					if err := tx.Rollback(ctx); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/game")
			})
		}
	}
}

// rerateHistory makes n finished two-player games among 200 players and
// three bot kinds: their rows, and one event each (version 1) for the
// rerate's ordering.
func rerateHistory(b *testing.B, pool *pgxpool.Pool, n int) ([]projections.GameRow, []int64) {
	b.Helper()
	rng := rand.New(rand.NewPCG(3, uint64(n)))
	players := make([]string, 200)
	for i := range players {
		players[i] = uuid.NewString()
	}
	bots := []string{"random", "greedy", "search"}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]projections.GameRow, n)
	ids := make([]string, n)
	versions := make([]int64, n)
	for i := range rows {
		a := players[rng.IntN(len(players))]
		other := "bot:" + bots[rng.IntN(len(bots))]
		if rng.IntN(3) == 0 {
			if other = players[rng.IntN(len(players))]; other == a {
				other = "bot:" + bots[0]
			}
		}
		rows[i] = finishedRow("azul", at.Add(time.Duration(i)*time.Minute), []string{a, other}, []int{rng.IntN(80), rng.IntN(80)})
		ids[i], versions[i] = rows[i].ID, 1
	}
	if _, err := pool.Exec(context.Background(), `INSERT INTO events (stream_id, version, type, schema_version, data, meta)
		SELECT id, 1, 'game.created', 1, '{}', '{}' FROM unnest($1::uuid[]) AS id`, ids); err != nil {
		b.Fatal(err)
	}
	return rows, versions
}
