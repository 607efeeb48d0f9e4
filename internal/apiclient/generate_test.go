package apiclient

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestGeneratedClientIsCurrent regenerates the client from
// api/openapi.json with the pinned generator and fails when the
// committed client.gen.go differs: a change to the description must come
// with the client that uses it (go generate ./internal/apiclient).
func TestGeneratedClientIsCurrent(t *testing.T) {
	src, err := os.ReadFile("generate.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^//go:generate go run (\S+) `).FindSubmatch(src)
	if m == nil {
		t.Fatal("generate.go has no //go:generate go run line")
	}
	config, err := filepath.Abs("oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := filepath.Abs(filepath.Join("..", "..", "api", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The config writes client.gen.go relative to the working directory.
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), "go", "run", string(m[1]), "-config", config, spec)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, out)
	}
	fresh, err := os.ReadFile(filepath.Join(dir, "client.gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Fatal("client.gen.go is not what api/openapi.json generates: run go generate ./internal/apiclient")
	}
}
