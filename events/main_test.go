package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/migrations"
)

// pg hands every test a migrated database of its own.
var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

// newDB creates a database and opens a pool of up to maxConns
// connections on it.
func newDB(tb testing.TB, maxConns int32) (url string, pool *pgxpool.Pool) {
	tb.Helper()
	url = pg.NewDatabase(tb)
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.MaxConns = maxConns
	pool, err = pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	return url, pool
}

func newPool(tb testing.TB, maxConns int32) *pgxpool.Pool {
	tb.Helper()
	_, pool := newDB(tb, maxConns)
	return pool
}

func newStreamID() string { return uuid.NewString() }

// event is a small test event with a recognisable payload.
func event(typ string, n int) events.NewEvent {
	return events.NewEvent{Type: typ, Schema: 1, Data: json.RawMessage(fmt.Sprintf(`{"n": %d, "tag": "%s-%d"}`, n, typ, n))}
}

// testMeta is the meta of test appends.
func testMeta(seat int) events.Meta {
	return events.Meta{
		Actor:     events.Actor{Kind: "player", Seat: &seat, PlayerID: "0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f"},
		Channel:   "api",
		CommandID: "cmd-" + fmt.Sprint(seat),
		Command:   json.RawMessage(`{"type":"take","factory":2,"color":"red","line":3}`),
		Notation:  "F3 red 3",
	}
}

// count runs a count(*) query.
func count(tb testing.TB, pool *pgxpool.Pool, query string, args ...any) int64 {
	tb.Helper()
	var n int64
	if err := pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return n
}

// sameJSON reports whether two JSON texts hold the same value (jsonb
// normalises spacing and key order).
func sameJSON(tb testing.TB, a, b []byte) bool {
	tb.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		tb.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		tb.Fatalf("%s: %v", b, err)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}
