package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
)

// benchEventData is a typical event of about 300 bytes of JSON, the same
// payload as bench/insert.sql inserts for the pgbench baseline.
var benchEventData = json.RawMessage(`{"seat": 1, "source": 3, "color": "red", "count": 3, "line": 4, "to_line": 3, "to_floor": 0, "to_center": {"blue": 1, "black": 0, "yellow": 1}, "marker": false, "drawn": ["red", "red", "blue", "yellow", "black", "white", "red", "blue"], "wild": "orange", "n": "F4 red 4", "round": 3}`)

// BenchmarkAppend measures single-event appends (no hook, no idempotency
// key) by 1, 8 and 32 concurrent writers, each on its own game.
// BenchmarkAppendVsPgbench compares the same appends with pgbench.
func BenchmarkAppend(b *testing.B) {
	for _, writers := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			benchmarkAppend(b, writers, false, false)
		})
	}
	// With an idempotency key on every append, as for commands that
	// carry one; and with a hook, in an explicit transaction (BEGIN,
	// append, hook, COMMIT), as the command path appends.
	b.Run("writers=8/idempotent", func(b *testing.B) { benchmarkAppend(b, 8, true, false) })
	b.Run("writers=8/hook", func(b *testing.B) { benchmarkAppend(b, 8, false, true) })
}

func benchmarkAppend(b *testing.B, writers int, keyed, hook bool) {
	ctx := context.Background()
	pool := newPool(b, int32(writers))
	store := events.NewStore(pool)
	meta := testMeta(1)
	// Create the streams and warm the connections up outside the timing.
	streams := make([]string, writers)
	var wg sync.WaitGroup
	for w := range writers {
		streams[w] = newStreamID()
		wg.Go(func() {
			if _, err := store.Append(ctx, events.AppendRequest{StreamID: streams[w], Meta: meta,
				Events: []events.NewEvent{{Type: "game.created", Schema: 1, Data: benchEventData}}}); err != nil {
				b.Error(err)
			}
		})
	}
	wg.Wait()

	var next atomic.Int64
	b.ResetTimer()
	start := time.Now()
	for w := range writers {
		wg.Go(func() {
			version := int64(1)
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				req := events.AppendRequest{
					StreamID: streams[w], ExpectedVersion: version, Meta: meta,
					Events: []events.NewEvent{{Type: "tiles_taken", Schema: 1, Data: benchEventData}},
				}
				if keyed {
					req.IdempotencyScope, req.IdempotencyKey, req.RequestHash = "bench", fmt.Sprintf("%s-%d", streams[w], version), "h"
				}
				if hook {
					req.Hook = func(context.Context, pgx.Tx, []events.Record) error { return nil }
				}
				if _, err := store.Append(ctx, req); err != nil {
					b.Error(err)
					return
				}
				version++
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "appends/s")
}

// BenchmarkAppendVsPgbench compares, on one server and in one run,
// single-event appends by 1, 8 and 32 writers (each on its own game, no
// hook, no idempotency key) with pgbench running bench/insert.sql, a bare
// single-row INSERT of the same ~300-byte payload as jsonb, by as many
// clients. The two alternate in windows of AZUL_BENCH_SECONDS (default 3)
// seconds, three times, so that other load on the machine hits both
// alike; it reports the medians and ratio = appends/s ÷ inserts/s.
// A third contender shows the client's share: the same bare INSERT sent
// from Go through pgx (pgx-inserts/s, pgx-ratio = its rate ÷ pgbench's).
func BenchmarkAppendVsPgbench(b *testing.B) {
	pgbench, err := findPgbench()
	if err != nil {
		b.Fatal(err)
	}
	window := 3 * time.Second
	if s := os.Getenv("AZUL_BENCH_SECONDS"); s != "" {
		secs, err := strconv.Atoi(s)
		if err != nil || secs < 1 {
			b.Fatalf("AZUL_BENCH_SECONDS=%q: want a whole number of seconds", s)
		}
		window = time.Duration(secs) * time.Second
	}
	setup, err := os.ReadFile(filepath.Join("bench", "setup.sql"))
	if err != nil {
		b.Fatal(err)
	}
	for _, writers := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			url, pool := newDB(b, int32(writers))
			if _, err := pool.Exec(context.Background(), string(setup)); err != nil {
				b.Fatal(err)
			}
			store := events.NewStore(pool)
			for range b.N {
				var appends, inserts, pgxInserts []float64
				for range 3 {
					rate, err := runPgbench(pgbench, url, writers, window)
					if err != nil {
						b.Fatal(err)
					}
					inserts = append(inserts, rate)
					appends = append(appends, timedAppends(b, store, writers, window))
					pgxInserts = append(pgxInserts, timedBareInserts(b, pool, writers, window))
				}
				slices.Sort(appends)
				slices.Sort(inserts)
				slices.Sort(pgxInserts)
				b.ReportMetric(appends[1], "appends/s")
				b.ReportMetric(inserts[1], "pgbench-inserts/s")
				b.ReportMetric(appends[1]/inserts[1], "ratio")
				b.ReportMetric(pgxInserts[1], "pgx-inserts/s")
				b.ReportMetric(pgxInserts[1]/inserts[1], "pgx-ratio")
			}
		})
	}
}

// timedAppends appends single events with writers goroutines, each on a
// game of its own, for d, and returns the appends per second.
func timedAppends(b *testing.B, store *events.Store, writers int, d time.Duration) float64 {
	ctx := context.Background()
	meta := testMeta(1)
	var done atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for range writers {
		wg.Go(func() {
			id := newStreamID()
			for v := int64(0); time.Now().Before(deadline); v++ {
				if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, ExpectedVersion: v, Meta: meta,
					Events: []events.NewEvent{{Type: "tiles_taken", Schema: 1, Data: benchEventData}}}); err != nil {
					b.Error(err)
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	return float64(done.Load()) / time.Since(start).Seconds()
}

// timedBareInserts runs the INSERT of bench/insert.sql from Go, through
// pgx, with writers goroutines for d, and returns the inserts per second.
func timedBareInserts(b *testing.B, pool *pgxpool.Pool, writers int, d time.Duration) float64 {
	ctx := context.Background()
	var done atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for range writers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if _, err := pool.Exec(ctx, `INSERT INTO azuld_bench_insert.bench_insert (data) VALUES ($1::jsonb)`, string(benchEventData)); err != nil {
					b.Error(err)
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	return float64(done.Load()) / time.Since(start).Seconds()
}

// runPgbench runs bench/insert.sql with clients clients for d against the
// database at url and returns its transactions per second.
func runPgbench(pgbench, url string, clients int, d time.Duration) (float64, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return 0, err
	}
	// pgbench reads the connection from libpq's environment.
	env := append(os.Environ(),
		"PGHOST="+cfg.Host, "PGPORT="+strconv.Itoa(int(cfg.Port)), "PGUSER="+cfg.User,
		"PGPASSWORD="+cfg.Password, "PGDATABASE="+cfg.Database,
		"PGOPTIONS=-c search_path=azuld_bench_insert")
	if cfg.TLSConfig == nil {
		env = append(env, "PGSSLMODE=disable")
	}
	n := strconv.Itoa(clients)
	cmd := exec.Command(pgbench, "-n", "-M", "prepared", "-f", filepath.Join("bench", "insert.sql"),
		"-c", n, "-j", n, "-T", strconv.Itoa(int(d/time.Second)))
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("pgbench: %w\n%s", err, out)
	}
	return pgbenchTPS(out)
}

// findPgbench looks for pgbench on PATH, then next to the server
// binaries pgtest uses.
func findPgbench() (string, error) {
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p, nil
	}
	candidates := []string{}
	if dir := os.Getenv("AZUL_PG_BIN"); dir != "" {
		candidates = append(candidates, filepath.Join(dir, "pgbench"))
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	candidates = append(candidates, found...)
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		}
	}
	return "", errors.New("pgbench not found on PATH, in AZUL_PG_BIN or /usr/lib/postgresql/*/bin")
}

// pgbenchTPS reads "tps = 1234.5 (without initial connection time)".
func pgbenchTPS(out []byte) (float64, error) {
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "tps = "); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				return strconv.ParseFloat(f[0], 64)
			}
		}
	}
	return 0, fmt.Errorf("no tps in the pgbench output:\n%s", out)
}

// BenchmarkLoad reads a game from PostgreSQL and reports the median
// (p50-ms) and 99th percentile (p99-ms) time of one load:
//
//   - pavilion-4p: a complete random 4-player Summer Pavilion game, read
//     as records, and folded through the engine into its state from the
//     first event or from the latest snapshot (written every 64 events,
//     as the command path does);
//   - events=400: a stream of 400 events of ~300 bytes, read whole, or
//     from a snapshot at 384 (the latest of every 64) and the 16 events
//     after it, with a trivial fold.
func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	pool := newPool(b, 4)
	store := events.NewStore(pool)

	g := playRandomGame(b, engine.Config{Ruleset: "summer-pavilion", Players: 4}, rand.New(rand.NewPCG(1, 2)))
	game := appendGame(b, store, g)
	n := int64(g.events())
	withSnapshot := engineFolding(g.rules, 0)
	if _, err := events.LoadState(ctx, store, game, n/64*64, engineFolding(g.rules, 64)); err != nil {
		b.Fatal(err)
	}
	noSnapshot := withSnapshot
	noSnapshot.Decode = nil

	long := newStreamID()
	for v := int64(0); v < 400; v += 2 {
		batch := []events.NewEvent{{Type: "tiles_taken", Schema: 1, Data: benchEventData}, {Type: "tiles_placed", Schema: 1, Data: benchEventData}}
		if _, err := store.Append(ctx, events.AppendRequest{StreamID: long, ExpectedVersion: v, Events: batch, Meta: testMeta(int(v) % 4)}); err != nil {
			b.Fatal(err)
		}
	}
	counting := events.Folding[int]{
		Format: 1,
		Fold:   func(s int, recs []events.Record) (int, error) { return s + len(recs), nil },
		Decode: func(data []byte) (int, error) { return strconv.Atoi(string(data)) },
	}
	if err := store.SaveSnapshot(ctx, long, 384, 1, []byte("384")); err != nil {
		b.Fatal(err)
	}
	countingNoSnapshot := counting
	countingNoSnapshot.Decode = nil

	for _, bc := range []struct {
		name string
		load func() (int64, error)
		want int64
	}{
		{fmt.Sprintf("pavilion-4p/events=%d/records", n), func() (int64, error) {
			recs, err := store.Load(ctx, game, 0, 0)
			return int64(len(recs)), err
		}, n},
		{fmt.Sprintf("pavilion-4p/events=%d/state/no-snapshot", n), func() (int64, error) {
			l, err := events.LoadState(ctx, store, game, 0, noSnapshot)
			return l.Version, err
		}, n},
		{fmt.Sprintf("pavilion-4p/events=%d/state/snapshot=%d", n, n/64*64), func() (int64, error) {
			l, err := events.LoadState(ctx, store, game, 0, withSnapshot)
			if err == nil && l.SnapshotVersion != n/64*64 {
				return 0, fmt.Errorf("loaded from the snapshot at %d", l.SnapshotVersion)
			}
			return l.Version, err
		}, n},
		{"events=400/no-snapshot", func() (int64, error) {
			l, err := events.LoadState(ctx, store, long, 0, countingNoSnapshot)
			return int64(l.State), err
		}, 400},
		{"events=400/snapshot=384", func() (int64, error) {
			l, err := events.LoadState(ctx, store, long, 0, counting)
			return int64(l.State), err
		}, 400},
	} {
		b.Run(bc.name, func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				got, err := bc.load()
				times = append(times, time.Since(start))
				if err != nil || got != bc.want {
					b.Fatalf("loaded %d, want %d: %v", got, bc.want, err)
				}
			}
			b.StopTimer()
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
