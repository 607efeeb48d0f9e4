package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/pgtest"
)

// pg gives tests a database of their own (for AZUL_DATABASE_URL).
var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{}, &pg))
}

// syncBuffer is a bytes.Buffer safe for the server's log writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// running is an azuld serve started in-process.
type running struct {
	addr   string
	cancel context.CancelFunc
	code   chan int
	log    *syncBuffer
}

// startServe runs "azuld serve" with the environment env and waits until
// it listens.
func startServe(t *testing.T, env map[string]string) *running {
	t.Helper()
	r := &running{code: make(chan int, 1), log: &syncBuffer{}}
	addr := make(chan string, 1)
	a := &process{getenv: envOf(env), stdout: r.log, stderr: r.log, listening: func(s string) { addr <- s }}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.code <- a.run(ctx, []string{"serve"}) }()
	select {
	case r.addr = <-addr:
	case code := <-r.code:
		cancel()
		t.Fatalf("azuld serve exited with %d before listening:\n%s", code, r.log)
	case <-time.After(3 * time.Minute):
		cancel()
		t.Fatalf("azuld serve did not listen within 3 minutes:\n%s", r.log)
	}
	return r
}

// stop sends the equivalent of SIGTERM and returns the exit code.
func (r *running) stop(t *testing.T) int {
	t.Helper()
	r.cancel()
	select {
	case code := <-r.code:
		return code
	case <-time.After(2 * time.Minute):
		t.Fatalf("azuld serve did not stop:\n%s", r.log)
	}
	return -1
}

// call sends one request to a running server.
func (r *running) call(t *testing.T, method, path, token, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+r.addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, data
}

// dataDir is a folder the server's OS account can reach even when the
// tests run as root (t.TempDir's parents are private to the caller).
func dataDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "azuld-serve-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// TestServeEmbeddedClusterKeepsData: with no database configured, azuld
// starts a private cluster, serves, stops cleanly, and a second start
// finds the data of the first.
func TestServeEmbeddedClusterKeepsData(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"AZUL_DATA_DIR":  dataDir(t),
		"AZUL_HTTP_ADDR": "127.0.0.1:0",
		"AZUL_PG_BIN":    os.Getenv("AZUL_PG_BIN"),
	}
	r := startServe(t, env)
	if status, _ := r.call(t, http.MethodGet, "/readyz", "", ""); status != http.StatusOK {
		t.Fatalf("readyz: %d", status)
	}
	status, body := r.call(t, http.MethodPost, "/v1/players", "", `{"name":"Ana"}`)
	if status != http.StatusCreated {
		t.Fatalf("register: %d %s", status, body)
	}
	var reg struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(body, &reg); err != nil {
		t.Fatal(err)
	}
	status, body = r.call(t, http.MethodPost, "/v1/games", reg.Token, `{"ruleset":"azul-mini","seats":[{"player":"me"},{"bot":"random"}]}`)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, body)
	}
	log := r.log.String()
	if code := r.stop(t); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, r.log)
	}
	for _, want := range []string{`"msg":"configuration"`, `"AZUL_HTTP_ADDR":"127.0.0.1:0 (env)"`, `"msg":"azuld is listening"`, `"url":"http://127.0.0.1:`,
		// The server connects as its own role, not as the superuser.
		`"database":"postgres://azuld_server:xxxxx@127.0.0.1:`} {
		if !strings.Contains(log, want) {
			t.Errorf("the start-up log lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, historyWarning) {
		t.Errorf("the private cluster's server role may rewrite history:\n%s", log)
	}
	if !strings.Contains(r.log.String(), "private PostgreSQL cluster stopped") {
		t.Errorf("the cluster was not stopped:\n%s", r.log)
	}

	r = startServe(t, env)
	defer r.stop(t)
	if status, body := r.call(t, http.MethodGet, "/v1/me/turns", reg.Token, ""); status != http.StatusOK {
		t.Fatalf("the second start lost the data: %d %s", status, body)
	}
	status, body = r.call(t, http.MethodGet, "/v1/games", "", "")
	if status != http.StatusOK || !strings.Contains(string(body), `"ruleset":"azul-mini"`) {
		t.Fatalf("the second start lost the game: %d %s", status, body)
	}
}

// TestServeWithoutBinariesSaysWhatToDo: no binaries, no database URL.
func TestServeWithoutBinariesSaysWhatToDo(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	a := &process{getenv: envOf(map[string]string{
		"AZUL_DATA_DIR": dataDir(t), "AZUL_PG_BIN": "/nonexistent/bin", "AZUL_HTTP_ADDR": "127.0.0.1:0",
	}), stdout: &out, stderr: &out}
	if code := a.run(t.Context(), []string{"serve"}); code != 1 {
		t.Fatalf("exit code %d", code)
	}
	for _, want := range []string{"install", "AZUL_PG_BIN", "AZUL_DATABASE_URL"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the error does not mention %s:\n%s", want, out.String())
		}
	}
}

// TestAdminCommandsWithDatabaseURL: migrate, projections rebuild and
// serve against a configured database.
func TestAdminCommandsWithDatabaseURL(t *testing.T) {
	t.Parallel()
	url := pg.NewDatabase(t)
	var out syncBuffer
	a := &process{getenv: envOf(map[string]string{"AZUL_DATABASE_URL": url}), stdout: &out, stderr: &out}
	if code := a.run(t.Context(), []string{"migrate"}); code != 0 {
		t.Fatalf("migrate: %d\n%s", code, out.String())
	}
	if code := a.run(t.Context(), []string{"migrate"}); code != 0 {
		t.Fatalf("a second migrate must change nothing and succeed: %d\n%s", code, out.String())
	}
	r := startServe(t, map[string]string{"AZUL_DATABASE_URL": url, "AZUL_HTTP_ADDR": "127.0.0.1:0"})
	status, body := r.call(t, http.MethodPost, "/v1/players", "", `{"name":"Ana"}`)
	if status != http.StatusCreated {
		t.Fatalf("register: %d %s", status, body)
	}
	var reg struct {
		Token string `json:"token"`
	}
	_ = json.Unmarshal(body, &reg)
	if status, body := r.call(t, http.MethodPost, "/v1/games", reg.Token, `{"ruleset":"summer-pavilion","seats":[{"player":"me"},{"bot":"random"},{"bot":"random"}]}`); status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, body)
	}
	if code := r.stop(t); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if u, err := neturl.Parse(url); err == nil {
		if pw, ok := u.User.Password(); ok && strings.Contains(r.log.String(), pw) {
			t.Error("the database password was logged")
		}
	}
	out = syncBuffer{}
	if code := a.run(t.Context(), []string{"projections", "rebuild"}); code != 0 {
		t.Fatalf("projections rebuild: %d\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "projections rebuilt") {
		t.Errorf("output %s", out.String())
	}
}

// TestServeWithMail: the SMTP listener and the inbound endpoint start with
// the server, secrets stay out of the log, and the server stops cleanly.
func TestServeWithMail(t *testing.T) {
	t.Parallel()
	url := pg.NewDatabase(t)
	secret, metricsToken := "inbound-secret-for-the-serve-test", "metrics-token-for-the-serve-test"
	r := startServe(t, map[string]string{
		"AZUL_DATABASE_URL": url, "AZUL_HTTP_ADDR": "127.0.0.1:0",
		"AZUL_SMTP_LISTEN": "127.0.0.1:0", "AZUL_INBOUND_SECRET": secret, "AZUL_MAIL_DOMAIN": "azul.example.org",
		"AZUL_NOTIFY_WORKERS": "1", "AZUL_METRICS_TOKEN": metricsToken,
	})
	if status, body := r.call(t, http.MethodPost, "/v1/inbound/email", "", "From: a@b\r\n\r\n1\r\n"); status != http.StatusUnauthorized {
		t.Fatalf("inbound without the secret: %d %s", status, body)
	}
	if status, body := r.call(t, http.MethodPost, "/v1/inbound/email", secret, "From: a@example.org\r\nTo: play+abc@azul.example.org\r\nMessage-ID: <1@example.org>\r\n\r\n1\r\n"); status != http.StatusOK || !strings.Contains(string(body), "unknown_token") {
		t.Fatalf("inbound with the secret: %d %s", status, body)
	}
	if status, _ := r.call(t, http.MethodGet, "/metrics", "", ""); status != http.StatusUnauthorized {
		t.Fatalf("metrics without the token: %d", status)
	}
	if status, body := r.call(t, http.MethodGet, "/metrics", metricsToken, ""); status != http.StatusOK || !strings.Contains(string(body), `azuld_inbound_mails_total{outcome="unknown_token"} 1`) {
		t.Fatalf("metrics: %d\n%s", status, body)
	}
	if code := r.stop(t); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, r.log)
	}
	log := r.log.String()
	if !strings.Contains(log, "azuld takes replies by SMTP") {
		t.Errorf("the SMTP listener did not start:\n%s", log)
	}
	if strings.Contains(log, secret) || strings.Contains(log, metricsToken) {
		t.Error("the inbound secret or the metrics token was logged")
	}
}

// TestServeMetricsAddr: by default the public port does not serve
// /metrics; AZUL_METRICS_ADDR serves it, without a token, on the
// operator's address.
func TestServeMetricsAddr(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	metricsAddr := l.Addr().String()
	l.Close()
	r := startServe(t, map[string]string{
		"AZUL_DATABASE_URL": pg.NewDatabase(t), "AZUL_HTTP_ADDR": "127.0.0.1:0", "AZUL_NOTIFY": "false",
		"AZUL_METRICS_ADDR": metricsAddr,
	})
	defer r.stop(t)
	if status, body := r.call(t, http.MethodGet, "/metrics", "", ""); status != http.StatusNotFound || strings.Contains(string(body), "azuld_") {
		t.Fatalf("public /metrics: %d", status)
	}
	res, err := http.Get("http://" + metricsAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "azuld_http_requests_total") {
		t.Fatalf("the operator's /metrics: %d\n%s", res.StatusCode, body)
	}
}
