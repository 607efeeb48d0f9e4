package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/play"
)

// TestVerifyCommand checks a stored game by id, its export as a file,
// and a tampered copy of the export.
func TestVerifyCommand(t *testing.T) {
	t.Parallel()
	url, env, run := migratedDatabase(t)
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
	g, err := svc.CreateGame(ctx, owner, play.CreateGame{Ruleset: "summer-pavilion-mini", Seats: []play.SeatSpec{{Bot: "random"}, {Bot: "random"}}}, "")
	if err != nil || g.Status != play.StatusFinished {
		t.Fatalf("bot game: %v", err)
	}

	if code, out := run("verify", g.ID); code != 0 || !strings.Contains(out, "PASS") || !strings.Contains(out, g.Seed) {
		t.Fatalf("verify %s: exit %d\n%s", g.ID, code, out)
	}

	var export bytes.Buffer
	if err := svc.Export(ctx, g.ID, &export); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "game.jsonl")
	if err := os.WriteFile(file, export.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	// A file needs no database.
	delete(env, "AZUL_DATABASE_URL")
	if code, out := run("verify", file); code != 0 || !strings.Contains(out, "PASS") {
		t.Fatalf("verify %s: exit %d\n%s", file, code, out)
	}

	// Swap two colours in the second round's draws.
	lines := strings.Split(export.String(), "\n")
	rounds := 0
	for i, line := range lines {
		if !strings.Contains(line, `"type":"round_started"`) {
			continue
		}
		if rounds++; rounds == 2 {
			for _, pair := range [][2]string{{`"blue"`, `"red"`}, {`"red"`, `"blue"`}, {`"green"`, `"orange"`}, {`"orange"`, `"green"`}} {
				if strings.Contains(line, pair[0]) {
					lines[i] = strings.Replace(line, pair[0], pair[1], 1)
					break
				}
			}
			break
		}
	}
	tampered := filepath.Join(dir, "tampered.jsonl")
	if err := os.WriteFile(tampered, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := run("verify", tampered); code != 1 || !strings.Contains(out, "FAIL at version") {
		t.Fatalf("verify of a tampered export: exit %d\n%s", code, out)
	}

	if code, out := run("verify", "--help"); code != 0 || !strings.Contains(out, "exported file") {
		t.Fatalf("verify --help: exit %d\n%s", code, out)
	}
	if code, _ := run("verify"); code != 2 {
		t.Fatalf("verify without an argument: exit %d", code)
	}
	if code, _ := run("verify", filepath.Join(dir, "missing.jsonl")); code != 1 {
		t.Fatalf("verify of a missing file: exit %d", code)
	}
}

// migratedDatabase is a fresh database migrated by "azuld migrate", and
// a runner of azuld's commands on it (exit code, stdout and stderr) with
// the environment env, which the test may change.
func migratedDatabase(t *testing.T) (url string, env map[string]string, run func(args ...string) (int, string)) {
	t.Helper()
	url = pg.NewDatabase(t)
	env = map[string]string{"AZUL_DATABASE_URL": url, "AZUL_LOG_LEVEL": "warn"}
	run = func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		a := &process{getenv: envOf(env), stdout: &out, stderr: &errOut}
		code := a.run(t.Context(), args)
		return code, out.String() + errOut.String()
	}
	if code, out := run("migrate"); code != 0 {
		t.Fatalf("migrate: %d %s", code, out)
	}
	return url, env, run
}
