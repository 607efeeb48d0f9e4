package deploy

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// stackFiles are the ways to run the stack: one azuld, or replicas, each
// on one PostgreSQL or on the HA cluster.
var stackFiles = [][]string{
	{"docker-compose.yml"},
	{"docker-compose.yml", "docker-compose.replicas.yml"},
	{"docker-compose.yml", "docker-compose.ha.yml"},
	{"docker-compose.yml", "docker-compose.replicas.yml", "docker-compose.ha.yml"},
}

// repoRoot is the repository's root directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// cleanEnv is this process's environment without the variables the
// compose files read, so that only what a test sets counts.
func cleanEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "AZUL_") || strings.HasPrefix(kv, "COMPOSE_")
	})
}

// composeConfig is what docker compose makes of the files: services'
// images and environments, after interpolation.
type composeConfig struct {
	Services map[string]struct {
		Image       string            `json:"image"`
		Environment map[string]string `json:"environment"`
	} `json:"services"`
}

// config runs `docker compose [options] -f file... config` from the
// repository's root, after the shell commands in prelude (if any), with
// env on top of a clean environment.
func config(t *testing.T, prelude string, env, options, files []string) composeConfig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := append([]string{"-c", prelude + `exec "$@"`, "sh", "docker", "compose"}, options...)
	for _, f := range files {
		args = append(args, "-f", f)
	}
	args = append(args, "config", "--format", "json")
	cmd := exec.CommandContext(ctx, "sh", args...)
	cmd.Dir = repoRoot()
	cmd.Env = append(cleanEnv(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("docker compose config (%s): %v: %s", strings.Join(files, ", "), err, stderr.String())
	}
	var c composeConfig
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatalf("docker compose config: %v", err)
	}
	return c
}

// TestImageNamesForCompose: the lines scripts/images/build.sh --names
// prints, taken as they are by a shell's eval or as docker compose's env
// file, point every service of both compose files at the local builds.
func TestImageNamesForCompose(t *testing.T) {
	if !enabled(t) {
		return
	}
	if _, err := exec.LookPath("docker"); err != nil {
		t.Fatal(err)
	}
	names, err := exec.Command(filepath.Join(repoRoot(), "scripts/images/build.sh"), "--names").Output()
	if err != nil {
		t.Fatalf("build.sh --names: %v", err)
	}
	t.Logf("build.sh --names:\n%s", names)
	envFile := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(envFile, names, 0o644); err != nil {
		t.Fatal(err)
	}
	ways := []struct {
		name, prelude string
		options       []string
	}{
		{"eval", `eval "$(scripts/images/build.sh --names)" && `, nil},
		{"env file", "", []string{"--env-file", envFile}},
	}
	for _, files := range stackFiles {
		for _, way := range ways {
			c := config(t, way.prelude, []string{"COMPOSE_PROJECT_NAME=azulconfig"}, way.options, files)
			for _, img := range images {
				svc, ok := c.Services[img.service]
				if ok != runs(img.service, files) {
					t.Fatalf("%s: service %s present %t, want %t", strings.Join(files, " + "), img.service, ok, !ok)
				}
				if !ok {
					continue
				}
				if svc.Image != img.local {
					t.Errorf("%s, names by %s: service %s runs %q, want the local build %q",
						strings.Join(files, " + "), way.name, img.service, svc.Image, img.local)
				}
			}
		}
	}
}

// TestBaseURLFollowsHTTPPort: with AZUL_HTTP_PORT changed and
// AZUL_BASE_URL unset, the links azuld writes go to the port published;
// AZUL_BASE_URL set still wins.
func TestBaseURLFollowsHTTPPort(t *testing.T) {
	if !enabled(t) {
		return
	}
	cases := []struct {
		env  []string
		want string
	}{
		{nil, "http://localhost:8080"},
		{[]string{"AZUL_HTTP_PORT=18123"}, "http://localhost:18123"},
		{[]string{"AZUL_HTTP_PORT=18123", "AZUL_BASE_URL=https://azul.example.org"}, "https://azul.example.org"},
	}
	for _, files := range stackFiles {
		for _, tc := range cases {
			c := config(t, "", append([]string{"COMPOSE_PROJECT_NAME=azulconfig"}, tc.env...), nil, files)
			if got := c.Services["azuld"].Environment["AZUL_BASE_URL"]; got != tc.want {
				t.Errorf("%s with %v: AZUL_BASE_URL=%q, want %q", strings.Join(files, " + "), tc.env, got, tc.want)
			}
		}
	}
}
