package pgtest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pg is this package's own harness, with seedTemplate as its template.
var pg *Harness

// noEngine is an engine address nothing listens on, whether or not Docker
// runs here.
const noEngine = "unix:///nonexistent/azul/docker.sock"

func TestMain(m *testing.M) {
	os.Exit(Main(m, Options{Template: seedTemplate}, &pg))
}

// seedTemplate creates a table with one row whose id is random: a database
// copied from the template has that very id, one migrated anew would not.
func seedTemplate(ctx context.Context, dbURL string) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE TABLE seeded (id uuid NOT NULL DEFAULT gen_random_uuid(), note text NOT NULL);
		INSERT INTO seeded (note) VALUES ('from the template')`)
	return err
}

func connect(t testing.TB, dbURL string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// databaseExists asks the server of admin whether name exists.
func databaseExists(t *testing.T, admin, name string) bool {
	t.Helper()
	var exists bool
	err := connect(t, admin).QueryRow(context.Background(),
		"SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	if err != nil {
		t.Fatal(err)
	}
	return exists
}

func databaseName(t *testing.T, dbURL string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Database
}

func TestParallelDatabasesAreIsolatedCopiesOfTheTemplate(t *testing.T) {
	t.Parallel()
	const n = 6
	var (
		mu    sync.Mutex
		names = map[string]bool{}
		ids   = map[string]bool{}
	)
	t.Run("group", func(t *testing.T) {
		for i := range n {
			t.Run(fmt.Sprint("db", i), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				dbURL := pg.NewDatabase(t)
				conn := connect(t, dbURL)

				var current, id string
				if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&current); err != nil {
					t.Fatal(err)
				}
				if current != databaseName(t, dbURL) {
					t.Fatalf("connected to %q, the URL names %q", current, databaseName(t, dbURL))
				}
				if err := conn.QueryRow(ctx, "SELECT id::text FROM seeded WHERE note = 'from the template'").Scan(&id); err != nil {
					t.Fatalf("the template's row is missing: %v", err)
				}
				if _, err := conn.Exec(ctx, "INSERT INTO seeded (note) VALUES ($1)", t.Name()); err != nil {
					t.Fatal(err)
				}
				// Only the template's row and this test's own: no other test's rows.
				var count int
				if err := conn.QueryRow(ctx, "SELECT count(*) FROM seeded").Scan(&count); err != nil || count != 2 {
					t.Fatalf("rows in seeded: %d, %v; want 2 (other tests' rows leaked in?)", count, err)
				}
				mu.Lock()
				names[current] = true
				ids[id] = true
				mu.Unlock()
			})
		}
	})
	if len(names) != n {
		t.Errorf("%d distinct databases for %d tests", len(names), n)
	}
	// The template ran once: every copy holds the same random id.
	if len(ids) != 1 {
		t.Errorf("the template row has %d different ids across databases, want 1 (template applied once, then copied)", len(ids))
	}
	for name := range names {
		if databaseExists(t, pg.AdminURL(), name) {
			t.Errorf("database %s still exists after its test ended", name)
		}
	}
}

func TestDatabaseDroppedEvenWithConnectionsLeftOpen(t *testing.T) {
	t.Parallel()
	var name string
	var leaked *pgx.Conn
	t.Run("leaky", func(t *testing.T) {
		dbURL := pg.NewDatabase(t)
		name = databaseName(t, dbURL)
		var err error
		// Deliberately not closed before the test ends.
		if leaked, err = pgx.Connect(context.Background(), dbURL); err != nil {
			t.Fatal(err)
		}
	})
	defer leaked.Close(context.Background())
	if name == "" || databaseExists(t, pg.AdminURL(), name) {
		t.Fatalf("database %q was not dropped at the end of its test", name)
	}
	if err := leaked.Ping(context.Background()); err == nil {
		t.Error("the leaked connection still works; dropping should have ended it")
	}
}

func TestEnvURLSource(t *testing.T) {
	// Not parallel: it sets the environment. The server named by the
	// variable is the one this binary started for pg.
	t.Setenv(EnvDatabaseURL, pg.AdminURL())
	ctx := context.Background()
	var left *pgx.Conn
	h, err := Start(ctx, Options{
		Template: func(ctx context.Context, dbURL string) error {
			conn, err := pgx.Connect(ctx, dbURL)
			if err != nil {
				return err
			}
			left = conn // left open on purpose: Start must still make a usable template
			_, err = conn.Exec(ctx, "CREATE TABLE from_env (v int); INSERT INTO from_env VALUES (42)")
			return err
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatalf("Start with %s: %v", EnvDatabaseURL, err)
	}
	defer left.Close(ctx)
	if h.Source() != SourceEnv || h.AdminURL() != pg.AdminURL() {
		t.Fatalf("source %q, admin %q; want the server of %s", h.Source(), h.AdminURL(), EnvDatabaseURL)
	}

	var name string
	t.Run("use", func(t *testing.T) {
		dbURL := h.NewDatabase(t)
		name = databaseName(t, dbURL)
		if !databaseExists(t, pg.AdminURL(), name) {
			t.Fatalf("database %s is not on the server of %s", name, EnvDatabaseURL)
		}
		var v int
		if err := connect(t, dbURL).QueryRow(ctx, "SELECT v FROM from_env").Scan(&v); err != nil || v != 42 {
			t.Fatalf("template table in the new database: %d, %v", v, err)
		}
	})
	if databaseExists(t, pg.AdminURL(), name) {
		t.Errorf("database %s outlived its test", name)
	}

	template := h.template
	if err := h.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if databaseExists(t, pg.AdminURL(), template) {
		t.Errorf("template %s outlived Close", template)
	}
	// Close must not stop a server it did not start.
	if err := connect(t, pg.AdminURL()).Ping(ctx); err != nil {
		t.Fatalf("the server of %s is gone after Close: %v", EnvDatabaseURL, err)
	}
}

func TestEnvURLUnusableFailsInsteadOfFallingBack(t *testing.T) {
	t.Setenv(EnvDatabaseURL, "postgres://nobody:secret-pw@127.0.0.1:1/x?connect_timeout=5")
	_, err := Start(context.Background(), Options{Logger: slog.New(slog.DiscardHandler)})
	if err == nil || !strings.Contains(err.Error(), EnvDatabaseURL+" is set but unusable") {
		t.Fatalf("Start with an unreachable %s: %v", EnvDatabaseURL, err)
	}
	if strings.Contains(err.Error(), "secret-pw") {
		t.Errorf("the error shows the password: %v", err)
	}
}

func TestTemplateFailureLeavesNothingBehind(t *testing.T) {
	t.Setenv(EnvDatabaseURL, pg.AdminURL())
	ctx := context.Background()
	countTemplates := func() int {
		var n int
		err := connect(t, pg.AdminURL()).QueryRow(ctx,
			"SELECT count(*) FROM pg_database WHERE datname LIKE 'azt\\_%\\_template'").Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := countTemplates()
	boom := errors.New("migration 3 failed")
	_, err := Start(ctx, Options{
		Template: func(context.Context, string) error { return boom },
		Logger:   slog.New(slog.DiscardHandler),
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "template setup") {
		t.Fatalf("Start with a failing template: %v; want the template's error", err)
	}
	if after := countTemplates(); after != before {
		t.Errorf("template databases: %d before, %d after a failed setup", before, after)
	}
}

func TestAllSourcesFailingListsEachReason(t *testing.T) {
	t.Setenv(EnvDatabaseURL, "")
	t.Setenv(EnvBinDir, "/nonexistent/postgresql/bin")
	_, err := Start(context.Background(), Options{DisableContainer: true, Logger: slog.New(slog.DiscardHandler)})
	if err == nil {
		t.Fatal("Start succeeded with no source of PostgreSQL")
	}
	for _, want := range []string{
		EnvDatabaseURL + " is not set",
		"testcontainers: disabled",
		"local cluster:",
		"/nonexistent/postgresql/bin",
		"apt-get install postgresql",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestFallsThroughToLocalClusterWhenNoEngineAnswers(t *testing.T) {
	t.Setenv(EnvDatabaseURL, "")
	t.Setenv("DOCKER_HOST", noEngine)
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil))
	ctx := context.Background()
	h, err := Start(ctx, Options{Logger: logger})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	// A cleanup, not a defer: it must run after NewDatabase's cleanup drops the database.
	t.Cleanup(func() {
		if err := h.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if h.Source() != SourceLocal {
		t.Fatalf("source %q, want %q", h.Source(), SourceLocal)
	}
	logMu.Lock()
	text := logs.String()
	logMu.Unlock()
	if !strings.Contains(text, "no PostgreSQL container") || !strings.Contains(text, "no Docker engine answers at DOCKER_HOST") {
		t.Errorf("the reason for skipping containers was not logged:\n%s", text)
	}
	var one int
	if err := connect(t, h.NewDatabase(t)).QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("database on the local cluster: %d, %v", one, err)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// DOCKER_HOST names the engine to use: one that does not answer is a
// reason to fall back, not a cue to look for another engine elsewhere.
func TestProbeEngineFailsWithoutEngine(t *testing.T) {
	t.Setenv("DOCKER_HOST", noEngine)
	tcLog := testcontainersLogger(slog.New(slog.DiscardHandler))
	provider, err := probeEngine(context.Background(), tcLog)
	if err == nil {
		_ = provider.Close()
		t.Fatal("probeEngine found an engine at a socket that does not exist")
	}
	if !strings.Contains(err.Error(), "no Docker engine answers at DOCKER_HOST="+noEngine) {
		t.Fatalf("probeEngine without an engine: %v", err)
	}
}

// An image the engine lacks and cannot pull is a reason given at once,
// naming the image; on a machine without an engine, the reason is that.
func TestMissingImageFailsWithTheReason(t *testing.T) {
	const image = "azuld-local/no-such-image:0"
	t.Setenv(EnvImage, image)
	h, err := startContainer(context.Background(), Options{}, slog.New(slog.DiscardHandler))
	if err == nil {
		_ = h.Close(context.Background())
		t.Fatalf("a container of %s started", image)
	}
	msg := err.Error()
	if !strings.Contains(msg, "no Docker engine answers") &&
		!(strings.Contains(msg, image) && strings.Contains(msg, "pulling it failed") && strings.Contains(msg, "scripts/images/build.sh")) {
		t.Fatalf("unclear reason: %v", err)
	}
}

func TestNewNameIsAValidUniqueIdentifier(t *testing.T) {
	t.Parallel()
	h := &Harness{prefix: namePrefix + "0badcafe_"}
	valid := regexp.MustCompile(`^azt_0badcafe_[0-9]+(_[a-z0-9_]*)?$`)
	seen := map[string]bool{}
	for _, testName := range []string{
		"TestX",
		"TestX",
		"TestAppend/concurrent_appends/#01",
		"TestÜmlaut/ünïcode—dash",
		strings.Repeat("TestVeryLongName", 10),
		"",
	} {
		name := h.newName(testName)
		if len(name) > 63 || !valid.MatchString(name) || strings.HasSuffix(name, "_") {
			t.Errorf("newName(%q) = %q: not a short plain identifier", testName, name)
		}
		if seen[name] {
			t.Errorf("newName(%q) = %q repeats an earlier name", testName, name)
		}
		seen[name] = true
	}
}

func TestDBURL(t *testing.T) {
	t.Parallel()
	got, err := dbURL("postgres://u:p%40ss@host:5432/admin?sslmode=disable", "azt_1")
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	if u.Path != "/azt_1" || pw != "p@ss" || u.Host != "host:5432" || u.Query().Get("sslmode") != "disable" {
		t.Errorf("URL form: %s; want the same URL with database azt_1", got)
	}

	got, err = dbURL("host=localhost user=u dbname=admin", "azt_1")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig(got)
	if err != nil || cfg.Database != "azt_1" || cfg.User != "u" {
		t.Errorf("keyword form: %q parses to %+v, %v; want database azt_1", got, cfg, err)
	}

	if _, err := dbURL("postgres://u:topsecret@host:badport/x", "y"); err == nil || strings.Contains(err.Error(), "topsecret") {
		t.Errorf("bad URL: %v; want an error that does not show the password", err)
	}
}

// BenchmarkCreateDropDatabase measures what NewDatabase costs a test: a
// copy of the template, and its drop. (NewDatabase itself would keep every
// database until the benchmark ends.)
func BenchmarkCreateDropDatabase(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		name := pg.newName(b.Name())
		if err := pg.createDatabase(ctx, name, pg.template); err != nil {
			b.Fatal(err)
		}
		if err := pg.dropDatabase(ctx, name); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSweepStaleClusters(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	old := time.Now().Add(-2 * staleAfter)
	mk := func(name string, withPid bool, mtime time.Time) string {
		dir := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(dir, "base"), 0o700); err != nil {
			t.Fatal(err)
		}
		if withPid {
			if err := os.WriteFile(filepath.Join(dir, "postmaster.pid"), []byte("1\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(dir, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	stale := mk(clusterDirPrefix+"stale", false, old)
	running := mk(clusterDirPrefix+"running", true, old)
	fresh := mk(clusterDirPrefix+"fresh", false, time.Now())
	other := mk("someone-elses-dir", false, old)

	sweepStaleClusters(parent, staleAfter, slog.New(slog.DiscardHandler))

	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a stopped, long-untouched cluster dir was kept: %v", err)
	}
	for _, kept := range []string{running, fresh, other} {
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("%s was deleted: %v", filepath.Base(kept), err)
		}
	}
}

// The sweep of leftover containers removes only those whose test binary
// is gone: this process runs, a process that has exited does not.
func TestProcessAlive(t *testing.T) {
	t.Parallel()
	if !processAlive(os.Getpid()) {
		t.Error("this process reported not running")
	}
	cmd := exec.Command("sh", "-c", "exit 0")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run a child: %v", err)
	}
	if processAlive(cmd.Process.Pid) {
		t.Errorf("process %d reported running after it exited", cmd.Process.Pid)
	}
	if processAlive(0) || processAlive(-1) {
		t.Error("a non-positive pid reported running")
	}
	if runtime.GOOS != "linux" {
		return
	}
	// A process that has exited but is not yet reaped (a zombie, as a test
	// binary killed under a parent that has not waited for it) has ended.
	zombie := exec.Command("sh", "-c", "exit 0")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	defer zombie.Wait()
	stat := fmt.Sprintf("/proc/%d/stat", zombie.Process.Pid)
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, err := os.ReadFile(stat)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child did not become a zombie: %s", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if processAlive(zombie.Process.Pid) {
		t.Errorf("zombie %d reported running", zombie.Process.Pid)
	}
}

func TestOwnerValueNamesHostAndProcess(t *testing.T) {
	t.Parallel()
	owner, err := ownerValue()
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if owner != host+"/"+strconv.Itoa(os.Getpid()) {
		t.Errorf("owner %q", owner)
	}
}

// TestMainSetsParallel: Main lets DefaultParallel tests per processor run
// at once, unless the command line says otherwise (then its word holds).
func TestMainSetsParallel(t *testing.T) {
	got := flag.Lookup("test.parallel").Value.String()
	want := strconv.Itoa(DefaultParallel * runtime.GOMAXPROCS(0))
	given := false
	for _, a := range os.Args[1:] {
		given = given || strings.HasPrefix(strings.TrimLeft(a, "-"), "test.parallel")
	}
	if given {
		t.Logf("-test.parallel given on the command line: %s", got)
		return
	}
	if got != want {
		t.Errorf("-test.parallel = %s, want %s", got, want)
	}
}
