package api

import (
	"context"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/play"
)

// mustUnavailable checks a 503 that tells the client when to try again.
func (r response) mustUnavailable(t testing.TB, what string) {
	t.Helper()
	if r.Status != http.StatusServiceUnavailable {
		t.Fatalf("%s: status %d, want 503: %s", what, r.Status, r.Body)
	}
	if got := r.Header.Get("Retry-After"); got != strconv.Itoa(events.RetryAfterSeconds) {
		t.Fatalf("%s: Retry-After %q, want %d", what, got, events.RetryAfterSeconds)
	}
}

// TestDatabaseGoneAndBack stops the database under a running server:
// moves, pages and /readyz answer 503 with Retry-After, never 500; once
// it is back, the same server takes moves again without a restart, and
// the log's follower and the listener go on.
func TestDatabaseGoneAndBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cluster := pgtest.StartPrivateCluster(t)
	url := cluster.URL
	env := newTestEnvAt(t, url, 0)
	// A listener of its own, to see notifications come again after the
	// restart.
	listener := events.NewListener(url, testLogger(t))
	lctx, stopListener := context.WithCancel(ctx)
	listened := make(chan error, 1)
	go func() { listened <- listener.Run(lctx) }()
	t.Cleanup(func() { stopListener(); <-listened })

	ana, ben := env.register(t, "Ana"), env.register(t, "Ben")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	notices, stopNotices := listener.Subscribe(g.ID)
	defer stopNotices()
	ana.firstMove(g.ID)
	cur := ben.getGame(g.ID)
	move := map[string]any{"move": cur.LegalMoves[0].Move}
	env.caughtUp(t)

	if err := cluster.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	base := "/v1/games/" + g.ID
	ben.call(http.MethodPost, base+"/moves", move).mustUnavailable(t, "a move without a key")
	keyed := header{"Idempotency-Key", "ben-first"}
	r := ben.call(http.MethodPost, base+"/moves", move, keyed)
	r.mustUnavailable(t, "a move with a key")
	if p := r.problem(t); p.Type != ProblemUnavailable || p.RetryAfter != events.RetryAfterSeconds {
		t.Fatalf("problem %+v, want %s with retry_after", p, ProblemUnavailable)
	}
	ben.call(http.MethodGet, base, nil).mustUnavailable(t, "a game's state")
	page := ben.call(http.MethodGet, "/games/"+g.ID, nil, header{"Accept-Language", "de"})
	page.mustUnavailable(t, "a game's page")
	if ct := page.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("the page's error comes as %q, want an HTML page", ct)
	}
	if want := "erreicht seine Datenbank gerade nicht"; !strings.Contains(string(page.Body), want) {
		t.Fatalf("the page does not say, in German, that the database is unreachable (%q):\n%s", want, page.Body)
	}
	env.anonymous(t).call(http.MethodGet, "/readyz", nil).mustUnavailable(t, "/readyz")
	// Nothing can be announced while the database is down: what is
	// queued came before.
	for len(notices) > 0 {
		<-notices
	}

	// Back on the same data and port: the server was not restarted.
	if err := cluster.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, time.Minute, func() bool {
		return env.anonymous(t).call(http.MethodGet, "/readyz", nil).Status == http.StatusOK
	}, "/readyz did not answer 200 within a minute of the database's return")
	var res struct {
		Version int64 `json:"version"`
	}
	ben.call(http.MethodPost, base+"/moves", move, keyed).mustStatus(t, http.StatusCreated).decode(t, &res)
	if res.Version != cur.Version+1 && res.Version <= cur.Version {
		t.Fatalf("version %d after the move, want past %d", res.Version, cur.Version)
	}
	// The follower of the log goes on: every event is handled.
	env.caughtUp(t)
	// The listener reconnected: it announces the move, or that anything
	// may have changed (version 0) when it came back after the move.
	timeout := time.After(30 * time.Second)
	for {
		select {
		case n := <-notices:
			if n.Version == 0 || n.Version >= res.Version {
				return
			}
		case <-timeout:
			t.Fatalf("no notification of version %d after the database came back", res.Version)
		}
	}
}

// TestReadyzRefusesAReadOnlySession: a session that cannot write (a
// standby, a demoted primary) is not ready, so a proxy sends moves
// elsewhere.
func TestReadyzRefusesAReadOnlySession(t *testing.T) {
	t.Parallel()
	url := pg.NewDatabase(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	env := newTestEnvAt(t, url+sep+"options="+neturl.QueryEscape("-c default_transaction_read_only=on"), 0)
	env.anonymous(t).call(http.MethodGet, "/readyz", nil).mustUnavailable(t, "/readyz on a read-only session")

	ok := newTestEnvAt(t, url, 0)
	ok.anonymous(t).call(http.MethodGet, "/readyz", nil).mustStatus(t, http.StatusOK)
}

// TestMoveCutOffAtItsCommit cuts the server's connection to the database
// right after a move's statement reached it and before the answer came
// back: the move is in the log, and the server cannot know. A move with an
// Idempotency-Key is tried again and answered 201 with its first result;
// one without is answered 503 saying the outcome is unknown, never 201 or
// 500. Either way the log has the move once.
func TestMoveCutOffAtItsCommit(t *testing.T) {
	t.Parallel()
	proxy, proxied := pgtest.ProxyFor(t, pg.ServerRoleURL(t, pg.NewDatabase(t)))
	env := newTestEnvAt(t, proxied, 0)
	ana, ben := env.register(t, "Ana"), env.register(t, "Ben")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	base := "/v1/games/" + g.ID

	// Only a move's append sends its meta, with the command's id.
	marker := []byte(`"command_id":`)
	cur := ana.getGame(g.ID)
	env.caughtUp(t)
	cut := proxy.CutAfter(marker)
	r := ana.call(http.MethodPost, base+"/moves", map[string]any{"move": cur.LegalMoves[0].Move})
	<-cut
	r.mustUnavailable(t, "a move without a key, cut off")
	if p := r.problem(t); !strings.Contains(p.Detail, "Reload the game") {
		t.Fatalf("the problem does not tell to reload the game: %+v", p)
	}
	after := ben.getGame(g.ID)
	if after.Version <= cur.Version {
		t.Fatalf("version %d: the move reached the database and should be in the log", after.Version)
	}

	env.caughtUp(t)
	key := header{"Idempotency-Key", "ben-cut-off"}
	move := map[string]any{"move": after.LegalMoves[0].Move}
	cut = proxy.CutAfter(marker)
	var first struct {
		Version  int64 `json:"version"`
		Replayed bool  `json:"replayed"`
	}
	ben.call(http.MethodPost, base+"/moves", move, key).mustStatus(t, http.StatusCreated).decode(t, &first)
	<-cut
	if first.Version <= after.Version {
		t.Fatalf("version %d after the keyed move, want past %d", first.Version, after.Version)
	}
	var again struct {
		Version  int64 `json:"version"`
		Replayed bool  `json:"replayed"`
	}
	ben.call(http.MethodPost, base+"/moves", move, key).mustStatus(t, http.StatusCreated).decode(t, &again)
	if !again.Replayed || again.Version != first.Version {
		t.Fatalf("the client's retry: version %d, replayed %v; want %d replayed", again.Version, again.Replayed, first.Version)
	}
	if now := ben.getGame(g.ID); now.Version != first.Version {
		t.Fatalf("the game is at version %d, want %d: the move was applied again", now.Version, first.Version)
	}
	var appends int
	if err := env.pool.QueryRow(context.Background(), `SELECT count(DISTINCT tx_id) FROM events WHERE stream_id = $1 AND meta->>'command_id' = $2`,
		g.ID, "ben-cut-off").Scan(&appends); err != nil {
		t.Fatal(err)
	}
	if appends != 1 {
		t.Fatalf("the keyed move was appended %d times, want once", appends)
	}
}
