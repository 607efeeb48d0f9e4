package pgcluster

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// clusterDir returns a fresh directory that the server's OS user can reach.
// t.TempDir is no good when running as root: its parent is a 0700 folder of
// root's, which the postgres account cannot enter.
func clusterDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "azul-pgcluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func startTest(t *testing.T, opts Options) *Cluster {
	t.Helper()
	// A bound against a hang, not a speed check: a start from fetched
	// binaries decompresses them in pure Go first, which the race
	// detector and a busy machine slow to well over a minute.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("start cluster: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = c.Stop(ctx) // idempotent: tests that stopped already get their result again
	})
	return c
}

func connect(t *testing.T, rawURL string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, rawURL)
	if err != nil {
		t.Fatalf("connect %s: %v", rawURL, err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

func TestStartConnectStopRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dataDir := filepath.Join(clusterDir(t), "nested", "data")
	c := startTest(t, Options{DataDir: dataDir, Database: "azul", Ephemeral: true})

	conn := connect(t, c.URL("azul"))
	var db, addr string
	if err := conn.QueryRow(ctx, "SELECT current_database(), host(inet_server_addr())").Scan(&db, &addr); err != nil {
		t.Fatal(err)
	}
	if db != "azul" || addr != "127.0.0.1" {
		t.Fatalf("connected to database %q at %q, want azul at 127.0.0.1", db, addr)
	}
	for _, q := range []string{"CREATE TABLE kept (v text)", "INSERT INTO kept VALUES ('survives a restart')"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_ = conn.Close(ctx)

	// The password is required: the same URL without it is refused.
	u, _ := url.Parse(c.URL("azul"))
	u.User = url.User(Superuser)
	if conn, err := pgx.Connect(ctx, u.String()); err == nil {
		_ = conn.Close(ctx)
		t.Fatal("connecting without the password succeeded; the cluster must require it")
	} else if !isAuthError(err) {
		t.Fatalf("connecting without the password: %v; want a password authentication failure", err)
	}

	password, err := os.ReadFile(filepath.Join(dataDir, PasswordFile))
	if err != nil {
		t.Fatal(err)
	}
	port := c.Port()
	if err := c.Stop(ctx); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	if nc, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second); err == nil {
		_ = nc.Close()
		t.Fatalf("port %d still accepts connections after Stop", port)
	}

	// A second start reuses the data dir: same password (no second
	// initdb), same rows.
	c2 := startTest(t, Options{DataDir: dataDir, Database: "azul", Ephemeral: true})
	again, err := os.ReadFile(filepath.Join(dataDir, PasswordFile))
	if err != nil || string(again) != string(password) {
		t.Fatalf("password file changed on restart (%v): the cluster was initialised twice", err)
	}
	var v string
	if err := connect(t, c2.URL("azul")).QueryRow(ctx, "SELECT v FROM kept").Scan(&v); err != nil || v != "survives a restart" {
		t.Fatalf("row after restart: %q, %v", v, err)
	}
	if err := c2.Remove(ctx); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("data dir still there after Remove: %v", err)
	}
}

func TestStartFixedPortAndUnixSocket(t *testing.T) {
	t.Parallel()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	dataDir := clusterDir(t)
	c := startTest(t, Options{DataDir: dataDir, Port: port, Ephemeral: true})
	if c.Port() != port || !strings.Contains(c.URL("x"), ":"+strconv.Itoa(port)+"/x") {
		t.Fatalf("port %d, URL %s; want port %d", c.Port(), c.URL("x"), port)
	}
	// The unix socket lives inside the data dir, and the password works there too.
	socket := filepath.Join(dataDir, socketDirName)
	if _, err := os.Stat(filepath.Join(socket, ".s.PGSQL."+strconv.Itoa(port))); err != nil {
		t.Fatalf("no unix socket in %s: %v", socket, err)
	}
	cfg, err := pgx.ParseConfig(c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host = socket
	ctx := context.Background()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect over the unix socket: %v", err)
	}
	defer conn.Close(ctx)
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("query over the unix socket: %d, %v", one, err)
	}
}

func TestStartAfterCrashAndWhileRunning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dataDir := clusterDir(t)
	c := startTest(t, Options{DataDir: dataDir, Database: "azul", Ephemeral: true})
	conn := connect(t, c.URL("azul"))
	// CHECKPOINT makes the row durable despite the ephemeral settings, so
	// that losing it below would be the cluster's fault, not the settings'.
	for _, q := range []string{"CREATE TABLE t (v int)", "INSERT INTO t VALUES (7)", "CHECKPOINT"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	// After a crash of the server, its other processes leave only when they
	// notice; until then the shared memory is in use and a new server
	// refuses to start. Holding one of them stopped makes that window last
	// for as long as the test wants.
	var lingering int
	if err := conn.QueryRow(ctx, "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'").Scan(&lingering); err != nil {
		t.Fatal(err)
	}
	_ = conn.Close(ctx)
	if err := syscall.Kill(lingering, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(lingering, syscall.SIGCONT) })

	// A crash leaves postmaster.pid behind, naming a dead process.
	if err := c.proc.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.exited
	if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); err != nil {
		t.Fatalf("expected a stale postmaster.pid after the crash: %v", err)
	}
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(time.Second)
		_ = syscall.Kill(lingering, syscall.SIGCONT)
	}()

	c2 := startTest(t, Options{DataDir: dataDir, Database: "azul", Ephemeral: true})
	<-released
	serverLog, err := os.ReadFile(c2.LogFile())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(serverLog), "pre-existing shared memory block") {
		t.Error("the first start attempt did not meet the crashed server's shared memory; the retry went untested")
	}
	var v int
	if err := connect(t, c2.URL("azul")).QueryRow(ctx, "SELECT v FROM t").Scan(&v); err != nil || v != 7 {
		t.Fatalf("row after crash and restart: %d, %v", v, err)
	}

	// While c2 runs, the data dir is refused to a second server.
	_, err = Start(ctx, Options{DataDir: dataDir, Ephemeral: true, busyPatience: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "in use by a running PostgreSQL server") {
		t.Fatalf("second start on a running data dir: %v; want an in-use error", err)
	}
	// ... and the refusal did not disturb the running one.
	if err := connect(t, c2.URL("azul")).QueryRow(ctx, "SELECT v FROM t").Scan(&v); err != nil {
		t.Fatalf("running cluster after the refused start: %v", err)
	}
}

func TestStopReportsUnexpectedExit(t *testing.T) {
	t.Parallel()
	c := startTest(t, Options{DataDir: clusterDir(t), Ephemeral: true})
	if err := c.proc.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.exited
	if err := c.Stop(context.Background()); err == nil || !strings.Contains(err.Error(), "already exited") {
		t.Fatalf("Stop after the server died: %v; want an error saying it had exited", err)
	}
}

func TestCreateDatabaseQuotesTheName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// A name that would be SQL if pasted unquoted.
	name := `odd"name; DROP DATABASE postgres`
	c := startTest(t, Options{DataDir: clusterDir(t), Database: name, Ephemeral: true})
	var got string
	if err := connect(t, c.URL(name)).QueryRow(ctx, "SELECT current_database()").Scan(&got); err != nil || got != name {
		t.Fatalf("current_database() = %q, %v; want %q", got, err, name)
	}
	var n int
	if err := connect(t, c.URL("postgres")).QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = 'postgres'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("database postgres: count %d, %v", n, err)
	}
}

func TestStartBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	if _, err := Start(ctx, Options{}); err == nil {
		t.Error("Start without a data dir succeeded")
	}
	for _, port := range []int{-1, 65536} {
		if _, err := Start(ctx, Options{DataDir: clusterDir(t), Port: port}); err == nil {
			t.Errorf("Start with port %d succeeded", port)
		}
	}

	missing := filepath.Join(clusterDir(t), "no-such-bin")
	dataDir := filepath.Join(clusterDir(t), "data")
	_, err := Start(ctx, Options{DataDir: dataDir, BinDir: missing})
	if !errors.Is(err, ErrNoBinaries) || !strings.Contains(err.Error(), "apt-get install postgresql") {
		t.Fatalf("Start with a missing bin dir: %v; want ErrNoBinaries saying what to install", err)
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed start created the data dir: %v", err)
	}

	// A folder with other content is not turned into a cluster.
	busy := clusterDir(t)
	if err := os.WriteFile(filepath.Join(busy, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Start(ctx, Options{DataDir: busy, Ephemeral: true})
	if err == nil || !strings.Contains(err.Error(), "neither empty nor a PostgreSQL cluster") {
		t.Fatalf("Start in a non-empty folder: %v", err)
	}
	entries, _ := os.ReadDir(busy)
	if len(entries) != 1 {
		t.Errorf("the refused folder now holds %d entries, want only notes.txt", len(entries))
	}
}

func TestNewRunner(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		r, err := newRunner("no-such-user-azul")
		if err != nil || r.cred != nil {
			t.Fatalf("not root: runner %+v, %v; want to run as the caller, ignoring the OS user", r, err)
		}
		return
	}
	_, err := newRunner("no-such-user-azul")
	if err == nil || !strings.Contains(err.Error(), `"no-such-user-azul"`) || !strings.Contains(err.Error(), "useradd") {
		t.Fatalf("root without the OS user: %v; want an error naming it and how to create it", err)
	}
	if _, err := newRunner("root"); err == nil {
		t.Fatal("root may not be the server's OS user")
	}
	r, err := newRunner("")
	if err != nil || r.cred == nil || r.name != DefaultOSUser || r.uid == 0 {
		t.Fatalf("root with the default OS user: %+v, %v", r, err)
	}
}

func TestCheckReachable(t *testing.T) {
	t.Parallel()
	// An account that owns nothing here: only the "others" bits let it in.
	r := runner{cred: &syscall.Credential{Uid: 54321, Gid: 54321}, name: "someone", uid: 54321, gid: 54321}
	base := clusterDir(t)
	closed := filepath.Join(base, "closed")
	open := filepath.Join(base, "open")
	for dir, mode := range map[string]os.FileMode{closed: 0o700, open: 0o755} {
		if err := os.Mkdir(dir, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil { // umask-proof
			t.Fatal(err)
		}
	}
	if err := r.checkReachable(filepath.Join(open, "data")); err != nil {
		t.Errorf("data dir under 0755 folders: %v", err)
	}
	err := r.checkReachable(filepath.Join(closed, "data"))
	if err == nil || !strings.Contains(err.Error(), closed) {
		t.Errorf("data dir under a 0700 folder: %v; want an error naming %s", err, closed)
	}
	// Without a user switch there is nothing to check.
	if err := (runner{}).checkReachable(filepath.Join(closed, "data")); err != nil {
		t.Errorf("no user switch: %v", err)
	}
}

func TestPidFileReady(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "postmaster.pid")
	content := func(pid, status string) string {
		return pid + "\n/data\n1700000000\n5432\n/data/socket\n127.0.0.1\n  1234567    98304\n" + status + "\n"
	}
	cases := []struct {
		name, text string
		want       bool
	}{
		{"ready", content("4242", "ready   "), true},
		{"starting", content("4242", "starting"), false},
		{"stopping", content("4242", "stopping"), false},
		{"other pid", content("4243", "ready   "), false},
		{"truncated", "4242\n/data\n", false},
		{"garbage", "not a pid file", false},
	}
	for _, tc := range cases {
		if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := pidFileReady(path, 4242); got != tc.want {
			t.Errorf("%s: pidFileReady = %v, want %v", tc.name, got, tc.want)
		}
	}
	if pidFileReady(filepath.Join(t.TempDir(), "missing"), 4242) {
		t.Error("missing file reported ready")
	}
}

func TestCleanEnvDropsPostgresVariables(t *testing.T) {
	t.Parallel()
	got := cleanEnv([]string{"PATH=/bin", "PGPORT=1", "PGDATA=/x", "HOME=/root", "PGHOST=h"})
	if strings.Join(got, " ") != "PATH=/bin HOME=/root" {
		t.Fatalf("cleanEnv = %v", got)
	}
}

// isAuthError tells a refused login from other failures in tests that need it.
func isAuthError(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "28P01"
}

func TestMajorVersion(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n": "15",
		"postgres (PostgreSQL) 16.4\n":                           "16",
		"postgres (PostgreSQL) 17beta1\n":                        "",
		"postgres (PostgreSQL) 9.6.24\n":                         "9.6",
		"something else":                                         "",
	}
	for banner, want := range cases {
		got, ok := majorVersion(banner)
		if got != want || ok != (want != "") {
			t.Errorf("majorVersion(%q) = %q, %v; want %q", banner, got, ok, want)
		}
	}
}

func TestStartRefusesDataDirOfAnotherMajorVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dataDir := clusterDir(t)
	c := startTest(t, Options{DataDir: dataDir, Ephemeral: true})
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	// Pretend another major version created the data dir.
	if err := os.WriteFile(filepath.Join(dataDir, "PG_VERSION"), []byte("4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Start(ctx, Options{DataDir: dataDir, Ephemeral: true})
	if err == nil || !strings.Contains(err.Error(), "created by PostgreSQL 4") || !strings.Contains(err.Error(), "pg_upgrade") {
		t.Fatalf("start on a data dir of another version: %v", err)
	}
}

func TestInitdbCutShortLeavesNoHalfCluster(t *testing.T) {
	t.Parallel()
	dataDir := clusterDir(t)
	// Long enough for initdb to start writing, far too short for it to finish.
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	c, startErr := Start(ctx, Options{DataDir: dataDir})
	if startErr == nil {
		_ = c.Stop(context.Background())
		t.Fatal("Start finished within 150ms; the test needs initdb to be cut short")
	}
	// Either initdb was interrupted and cleaned up after itself, or it had
	// finished (the deadline then struck a later step): never a half-made
	// data dir, which the next start would take for a cluster.
	_, versionErr := os.Stat(filepath.Join(dataDir, "PG_VERSION"))
	_, passwordErr := os.Stat(filepath.Join(dataDir, PasswordFile))
	if versionErr == nil && passwordErr != nil {
		entries, _ := os.ReadDir(dataDir)
		t.Fatalf("PG_VERSION without %s after an interrupted start (%v): a half-made cluster holding %v", PasswordFile, startErr, entries)
	}
	// And the next start makes a working cluster there.
	c = startTest(t, Options{DataDir: dataDir, Database: "azul", Ephemeral: true})
	var one int
	if err := connect(t, c.URL("azul")).QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("cluster after the interrupted initdb: %d, %v", one, err)
	}
}
