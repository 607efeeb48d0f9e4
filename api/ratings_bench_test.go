package api

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// seedRatedPlayers writes n players, each with a rating in azul-mini for
// two players (and every tenth also for three), straight into the tables,
// as if they had played: what the leaderboard and the profiles read. It
// returns the players' ids. ownerURL's role analyses the tables, as
// autovacuum would after such a load (the server's role may not).
func seedRatedPlayers(tb testing.TB, env *testEnv, ownerURL string, n int) []string {
	tb.Helper()
	ctx := context.Background()
	var ids []string
	rows, err := env.pool.Query(ctx, `INSERT INTO players (name, email)
		SELECT 'Player ' || i, 'p' || i || '@example.org' FROM generate_series(1, $1) AS i RETURNING id::text`, n)
	if err != nil {
		tb.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	for _, q := range []string{`INSERT INTO ratings (ruleset, players, subject, player_id, mu, sigma, games, last_game_at)
		SELECT 'azul-mini', 2, id, id::uuid, 10 + 30 * random(), 1 + 5 * random(), 1 + (random() * 60)::int,
			now() - random() * interval '120 days'
		FROM unnest($1::text[]) AS id`,
		`INSERT INTO ratings (ruleset, players, subject, player_id, mu, sigma, games, last_game_at)
		SELECT 'azul-mini', 3, id, id::uuid, 10 + 30 * random(), 1 + 5 * random(), 1 + (random() * 60)::int, now()
		FROM unnest($1::text[]) WITH ORDINALITY AS s (id, i) WHERE i % 10 = 0`} {
		if _, err := env.pool.Exec(ctx, q, ids); err != nil {
			tb.Fatal(err)
		}
	}
	owner, err := pgx.Connect(ctx, ownerURL)
	if err != nil {
		tb.Fatal(err)
	}
	defer owner.Close(ctx)
	if _, err := owner.Exec(ctx, `ANALYZE ratings; ANALYZE players`); err != nil {
		tb.Fatal(err)
	}
	return ids
}

// getTimed GETs a path and returns the time to its whole answer.
func getTimed(tb testing.TB, hc *http.Client, url string) time.Duration {
	start := time.Now()
	res, err := hc.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	d := time.Since(start)
	if err != nil || res.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
	}
	return d
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(p(0.5), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkRatingsReads serves the leaderboard (first pages and pages deep
// in it) and players' ratings with 100,000 rated players, one request at
// a time over HTTP, and reports their latency percentiles.
func BenchmarkRatingsReads(b *testing.B) {
	ownerURL := pg.NewDatabase(b)
	env := newTestEnvAt(b, pg.ServerRoleURL(b, ownerURL), 0)
	ids := seedRatedPlayers(b, env, ownerURL, 100_000)
	hc := env.http.Client()
	base := env.http.URL
	// A cursor deep in the board: page 40 of 50.
	next := "/v1/ratings?ruleset=azul-mini&players=2"
	for range 40 {
		var page struct {
			Next string `json:"next"`
		}
		env.anonymous(b).call(http.MethodGet, next, nil).mustStatus(b, http.StatusOK).decode(b, &page)
		next = page.Next
	}
	deep := next
	rng := rand.New(rand.NewPCG(1, 2))
	b.Run("leaderboard", func(b *testing.B) {
		var lat []time.Duration
		for b.Loop() {
			path := "/v1/ratings?ruleset=azul-mini&players=2"
			switch rng.IntN(4) {
			case 0:
				path = deep
			case 1:
				path += "&provisional=1"
			case 2:
				path = "/v1/ratings?ruleset=azul-mini&players=3&limit=200"
			}
			lat = append(lat, getTimed(b, hc, base+path))
		}
		reportPercentiles(b, lat)
	})
	b.Run("player-ratings", func(b *testing.B) {
		var lat []time.Duration
		for b.Loop() {
			lat = append(lat, getTimed(b, hc, base+"/v1/players/"+ids[rng.IntN(len(ids))]+"/ratings"))
		}
		reportPercentiles(b, lat)
	})
	// The whole profile: name, ratings, results by rule set, recent and
	// running games, as the profile page reads it.
	b.Run("profile", func(b *testing.B) {
		var lat []time.Duration
		for b.Loop() {
			lat = append(lat, getTimed(b, hc, base+"/v1/players/"+ids[rng.IntN(len(ids))]))
		}
		reportPercentiles(b, lat)
	})
}
