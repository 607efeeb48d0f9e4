package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/azuld/azuld/internal/azuldtest"
	"github.com/azuld/azuld/internal/loadgen"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/migrations"
)

var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
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

	url, pool := azuldtest.Start(t, pg.ServerRoleURL(t, owner), azuldtest.Options{})
	out.Reset()
	errs.Reset()
	err = run(ctx, []string{"play", "-url", url, "-metrics-token", azuldtest.MetricsToken, "-clients", "2", "-duration", "2s", "-interval", "500ms", "-json"}, &out, &errs)
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
	if sum.Follower == nil || sum.Follower.Samples == 0 || sum.Follower.P99 <= 0 {
		t.Errorf("no follower lag from azuld's metrics: %+v", sum.Follower)
	}

	// The probe reads every kind over that history, and sizes it.
	out.Reset()
	errs.Reset()
	err = run(ctx, []string{"probe", "-url", url, "-database", owner, "-samples", "4", "-analysis", "-json"}, &out, &errs)
	if err != nil {
		t.Fatalf("probe: %v\n%s", err, errs.String())
	}
	var probe loadgen.ProbeSummary
	if err := json.Unmarshal(out.Bytes(), &probe); err != nil {
		t.Fatalf("probe printed %q: %v", out.String(), err)
	}
	kinds := []string{loadgen.ProbeLobby, loadgen.ProbeWatch, loadgen.ProbeInbox, loadgen.ProbeMyGames, loadgen.ProbeFinished,
		loadgen.ProbeLoad, loadgen.ProbeReplay, loadgen.ProbeExport, loadgen.ProbeLeaders, loadgen.ProbeProfile, loadgen.ProbeAnalysis}
	if !slices.Equal(probe.Kinds, kinds) {
		t.Errorf("probe measured %v, want %v", probe.Kinds, kinds)
	}
	for _, k := range kinds {
		if l := probe.Latency[k]; l.P50 <= 0 || l.P99 < l.P50 {
			t.Errorf("%s: %+v", k, l)
		}
	}
	z := probe.Size
	if z.Finished < 12 || z.Running < 1 || z.Events == 0 || z.EventsHeap == 0 || z.EventsIndexes == 0 || z.Database < z.EventsHeap {
		t.Errorf("sizes: %+v", z)
	}
	if b := z.BytesPerEvent(); b < 100 || b > 10000 {
		t.Errorf("%.0f bytes per event", b)
	}
	// The analyses it asked for are withdrawn, not left to load the
	// server (this one runs no job workers: they would all be queued).
	var queued, requests int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM river_job WHERE kind = 'azuld_analysis'),
		(SELECT count(*) FROM game_analyses WHERE result IS NULL)`).Scan(&queued, &requests); err != nil {
		t.Fatal(err)
	}
	if queued != 0 || requests != 0 {
		t.Errorf("%d analysis jobs and %d requests left after the probe", queued, requests)
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

// With -feel mail,bot,web the players play by mail through the load
// tool's SMTP server, a greedy bot answers, and the game's stream is
// followed: each kind gets samples, every turn mail comes to the player
// of its seat, and the JSON carries them. azuld's own record of the mails
// it sent shows that they were the turn mails of the games played.
func TestFeel(t *testing.T) {
	ctx := context.Background()
	db := pg.NewDatabase(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	smtpAddr := ln.Addr().String()
	ln.Close()
	url, pool := azuldtest.Start(t, pg.ServerRoleURL(t, db), azuldtest.Options{SMTPURL: "smtp://" + smtpAddr + "?tls=none"})
	var out, errs bytes.Buffer
	err = run(ctx, []string{"play", "-url", url, "-clients", "2", "-duration", "4s", "-interval", "1s",
		"-ruleset", "azul-mini", "-bot-seat", "greedy", "-feel", "mail,bot,web", "-smtp-listen", smtpAddr, "-mail-wait", "10s", "-json"}, &out, &errs)
	if err != nil {
		t.Fatalf("play: %v\n%s", err, errs.String())
	}
	var sum loadgen.Summary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatalf("play printed %q: %v", out.String(), err)
	}
	if sum.Moves == 0 || sum.ErrorCount != 0 {
		t.Fatalf("play: %+v\n%s", sum, errs.String())
	}
	if sum.Feel == nil || sum.Feel.Mail == nil || sum.Feel.Bot == nil || sum.Feel.Web == nil {
		t.Fatalf("no feel in %s", out.String())
	}
	f := sum.Feel
	t.Logf("mail %+v\nbot %+v\nweb %+v", *f.Mail, *f.Bot, *f.Web)
	for name, l := range map[string]*loadgen.FeelLatency{"mail": f.Mail, "bot": f.Bot, "web": f.Web} {
		if l.Samples == 0 || l.P50 < 0 || l.Max < l.P99 || l.P99 < l.P50 {
			t.Errorf("%s: %+v", name, *l)
		}
	}
	if f.Mail.Mismatched != 0 || f.Mail.Missing != 0 {
		t.Errorf("mail: %+v", *f.Mail)
	}
	// Every move of a player answers a mail or a bot's move; each
	// player's move (but a game's last and the first of each seat) waits
	// for its mail, and every move of the clients is followed on the
	// stream.
	if f.Web.Samples+f.Web.Missing != sum.Moves {
		t.Errorf("web: %d samples and %d missing for %d moves", f.Web.Samples, f.Web.Missing, sum.Moves)
	}
	if !strings.Contains(errs.String(), "mail p50") || !strings.Contains(errs.String(), "web p50") {
		t.Errorf("no feel in the progress lines:\n%s", errs.String())
	}
	// The turn mails azuld recorded as sent name the games the run
	// played and their seats; the load tool matched as many as it
	// measured.
	var sent int
	err = pool.QueryRow(ctx, `SELECT count(*) FROM deliveries d JOIN game_seats s ON s.game_id = d.game_id AND s.seat = d.seat
		JOIN players p ON p.id = s.player_id
		WHERE d.kind = 'mail:turn' AND d.outcome = 'sent' AND p.email = d.target AND p.email LIKE '%@load.test'`).Scan(&sent)
	if err != nil {
		t.Fatal(err)
	}
	if sent < f.Mail.Samples {
		t.Errorf("azuld sent %d turn mails to the seats' players, the load tool measured %d", sent, f.Mail.Samples)
	}

	// Text too.
	out.Reset()
	err = run(ctx, []string{"play", "-url", url, "-clients", "1", "-moves", "5", "-ruleset", "azul-mini", "-feel", "web", "-quiet"}, &out, &errs)
	if err != nil || !strings.Contains(out.String(), "feel web") {
		t.Errorf("text summary: %v\n%s", err, out.String())
	}
}
