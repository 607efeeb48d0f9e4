package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/migrations"
)

// repoRoot is the repository's top folder, seen from this package.
const repoRoot = "../.."

// walkthroughAddr is the server address the walkthrough uses.
const walkthroughAddr = "A=http://127.0.0.1:8080"

// walkthroughPage is the page that holds the walkthrough, from the
// repository's top folder.
const walkthroughPage = "docs/walkthrough.md"

// docsWalkthrough returns the first sh block under the walkthrough
// page's heading.
func docsWalkthrough(t *testing.T) string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(repoRoot, walkthroughPage))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut("\n"+string(page), "\n# A five-minute walkthrough")
	if !ok {
		t.Fatal(walkthroughPage + " has no walkthrough heading")
	}
	_, block, ok := strings.Cut(section, "\n```sh\n")
	if !ok {
		t.Fatal("the walkthrough has no sh block")
	}
	block, _, ok = strings.Cut(block, "\n```\n")
	if !ok {
		t.Fatal("the walkthrough's sh block does not end")
	}
	return block + "\n"
}

// walkthroughDir is a folder that looks like the repository to go run
// (links to its files) but keeps the files the walkthrough writes.
func walkthroughDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ".git" || strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// uuidRE matches a game id.
var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// TestDocsWalkthrough runs docs/walkthrough.md as written, with
// bash, curl and jq, against azuld serving as its own database role. Only
// the server's address is changed. curl fails on any HTTP error status
// (from a curlrc) and bash stops at the first failed command.
func TestDocsWalkthrough(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the walkthrough needs %s (.ci/run installs it): %v", tool, err)
		}
	}
	script := docsWalkthrough(t)
	if strings.Count(script, "\n"+walkthroughAddr+"\n") != 1 && !strings.HasPrefix(script, walkthroughAddr+"\n") {
		t.Fatalf("the walkthrough does not set %s on a line of its own:\n%s", walkthroughAddr, script)
	}

	owner := pg.NewDatabase(t)
	// The owner migrates first: the server's role joins azuld_app, which
	// the migrations create.
	if err := migrations.Up(t.Context(), owner); err != nil {
		t.Fatal(err)
	}
	r := startServe(t, map[string]string{
		"AZUL_DATABASE_URL": pg.ServerRoleURL(t, owner), "AZUL_MIGRATE_DATABASE_URL": owner,
		"AZUL_HTTP_ADDR": "127.0.0.1:0", "AZUL_NOTIFY_WORKERS": "1",
	})
	defer func() {
		if code := r.stop(t); code != 0 {
			t.Errorf("azuld exited with %d", code)
		}
	}()
	script = strings.Replace(script, walkthroughAddr, "A=http://"+r.addr, 1)
	// What the test reads once the walkthrough is done.
	script += `printf '\n@@ %s %s %s %s %s %s\n' "$GAME" "$START" "$NOW" "$TB" "$BOT" "$COPY"` + "\n"

	curlHome := t.TempDir()
	if err := os.WriteFile(filepath.Join(curlHome, ".curlrc"), []byte("fail-with-body\nshow-error\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", "set -euo pipefail\n"+script)
	cmd.Dir = walkthroughDir(t)
	cmd.Env = append(os.Environ(), "CURL_HOME="+curlHome)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the walkthrough failed (%v)\nstdout:\n%s\nstderr:\n%s\nserver log:\n%s", err, stdout.String(), stderr.String(), r.log)
	}
	out := stdout.String()
	t.Logf("the walkthrough's output:\n%s", out)

	_, tail, ok := strings.Cut(out, "\n@@ ")
	if !ok {
		t.Fatalf("the walkthrough did not reach its end:\n%s", out)
	}
	vars := strings.Fields(tail)
	if len(vars) != 6 {
		t.Fatalf("walkthrough variables %q", tail)
	}
	game, start, now, tb, bot, copied := vars[0], vars[1], vars[2], vars[3], vars[4], vars[5]
	for name, id := range map[string]string{"GAME": game, "BOT": bot, "COPY": copied} {
		if !uuidRE.MatchString(id) {
			t.Errorf("%s is %q, not a game id", name, id)
		}
	}
	startV, err1 := strconv.Atoi(start)
	nowV, err2 := strconv.Atoi(now)
	if _, err3 := strconv.Atoi(tb); err1 != nil || err2 != nil || err3 != nil || startV >= nowV {
		t.Errorf("START %s, NOW %s, take-back %s: want versions, START before NOW", start, now, tb)
	}
	for _, want := range []string{
		`"taken_back"`, // the take-back went through
		`"result":"committed"`,
		`{"status":"finished",`,
		`"result":"pass"`,
		"PASS: every event is what the seed and the recorded commands derive",
		"tiles_taken: Ana took",
		"tiles_taken: Ben took",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %s", want)
		}
	}
	if strings.Contains(out, "problems/") || strings.Contains(out, `"id":null`) {
		t.Errorf("the output holds a problem or a null id")
	}
	if strings.TrimSpace(stderr.String()) != "" {
		t.Errorf("the walkthrough wrote to stderr:\n%s", stderr.String())
	}

	// The server agrees with what the walkthrough printed.
	get := func(path string, v any) {
		t.Helper()
		status, body := r.call(t, http.MethodGet, path, "", "")
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, status, body)
		}
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	var bg, cg struct {
		Status   string `json:"status"`
		Version  int64  `json:"version"`
		Imported bool   `json:"imported"`
	}
	get("/v1/games/"+bot, &bg)
	get("/v1/games/"+copied, &cg)
	// The copy is the bot game's log and game.imported.
	if bg.Status != "finished" || cg.Status != "finished" || cg.Version != bg.Version+1 || !cg.Imported {
		t.Errorf("the bot game is %+v, its imported copy %+v", bg, cg)
	}
	var takeback struct {
		Status string `json:"status"`
	}
	get("/v1/games/"+game+"/takebacks/"+tb, &takeback)
	if takeback.Status != "taken_back" {
		t.Errorf("take-back %s is %q", tb, takeback.Status)
	}
}
