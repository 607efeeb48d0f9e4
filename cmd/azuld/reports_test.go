package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/play"
)

// TestReportsCommand: azuld reports lists a reported message with its
// reason and text, newest first; with none it says so.
func TestReportsCommand(t *testing.T) {
	t.Parallel()
	url, _, run := migratedDatabase(t)
	if code, out := run("reports"); code != 0 || strings.TrimSpace(out) != "No reports." {
		t.Fatalf("reports of none: %d %q", code, out)
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	svc := newService(pool, nil)
	ana, _, err := svc.RegisterPlayer(ctx, "Ana", "ana@example.org", play.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	ben, _, err := svc.RegisterPlayer(ctx, "Ben", "ben@example.org", play.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if g, err = svc.Join(ctx, g.ID, ben, nil); err != nil {
		t.Fatal(err)
	}
	m, err := svc.Say(ctx, g.ID, ben, "you play\nlike a bot", "api", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ReportMessage(ctx, g.ID, ana, m.Version, "rude"); err != nil {
		t.Fatal(err)
	}
	code, out := run("reports")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "REPORTED") || !strings.Contains(lines[1], g.ID) ||
		!strings.Contains(lines[1], "rude") || !strings.Contains(lines[1], "like a bot") || !strings.Contains(lines[1], ben.ID) {
		t.Fatalf("reports: %d\n%s", code, out)
	}
}
