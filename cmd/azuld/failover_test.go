package main

import (
	"bytes"
	"context"
	"net"
	neturl "net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/play"
)

// TestMultiHostURLFindsTheWritableHost: with a list of hosts, azuld
// migrates and serves on the one that answers, past a host that refuses
// connections and one that accepts them and never answers (a host cut off
// from the network), which the connect timeout gives up on.
func TestMultiHostURLFindsTheWritableHost(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := pg.NewDatabase(t)
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	_ = closed.Close()
	// Accepts (the kernel completes the handshake) and never answers.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	hosts := closedAddr + "," + silent.Addr().String() + "," + u.Host
	multi := strings.Replace(url, "@"+u.Host+"/", "@"+hosts+"/", 1)
	if multi == url {
		t.Fatalf("no host list made from %s", u.Redacted())
	}
	multi += "&target_session_attrs=read-write"

	var out bytes.Buffer
	a := &process{getenv: envOf(map[string]string{"AZUL_DATABASE_URL": multi, "AZUL_LOG_LEVEL": "warn"}), stdout: &out, stderr: &out}
	if code := a.run(ctx, []string{"migrate"}); code != 0 {
		t.Fatalf("migrate over a host list: exit %d\n%s", code, out.String())
	}
	pool, err := openPool(ctx, multi, &config{})
	if err != nil {
		t.Fatalf("open a pool over a host list: %v", err)
	}
	defer pool.Close()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	// The address the driver settled on (inet_server_port would be the
	// server's own, which a container maps to another).
	got := conn.Conn().PgConn().Conn().RemoteAddr().String()
	if host, _, err := net.SplitHostPort(u.Host); err == nil && net.ParseIP(host) != nil && got != u.Host {
		t.Errorf("connected to %s, want the database at %s", got, u.Host)
	}
	var migrated bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('events') IS NOT NULL`).Scan(&migrated); err != nil {
		t.Fatal(err)
	}
	if !migrated {
		t.Error("the migrations did not reach the database")
	}
}

func TestWithConnectTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"postgres://u:p@db1:5432,db2:5432/azuld?target_session_attrs=read-write",
			"postgres://u:p@db1:5432,db2:5432/azuld?target_session_attrs=read-write&connect_timeout=5"},
		{"postgresql://u@db/azuld", "postgresql://u@db/azuld?connect_timeout=5"},
		{"postgres://u@db/azuld?connect_timeout=2", "postgres://u@db/azuld?connect_timeout=2"},
		{"host=db1,db2 dbname=azuld", "host=db1,db2 dbname=azuld connect_timeout=5"},
		{"host=db connect_timeout=9", "host=db connect_timeout=9"},
	} {
		if got := withConnectTimeout(tc.in); got != tc.want {
			t.Errorf("withConnectTimeout(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestVerifyAll checks every game of a database: all pass, then one whose
// seed no longer matches its published commitment fails, named.
func TestVerifyAll(t *testing.T) {
	t.Parallel()
	url, _, run := migratedDatabase(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	svc := newService(pool, nil)
	owner, _, err := svc.RegisterPlayer(ctx, "Ana", "ana@example.org", play.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	var games []*play.Game
	for _, ruleset := range []string{"summer-pavilion-mini", "azul-mini", "summer-pavilion-mini"} {
		g, err := svc.CreateGame(ctx, owner, play.CreateGame{Ruleset: ruleset, Seats: []play.SeatSpec{{Bot: "random"}, {Bot: "random"}}}, "")
		if err != nil || g.Status != play.StatusFinished {
			t.Fatalf("bot game: %v", err)
		}
		games = append(games, g)
	}
	if code, out := run("verify", "--all"); code != 0 || !strings.Contains(out, "PASS: 3 games checked") {
		t.Fatalf("verify --all of good games: exit %d\n%s", code, out)
	}

	// Another commitment for the second game's seed: as if the seed
	// revealed at the end were not the one committed to at the start.
	broken := games[1].ID
	if _, err := pool.Exec(ctx, `ALTER TABLE events DISABLE TRIGGER events_immutable_rows`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE events SET data = jsonb_set(data::jsonb, '{seed_commitment}', to_jsonb(repeat('0', 64)))::json
		WHERE stream_id = $1 AND version = 1`, broken); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ALTER TABLE events ENABLE TRIGGER events_immutable_rows`); err != nil {
		t.Fatal(err)
	}
	code, out := run("verify", "--all")
	if code != 1 || !strings.Contains(out, "FAIL: 3 games checked, 1 failed: "+broken) || !strings.Contains(out, "FAIL "+broken+" at version") {
		t.Fatalf("verify --all with a broken commitment: exit %d\n%s", code, out)
	}
	for _, g := range []*play.Game{games[0], games[2]} {
		if strings.Contains(out, g.ID) {
			t.Fatalf("a good game is named among the failures:\n%s", out)
		}
	}
	if code, _ := run("verify", broken, "--all"); code != 2 {
		t.Fatalf("verify with a game and --all: exit %d, want 2", code)
	}
}
