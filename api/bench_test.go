package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/pgcluster"
)

// benchClient plays its own games through HTTP. It folds the events each
// move returns into its own copy of the state (as a smart client would),
// so every request it times is a move.
type benchClient struct {
	env   *testEnv
	hc    *http.Client
	token string
	rules engine.Rules
	rng   *rand.Rand
	// games are created before the clock starts.
	games []string

	id      string
	state   engine.State
	version int64
	// latencies of the move requests.
	latencies []time.Duration
	// answered is when each move's answer came, by game and version.
	answered map[gameVersion]time.Time
}

// gameVersion names a game at a version.
type gameVersion struct {
	game    string
	version int64
}

func (c *benchClient) post(path string, body []byte, ifMatch int64) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, c.env.http.URL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	if ifMatch > 0 {
		req.Header.Set("If-Match", strconv.FormatInt(ifMatch, 10))
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	return res.StatusCode, data, err
}

// createGame creates a two-seat azul-mini game held by this client.
func (c *benchClient) createGame() (string, error) {
	body := []byte(`{"ruleset":"azul-mini","seats":[{"player":"me"},{"player":"me"}]}`)
	status, data, err := c.post("/v1/games", body, 0)
	if err != nil || status != http.StatusCreated {
		return "", fmt.Errorf("create game: %d %s %v", status, data, err)
	}
	var g struct {
		ID string `json:"id"`
	}
	return g.ID, json.Unmarshal(data, &g)
}

// startGame loads the next prepared game and folds its events.
func (c *benchClient) startGame() error {
	if len(c.games) == 0 {
		id, err := c.createGame()
		if err != nil {
			return err
		}
		c.games = append(c.games, id)
	}
	c.id, c.games = c.games[0], c.games[1:]
	res, err := c.hc.Get(c.env.http.URL + "/v1/games/" + c.id + "/events?limit=1000")
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var page eventsPage
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
		return err
	}
	c.state, c.version = nil, 0
	return c.fold(page.Events)
}

func (c *benchClient) fold(recs []events.Record) error {
	for _, r := range recs {
		c.version = r.Version
		if strings.Contains(r.Type, ".") {
			continue
		}
		e, err := c.rules.DecodeEvent(r.Type, r.Schema, r.Data)
		if err != nil {
			return err
		}
		if c.state, err = c.rules.Evolve(c.state, e); err != nil {
			return err
		}
	}
	return nil
}

// move makes one random legal move and times the request.
func (c *benchClient) move() error {
	if c.state == nil || c.state.Over() {
		if err := c.startGame(); err != nil {
			return err
		}
	}
	seat := c.state.ToAct()[0]
	moves := c.state.LegalMoves(seat)
	m := moves[c.rng.IntN(len(moves))]
	start := time.Now()
	status, data, err := c.post("/v1/games/"+c.id+"/moves", m.JSON, c.version)
	answered := time.Now()
	c.latencies = append(c.latencies, answered.Sub(start))
	if err != nil || status != http.StatusCreated {
		return fmt.Errorf("move %s at %d: %d %s %v", m.Notation, c.version, status, data, err)
	}
	var mr moveResponse
	if err := json.Unmarshal(data, &mr); err != nil {
		return err
	}
	c.answered[gameVersion{c.id, mr.Version}] = answered
	return c.fold(mr.Events)
}

// BenchmarkMovesEndToEnd measures moves per second through the whole
// path (HTTP, load, decide, the append's one statement with the games
// row, response) with 1, 8 and 32 concurrent clients, each playing its
// own games, the p50/p99 request latency, and the p50/p99 lag of the
// follower of the log (from a move to its turn inbox rows and jobs). On the same database it then runs the pgbench
// baseline of a bare version-checked append (bench/baseline.sql) with as
// many clients, and reports the ratio moves/s ÷ baseline tps.
func BenchmarkMovesEndToEnd(b *testing.B) {
	for _, clients := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			benchMoves(b, clients)
		})
	}
}

// benchPoolSize is the connection pool of the server under test: azuld's
// default (--db-max-conns).
const benchPoolSize = 16

func benchMoves(b *testing.B, clients int, opts ...func(*setup)) {
	env := newBenchEnv(b, opts...)
	transport := &http.Transport{MaxIdleConnsPerHost: clients + 1, MaxConnsPerHost: clients + 1}
	b.Cleanup(transport.CloseIdleConnections)
	hc := &http.Client{Transport: transport}
	perClient := (b.N + clients - 1) / clients
	// An azul-mini game of random moves lasts a few dozen moves.
	gamesPerClient := perClient/25 + 1
	cs := make([]*benchClient, clients)
	for i := range cs {
		p := env.register(b, fmt.Sprintf("Bench%d", i))
		c := &benchClient{env: env, hc: hc, token: p.token, rules: env.rules["azul-mini"], rng: rand.New(rand.NewPCG(uint64(i), 7)),
			answered: map[gameVersion]time.Time{}}
		for range gamesPerClient {
			id, err := c.createGame()
			if err != nil {
				b.Fatal(err)
			}
			c.games = append(c.games, id)
		}
		if err := c.startGame(); err != nil {
			b.Fatal(err)
		}
		cs[i] = c
	}

	env.caughtUp(b)
	env.lags.take()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i, c := range cs {
		n := perClient
		if i == clients-1 {
			n = b.N - perClient*(clients-1)
		}
		wg.Go(func() {
			for range n {
				if err := c.move(); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}

	var all []time.Duration
	for _, c := range cs {
		all = append(all, c.latencies...)
	}
	slices.Sort(all)
	movesPerSec := float64(len(all)) / elapsed.Seconds()
	b.ReportMetric(movesPerSec, "moves/s")
	b.ReportMetric(ms(percentile(all, 0.50)), "p50-ms")
	b.ReportMetric(ms(percentile(all, 0.99)), "p99-ms")
	// The follower of the log under this load: from each move's commit
	// (its answer came after it) to the commit of its inbox rows and
	// jobs, and, as azuld_outbox_lag_seconds counts it, from the move's
	// events' time (which adds the move's own wait for its commit).
	env.caughtUp(b)
	var lags, fromEvents []time.Duration
	for _, f := range env.lags.take() {
		fromEvents = append(fromEvents, f.Lag())
		for _, c := range cs {
			if at, ok := c.answered[gameVersion{f.GameID, f.Version}]; ok {
				lags = append(lags, max(0, f.Done.Sub(at)))
			}
		}
	}
	slices.Sort(lags)
	slices.Sort(fromEvents)
	b.ReportMetric(ms(percentile(lags, 0.50)), "lag-p50-ms")
	b.ReportMetric(ms(percentile(lags, 0.99)), "lag-p99-ms")
	b.ReportMetric(ms(percentile(fromEvents, 0.99)), "lag-events-p99-ms")

	// The baseline needs enough transactions to mean something, whatever
	// b.N was.
	if len(all) >= 200 {
		tps := pgbenchBaseline(b, env.url, clients, 5*time.Second)
		b.ReportMetric(tps, "baseline-tps")
		b.ReportMetric(movesPerSec/tps, "ratio")
	}
}

// newBenchEnv is a test server whose pool has azuld's default size
// rather than pgxpool's (the CPU count).
func newBenchEnv(b *testing.B, opts ...func(*setup)) *testEnv {
	b.Helper()
	return newTestEnvAt(b, pg.NewDatabase(b), benchPoolSize, opts...)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

// tpsLine is pgbench's result line.
var tpsLine = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// pgbenchBaseline runs bench/baseline.sql with pgbench against the
// database for the given time and returns its transactions per second.
func pgbenchBaseline(b *testing.B, dbURL string, clients int, d time.Duration) float64 {
	b.Helper()
	ctx := context.Background()
	setup, err := os.ReadFile(filepath.Join("bench", "setup.sql"))
	if err != nil {
		b.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, string(setup)); err != nil {
		b.Fatalf("baseline setup: %v", err)
	}
	pgbench, err := findPgbench(ctx)
	if err != nil {
		b.Fatal(err)
	}
	sep := "?"
	if strings.Contains(dbURL, "?") {
		sep = "&"
	}
	benchURL := dbURL + sep + "options=-csearch_path%3Dazuld_bench"
	n := strconv.Itoa(clients)
	cmd := exec.CommandContext(ctx, pgbench, "-n", "-M", "prepared", "-f", filepath.Join("bench", "baseline.sql"),
		"-c", n, "-j", n, "-T", strconv.Itoa(int(d.Seconds())), benchURL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("pgbench: %v\n%s", err, out)
	}
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		b.Fatalf("no tps in pgbench's output:\n%s", out)
	}
	tps, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "DROP SCHEMA azuld_bench CASCADE"); err != nil {
		b.Fatal(err)
	}
	return tps
}

// findPgbench looks next to the PostgreSQL server binaries, then on PATH.
func findPgbench(ctx context.Context) (string, error) {
	if dir, err := pgcluster.FindBinDir(ctx, os.Getenv("AZUL_PG_BIN")); err == nil {
		if p := filepath.Join(dir, "pgbench"); fileExists(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath("pgbench")
	if err != nil {
		return "", fmt.Errorf("the baseline needs pgbench (PostgreSQL's contrib/client package): %w", err)
	}
	return p, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
