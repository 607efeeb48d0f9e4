package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// runHealth runs "azuld health" with the given environment and flags.
func runHealth(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &process{getenv: envOf(env), stdout: &out, stderr: &errOut}
	code = a.run(t.Context(), append([]string{"health"}, args...))
	return code, out.String(), errOut.String()
}

func TestHealthReadyServerExitsZeroThenOneWhenStopped(t *testing.T) {
	t.Parallel()
	r := startServe(t, map[string]string{
		"AZUL_DATABASE_URL": pg.NewDatabase(t),
		"AZUL_HTTP_ADDR":    "127.0.0.1:0",
	})
	code, out, errOut := runHealth(t, map[string]string{"AZUL_HTTP_ADDR": r.addr})
	if code != 0 || !strings.Contains(out, "ready: http://"+r.addr+"/readyz") {
		t.Fatalf("health of a running server: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if c := r.stop(t); c != 0 {
		t.Fatalf("serve exited with %d:\n%s", c, r.log)
	}
	// The flag wins over the variable, as for every setting.
	code, _, errOut = runHealth(t, map[string]string{"AZUL_HTTP_ADDR": "127.0.0.1:1"}, "--http-addr", r.addr)
	if code != 1 || !strings.Contains(errOut, "not ready") || !strings.Contains(errOut, r.addr) {
		t.Fatalf("health of a stopped server: exit %d, stderr %q", code, errOut)
	}
}

func TestHealthNotReadyAnswerExitsOne(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		http.Error(w, "database unreachable", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	code, _, errOut := runHealth(t, map[string]string{"AZUL_HTTP_ADDR": addr})
	if code != 1 || !strings.Contains(errOut, "503") || !strings.Contains(errOut, "database unreachable") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestHealthBadAddressIsAClearError(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"localhost", "127.0.0.1:0"} {
		code, _, errOut := runHealth(t, map[string]string{"AZUL_HTTP_ADDR": addr})
		if code != 1 || !strings.Contains(errOut, "HTTP address") {
			t.Errorf("%q: exit %d, stderr %q", addr, code, errOut)
		}
	}
	if code, _, _ := runHealth(t, nil, "--no-such-flag"); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
}

func TestReadyzURLAsksWildcardsOnLoopback(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		":8080":          "http://127.0.0.1:8080/readyz",
		"0.0.0.0:8080":   "http://127.0.0.1:8080/readyz",
		"[::]:8080":      "http://[::1]:8080/readyz",
		"10.1.2.3:9000":  "http://10.1.2.3:9000/readyz",
		"localhost:8080": "http://localhost:8080/readyz",
	} {
		got, err := readyzURL(addr)
		if err != nil || got != want {
			t.Errorf("readyzURL(%q) = %q, %v; want %q", addr, got, err, want)
		}
	}
}
