package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/api"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/loadgen"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/migrations"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

// startAzuld serves azuld's API over a database, wired as azuld
// serve wires it (moves in one round trip, the follower of the log
// writing the turn inbox and enqueueing notifications), as its own
// database role, without rate limits. It returns the base URL and the
// pool.
func startAzuld(t *testing.T, url string) (string, *pgxpool.Pool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	notifier, err := notify.New(notify.Config{Pool: pool, Sender: compose.Sender{Domain: "mail.test", BaseURL: "http://azuld.test"}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	svc := play.New(play.Config{Pool: pool, Store: events.NewStore(pool), Rules: rulesets.All(), Logger: log, ReadModelsFollowLog: true})
	notifier.Attach(svc)
	listener := events.NewListener(url, log)
	wake, stopWake := listener.SubscribeAll()
	done := make(chan struct{}, 2)
	go func() {
		_ = listener.Run(ctx)
		done <- struct{}{}
	}()
	go func() {
		_ = notifier.Follow(ctx, notify.FollowOptions{Wake: wake, PollInterval: 20 * time.Millisecond, RetryAfter: 50 * time.Millisecond})
		done <- struct{}{}
	}()
	srv, err := api.New(api.Config{Service: svc, Listener: listener, Pool: pool, Logger: log, Notifier: notifier})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
		cancel()
		stopWake()
		<-done
		<-done
		pool.Close()
	})
	return hs.URL, pool
}

// azul-load history fills a database as its owner, then azul-load play
// plays on top of that history against azuld serving it as its own role;
// both print JSON that reads back.
func TestHistoryThenPlay(t *testing.T) {
	ctx := context.Background()
	owner := pg.NewDatabase(t)
	var out, errs bytes.Buffer
	err := run(ctx, []string{"history", "-database", owner, "-finished", "12", "-running", "4", "-batch", "5", "-json"}, &out, &errs)
	if err != nil {
		t.Fatalf("history: %v\n%s", err, errs.String())
	}
	var h historyJSON
	if err := json.Unmarshal(out.Bytes(), &h); err != nil {
		t.Fatalf("history printed %q: %v", out.String(), err)
	}
	if h.Games != 16 || h.Finished != 12 || h.Running != 4 || h.Events == 0 {
		t.Errorf("history wrote %+v", h)
	}
	if lines := strings.Count(errs.String(), "\n"); lines != 4 {
		t.Errorf("%d progress lines for 4 batches:\n%s", lines, errs.String())
	}

	url, pool := startAzuld(t, pg.ServerRoleURL(t, owner))
	out.Reset()
	errs.Reset()
	err = run(ctx, []string{"play", "-url", url, "-clients", "2", "-duration", "2s", "-interval", "500ms", "-json"}, &out, &errs)
	if err != nil {
		t.Fatalf("play: %v\n%s", err, errs.String())
	}
	var sum loadgen.Summary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatalf("play printed %q: %v", out.String(), err)
	}
	if sum.Moves == 0 || sum.ErrorCount != 0 || sum.Clients != 2 {
		t.Errorf("play: %+v", sum)
	}
	if !strings.Contains(errs.String(), "moves") {
		t.Errorf("no progress line: %q", errs.String())
	}
	var games int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM games`).Scan(&games); err != nil {
		t.Fatal(err)
	}
	if games < 16+sum.GamesStarted {
		t.Errorf("%d games listed, want the history's 16 and the %d played", games, sum.GamesStarted)
	}
}

// Without a command, or with an unknown one, azul-load says how to use it.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"nonsense"}} {
		var out, errs bytes.Buffer
		if err := run(context.Background(), args, &out, &errs); err == nil {
			t.Errorf("%v: no error", args)
		}
		if !strings.Contains(errs.String(), "azul-load play") {
			t.Errorf("%v: no usage in %q", args, errs.String())
		}
	}
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{"play", "-h"}, &out, &errs); err == nil || !strings.Contains(errs.String(), "AZUL_RATE_LIMITS=off") {
		t.Errorf("play -h: %v, %q", err, errs.String())
	}
	if err := run(context.Background(), []string{"history"}, &out, &errs); err == nil || !strings.Contains(err.Error(), "database") {
		t.Errorf("history without a database: %v", err)
	}
}
