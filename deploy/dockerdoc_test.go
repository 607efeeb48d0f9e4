package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDockerPageSaysHowToGetCompose: docs/docker.md, the page that runs
// the compose files, says before its first command that Docker Compose v2
// is needed, how to tell whether it is there, and how to get it (a script
// that exists).
func TestDockerPageSaysHowToGetCompose(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "docker.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut("\n"+string(page), "\n# Run with Docker\n")
	if !ok {
		t.Fatal(`docs/docker.md has no heading "Run with Docker"`)
	}
	intro, _, _ := strings.Cut(section, "docker compose up")
	for _, want := range []string{"Docker Compose v2", "`docker compose version`", "scripts/install-compose-plugin.sh"} {
		if !strings.Contains(intro, want) {
			t.Errorf("the start of docs/docker.md, before `docker compose up`, does not say %q:\n%s", want, intro)
		}
	}
	info, err := os.Stat(filepath.Join(repoRoot(), "scripts/install-compose-plugin.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode()&0o111 == 0 {
		t.Errorf("scripts/install-compose-plugin.sh is not executable (%v)", info.Mode())
	}
}
