package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// scripts/bench/history.sh, in its short form, still generates, measures
// and prints its table: the large runs of docs/LOAD.md use it as written.
func TestHistoryScriptShortForm(t *testing.T) {
	for _, tool := range []string{"jq", "pg_dump", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("history.sh needs %s", tool)
		}
	}
	if _, err := os.Stat("/usr/lib/postgresql"); err != nil {
		if _, err := exec.LookPath("pg_ctl"); err != nil {
			t.Skip("history.sh needs PostgreSQL's server binaries (pg_ctl, initdb)")
		}
	}
	work := t.TempDir()
	// Run as root, the script's cluster belongs to postgres, which must
	// reach its directory.
	for _, dir := range []string{filepath.Dir(work), work} {
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(t.Context(), "bash", filepath.Join("..", "..", "scripts", "bench", "history.sh"))
	cmd.Env = append(os.Environ(), "WORK="+work, "SIZES=0 60", "RUNNING=12", "DURATION=2", "SAMPLES=4",
		"PGPORT=55491", "HTTP_ADDR=127.0.0.1:18191")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("history.sh: %v\n%s\n%s", err, out, stderr.String())
	}
	table := string(out)
	for _, row := range []string{"| finished games (+ running) | 0 (+", "| 60 (+", "| move p50 / p99 ms, 32 clients |",
		"| follower lag p50 / p99 ms, 32 clients |", "| turn inbox p50 / p99 ms |", "| replay at a random version p50 / p99 ms |",
		"| analysis queued p50 / p99 ms |", "| pg_dump -Fc s (MB) |", "| projections rebuild s |"} {
		if !strings.Contains(table, row) {
			t.Errorf("no %q in the table:\n%s", row, table)
		}
	}
	if strings.Contains(table, "null") || strings.Contains(table, "—") {
		t.Errorf("a figure is missing:\n%s", table)
	}
}
