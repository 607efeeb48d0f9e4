package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/app"
	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/migrations"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// pg gives every test a fresh, migrated database.
var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

// testEnv is an azuld HTTP server over a database of its own.
type testEnv struct {
	url     string
	pool    *pgxpool.Pool
	svc     *play.Service
	srv     *Server
	metrics *prometheus.Registry
	http    *httptest.Server
	rules   engine.Registry
	// notifier enqueues notifications; nothing delivers them.
	notifier *notify.Notifier
	// parts are the server's parts below HTTP.
	parts *app.App
	// lags are the follower's lags, from each append to its jobs.
	lags lagRecorder
	// clients are the registered players' clients, by player id: the
	// invited players whose acceptance createGame sends.
	clients sync.Map
}

// lagRecorder keeps the appends the follower of the log handled.
type lagRecorder struct {
	mu       sync.Mutex
	followed []notify.Followed
}

func (l *lagRecorder) observe(f notify.Followed) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.followed = append(l.followed, f)
}

// take returns the appends followed so far and forgets them.
func (l *lagRecorder) take() []notify.Followed {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.followed
	l.followed = nil
	return out
}

// caughtUp waits until the follower of the log has handled every event
// committed so far: the turn inbox, the results and the jobs are written.
func (env *testEnv) caughtUp(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := events.NewConsumer(env.pool, notify.OutboxConsumer).WaitCaughtUp(ctx, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
}

// testInboundSecret authenticates POST /v1/inbound/email in tests.
const testInboundSecret = "inbound-secret-of-the-tests"

// testLogger shows server logs only with -v (go test prints them on
// failure), as JSON like in production.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(WithRequestIDs(slog.NewJSONHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// newTestEnv starts a server on a fresh database; everything stops when
// the test ends. The server connects as a role of its own in the azuld_app
// group, as in production: every test also proves that the server needs
// no right that role lacks.
// testAnalysisPlayouts is the search behind the tests' analyses: they
// check an analysis's shape and ranking rules, not its strength, and the
// default search takes most of a minute under the race detector.
const testAnalysisPlayouts = 1500

func newTestEnv(t testing.TB) *testEnv {
	t.Helper()
	return newTestEnvAt(t, pg.ServerRoleURL(t, pg.NewDatabase(t)), 0)
}

// setup is a test server's configuration: its parts (as azuld serve's,
// app.Config) and its HTTP face.
type setup struct {
	app app.Config
	api Config
}

// newTestEnvAt starts a server on a database; maxConns > 0 sizes its pool;
// each option may change the server's configuration.
func newTestEnvAt(t testing.TB, url string, maxConns int32, opts ...func(*setup)) *testEnv {
	t.Helper()
	env := &testEnv{url: url, metrics: prometheus.NewRegistry(), rules: rulesets.All()}
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	// As azuld connects (cmd/azuld openPool).
	events.ConfigurePool(pcfg, url)
	if maxConns > 0 {
		pcfg.MaxConns = maxConns
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), pcfg)
	if err != nil {
		t.Fatal(err)
	}
	env.pool = pool
	cfg := setup{
		// The notifier only enqueues here (no workers): the notify
		// package tests delivery. The limits are off unless a test
		// turns them on.
		app: app.Config{
			Pool: pool, DatabaseURL: url, Logger: testLogger(t), Metrics: env.metrics, Rules: env.rules,
			Notify: notify.Config{Sender: compose.Sender{Domain: "mail.test", BaseURL: "http://azuld.test"}, AnalysisPlayouts: testAnalysisPlayouts},
			Follow: notify.FollowOptions{PollInterval: 20 * time.Millisecond, RetryAfter: 50 * time.Millisecond, Observe: env.lags.observe},
			Limits: limits.Options{Off: true},
		},
		api: Config{Heartbeat: 200 * time.Millisecond, InboundSecret: testInboundSecret},
	}
	for _, o := range opts {
		o(&cfg)
	}
	env.parts, err = app.New(cfg.app)
	if err != nil {
		t.Fatal(err)
	}
	env.svc, env.notifier = env.parts.Service, env.parts.Notifier
	if err := env.parts.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg.api.App = env.parts
	env.srv, err = New(cfg.api)
	if err != nil {
		t.Fatal(err)
	}
	env.http = httptest.NewServer(env.srv.Handler())
	t.Cleanup(func() {
		env.srv.Close()
		env.http.Close()
		stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := env.parts.Stop(stop); err != nil {
			t.Errorf("stop: %v", err)
		}
		pool.Close()
	})
	return env
}

// client calls the API as one player (or anonymously).
type client struct {
	t     testing.TB
	env   *testEnv
	token string
	// Player is set for registered clients.
	Player play.Player
}

// response is what a call returned.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// decode reads the body as JSON into v.
func (r response) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// problem reads a problem body, failing when the response is not one.
func (r response) problem(t testing.TB) Problem {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("status %d with content type %q, want a problem: %s", r.Status, ct, r.Body)
	}
	var p Problem
	r.decode(t, &p)
	if p.Status != r.Status || p.Type == "" || p.Title == "" {
		t.Fatalf("incomplete problem %s for status %d", r.Body, r.Status)
	}
	return p
}

// header is one request header.
type header struct{ name, value string }

// call sends a request: body is sent as is when it is a string or
// []byte, as JSON otherwise (nil: no body).
func (c *client) call(method, path string, body any, headers ...header) response {
	c.t.Helper()
	var rd io.Reader
	ct := ""
	switch b := body.(type) {
	case nil:
	case string:
		rd, ct = strings.NewReader(b), "text/plain"
	case []byte:
		rd, ct = bytes.NewReader(b), "application/json"
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd, ct = bytes.NewReader(data), "application/json"
	}
	req, err := http.NewRequest(method, c.env.http.URL+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for _, h := range headers {
		if h.value == "" {
			req.Header.Del(h.name)
			continue
		}
		req.Header.Set(h.name, h.value)
	}
	res, err := c.env.http.Client().Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return response{Status: res.StatusCode, Header: res.Header, Body: data}
}

// mustStatus fails the test unless the response has the status.
func (r response) mustStatus(t testing.TB, status int) response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	return r
}

// anonymous is a client without a token.
func (env *testEnv) anonymous(t testing.TB) *client { return &client{t: t, env: env} }

// register creates a player and returns its client.
func (env *testEnv) register(t testing.TB, name string) *client {
	t.Helper()
	res := env.anonymous(t).call(http.MethodPost, "/v1/players", map[string]string{"name": name, "email": strings.ToLower(name) + "@example.org"})
	res.mustStatus(t, http.StatusCreated)
	var reg struct {
		play.Player
		Token string `json:"token"`
	}
	res.decode(t, &reg)
	c := &client{t: t, env: env, token: reg.Token, Player: reg.Player}
	env.clients.Store(reg.Player.ID, c)
	return c
}

// game is the state JSON as the tests read it.
type game struct {
	ID         string      `json:"id"`
	Version    int64       `json:"version"`
	Status     string      `json:"status"`
	Ruleset    string      `json:"ruleset"`
	ToAct      []int       `json:"to_act"`
	Seats      []play.Seat `json:"seats"`
	YourSeats  []int       `json:"your_seats"`
	LegalMoves []LegalMove `json:"legal_moves"`
	Final      *struct {
		Players []struct {
			Seat      int `json:"seat"`
			Rank      int `json:"rank"`
			Breakdown []struct {
				Item string `json:"item"`
			} `json:"breakdown"`
		} `json:"players"`
		Winners []int `json:"winners"`
	} `json:"final"`
	Seed           string `json:"seed"`
	SeedCommitment string `json:"seed_commitment"`
	Rated          bool   `json:"rated"`
	Imported       bool   `json:"imported"`
}

// createGame creates a game and returns its state.
// createGame creates a game and has every player it invites accept
// (join as that player's client), as the tests of a running game need;
// the game is returned as c then reads it.
func (c *client) createGame(req play.CreateGame) game {
	c.t.Helper()
	g := c.createInviting(req)
	accepted := map[string]bool{}
	for _, seat := range g.Seats {
		if seat.PlayerID != "" || seat.Reserved == "" || accepted[seat.Reserved] {
			// A join takes every seat kept for its player.
			continue
		}
		invitee, ok := c.env.clients.Load(seat.Reserved)
		if !ok {
			c.t.Fatalf("seat %d invites %s, who has no client here", seat.Seat, seat.Reserved)
		}
		invitee.(*client).call(http.MethodPost, "/v1/games/"+g.ID+"/join", nil).mustStatus(c.t, http.StatusOK)
		accepted[seat.Reserved] = true
	}
	if len(accepted) > 0 {
		return c.getGame(g.ID)
	}
	return g
}

// createInviting creates a game as it is asked: a seat naming another
// player invites them.
func (c *client) createInviting(req play.CreateGame) game {
	c.t.Helper()
	var g game
	c.call(http.MethodPost, "/v1/games", req).mustStatus(c.t, http.StatusCreated).decode(c.t, &g)
	return g
}

// getGame reads a game as this client sees it.
func (c *client) getGame(id string) game {
	c.t.Helper()
	var g game
	c.call(http.MethodGet, "/v1/games/"+id, nil).mustStatus(c.t, http.StatusOK).decode(c.t, &g)
	return g
}

// newReplica is a second command path on the test's database, as another
// azuld process would have.
func newReplica(t testing.TB, env *testEnv) *play.Service {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), env.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return play.New(play.Config{Pool: pool, Store: events.NewStore(pool), Rules: env.rules, Logger: testLogger(t)})
}

// actorOf is the event actor of a client's player.
func actorOf(c *client) events.Actor { return events.Actor{Kind: "player", PlayerID: c.Player.ID} }
