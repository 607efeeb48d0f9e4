package loadgen_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/internal/azuldtest"
	"github.com/azuld/azuld/internal/loadgen"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/migrations"
)

var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

// startAzuld serves azuld's API over a fresh database, as its own role.
func startAzuld(t *testing.T) (string, *pgxpool.Pool) {
	t.Helper()
	return azuldtest.Start(t, pg.ServerRoleURL(t, pg.NewDatabase(t)), azuldtest.Options{})
}

// A short run against a real azuld: moves are acknowledged, none fails,
// every acknowledged move is in the log, and the progress lines come.
func TestRunAgainstAzuld(t *testing.T) {
	t.Parallel()
	url, pool := startAzuld(t)
	var progress bytes.Buffer
	sum, err := loadgen.Run(context.Background(), loadgen.Config{
		URL: url, Clients: 3, Duration: 3 * time.Second, Interval: time.Second, Progress: &progress,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s%s", progress.String(), sum.Text())
	if sum.Moves == 0 || sum.ErrorCount != 0 || sum.Conflicts != 0 {
		t.Fatalf("summary %+v: want moves and no error", sum)
	}
	if sum.GamesStarted < 3 || sum.Move.P50 <= 0 || sum.Move.P99 < sum.Move.P50 || sum.MovesPerSec <= 0 {
		t.Errorf("summary %+v", sum)
	}
	// Each acknowledged move appended one batch of a player's command.
	var commands int
	err = pool.QueryRow(context.Background(), `SELECT count(DISTINCT meta->>'command_id') FROM events WHERE meta->'actor'->>'kind' = 'player' AND meta->>'command' IS NOT NULL`).Scan(&commands)
	if err != nil {
		t.Fatal(err)
	}
	if commands < sum.Moves {
		t.Errorf("%d moves acknowledged, %d in the log", sum.Moves, commands)
	}
	if lines := strings.Count(progress.String(), "\n"); lines < 2 {
		t.Errorf("%d progress lines in 3 s at 1 s intervals:\n%s", lines, progress.String())
	}
	var decoded loadgen.Summary
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &decoded); err != nil || decoded.Moves != sum.Moves {
		t.Errorf("the summary's JSON %s does not read back: %v", b, err)
	}
}

// A run paced to a rate, with a seat held by the server's bot, ending
// after a number of moves.
func TestRunPacedWithBotSeat(t *testing.T) {
	t.Parallel()
	url, _ := startAzuld(t)
	sum, err := loadgen.Run(context.Background(), loadgen.Config{
		URL: url, Clients: 2, Rate: 200, Moves: 40, Duration: time.Minute, BotSeat: "greedy",
		Rulesets: []string{"azul-mini"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Moves < 40 || sum.ErrorCount != 0 {
		t.Fatalf("summary %+v: want 40 moves and no error", sum)
	}
	if sum.Rate != 200 || sum.GamesStarted < 2 {
		t.Errorf("summary %+v", sum)
	}
}

// A server that is not there fails the run instead of reporting nothing.
func TestRunWithoutServer(t *testing.T) {
	t.Parallel()
	hs := httptest.NewServer(nil)
	url := hs.URL
	hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := loadgen.Run(ctx, loadgen.Config{URL: url, Clients: 1, Duration: 20 * time.Second})
	if err == nil {
		t.Fatal("a run against no server succeeded")
	}
}
