package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/api"
	serverapp "github.com/azuld/azuld/app"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/migrations"
	"github.com/azuld/azuld/notify"
)

// pg gives every test a fresh, migrated database.
var pg *pgtest.Harness

// The catalogue and move words, loaded once for every run of the test
// binary (loading them for each run was most of its time); runs only
// read them.
var (
	plainMessages  = sync.OnceValues(func() (*messages, error) { return loadMessages(false) })
	pseudoMessages = sync.OnceValues(func() (*messages, error) { return loadMessages(true) })
)

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

// newServer starts azuld's HTTP API over a fresh database, with event
// streams, and returns its URL; it stops when the test ends.
func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	url := pg.NewDatabase(t)
	ctx, cancel := context.WithCancel(context.Background())
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	// As azuld serves (the job workers aside: random and greedy bots
	// move within the command that brings their turn).
	parts, err := serverapp.New(serverapp.Config{
		Pool: pool, DatabaseURL: url,
		Notify: notify.Config{Sender: compose.Sender{Domain: "mail.test", BaseURL: "http://azuld.test"}},
		Follow: notify.FollowOptions{PollInterval: 20 * time.Millisecond, RetryAfter: 50 * time.Millisecond},
		Limits: limits.Options{Off: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := parts.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv, err := api.New(api.Config{App: parts, Heartbeat: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
		stop, cancelStop := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancelStop()
		_ = parts.Stop(stop)
		cancel()
		pool.Close()
	})
	return hs
}

// user is one person at a terminal: a configuration directory of their
// own and an environment.
type user struct {
	t   *testing.T
	env map[string]string
	// pseudo offers the pseudo-locale (--lang en-XA).
	pseudo bool
}

// newUser is a user of server srv whose configuration lives in a fresh
// directory ($XDG_CONFIG_HOME).
func newUser(t *testing.T, server string) *user {
	return &user{t: t, env: map[string]string{
		"XDG_CONFIG_HOME": t.TempDir(),
		"AZUL_SERVER":     server,
		"HOME":            t.TempDir(),
	}}
}

// configFile is where the user's configuration is kept.
func (u *user) configFile() string { return filepath.Join(u.env["XDG_CONFIG_HOME"], "azul", "config") }

// outcome is what one command printed and its exit code.
type outcome struct {
	code        int
	out, errOut string
}

// run runs one command line in-process, as the azul binary would, with
// strict checking of the API's answers against its description.
func (u *user) run(args ...string) outcome {
	u.t.Helper()
	return u.runIn(context.Background(), strings.NewReader(""), args...)
}

func (u *user) runIn(ctx context.Context, in *strings.Reader, args ...string) outcome {
	u.t.Helper()
	var out, errOut bytes.Buffer
	a := u.newApp(stdio{in: in, out: &out, err: &errOut}, u.getenv)
	code := a.execute(ctx, args)
	return outcome{code: code, out: out.String(), errOut: errOut.String()}
}

// getenv reads the user's environment.
func (u *user) getenv(k string) string { return u.env[k] }

// newApp is one run of azul for the user, on io and with the environment
// getenv reads, checking the API's answers strictly against its
// description; it speaks with the messages the test binary loaded once.
func (u *user) newApp(io stdio, getenv func(string) string) *app {
	u.t.Helper()
	load := plainMessages
	if u.pseudo {
		load = pseudoMessages
	}
	m, err := load()
	if err != nil {
		u.t.Fatal(err)
	}
	return &app{stdio: io, getenv: getenv, strict: true, pseudo: u.pseudo, messages: m}
}

// runUntilLine runs a command that goes on until stopped (watch) and
// stops it once it has printed a whole line, or after within.
func (u *user) runUntilLine(within time.Duration, args ...string) outcome {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	out := &lineStop{stop: cancel}
	var errOut bytes.Buffer
	a := u.newApp(stdio{in: strings.NewReader(""), out: out, err: &errOut}, u.getenv)
	code := a.execute(ctx, args)
	return outcome{code: code, out: out.String(), errOut: errOut.String()}
}

// lineStop is a command's output that ends its context once a whole line
// has been written.
type lineStop struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	stop context.CancelFunc
}

func (l *lineStop) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.buf.Write(p)
	if bytes.IndexByte(l.buf.Bytes(), '\n') >= 0 {
		l.stop()
	}
	return n, err
}

func (l *lineStop) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// must runs a command that must succeed.
func (u *user) must(args ...string) string {
	u.t.Helper()
	o := u.run(args...)
	if o.code != exitOK {
		u.t.Fatalf("azul %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), o.code, o.out, o.errOut)
	}
	return o.out
}

// mustJSON runs a command with --json and decodes its output.
func (u *user) mustJSON(v any, args ...string) {
	u.t.Helper()
	out := u.must(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		u.t.Fatalf("azul %s --json printed no JSON (%v): %s", strings.Join(args, " "), err, out)
	}
}

// wantCode runs a command that must fail with an exit code; it returns
// what it printed on standard error.
func (u *user) wantCode(code int, args ...string) string {
	u.t.Helper()
	o := u.run(args...)
	if o.code != code {
		u.t.Fatalf("azul %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), o.code, code, o.out, o.errOut)
	}
	return o.errOut
}

// register creates the user's player.
func (u *user) register(name string) {
	u.t.Helper()
	email := strings.ToLower(name) + "@example.org"
	if o := u.run("register", name, email); o.code == 0 {
		return
	} else if !strings.Contains(o.errOut, "belongs to an account here already") {
		u.t.Fatalf("azul register %s %s: exit %d\nstdout: %s\nstderr: %s", name, email, o.code, o.out, o.errOut)
	}
	// One account per address: another player of the same name on this
	// server gets an address of its own.
	u.must("register", name, strings.ToLower(name)+"+"+uuid.NewString()[:8]+"@example.org")
}

// play lists the user's moves and plays the one numbered n, as a player
// at a terminal does; it returns what the move printed.
func (u *user) play(id string, n int) string {
	u.t.Helper()
	u.must("moves", id)
	return u.must("move", id, strconv.Itoa(n))
}
