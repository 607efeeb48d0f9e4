package deploy

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// images are the compose files' image variables (those
// scripts/images/build.sh --names prints), the services that use them,
// and the local builds' names, used when a variable is not set.
var images = []struct{ env, service, local string }{
	{"AZUL_IMAGE", "azuld", "azuld-local/azuld:dev"},
	{"AZUL_PG_IMAGE", "postgres", "azuld-local/postgres:15"},
	{"AZUL_MAILPIT_IMAGE", "mailpit", "azuld-local/mailpit:v1.27.11"},
	{"AZUL_CADDY_IMAGE", "caddy", "azuld-local/caddy:v2.11.9"},
	{"AZUL_HAPROXY_IMAGE", "smtp-proxy", "azuld-local/haproxy:2.6"},
	{"AZUL_PATRONI_IMAGE", "pg1", "azuld-local/patroni:15"},
	{"AZUL_ETCD_IMAGE", "etcd1", "azuld-local/etcd:3.4"},
}

// replicasOnly are the services only docker-compose.replicas.yml has.
var replicasOnly = []string{"caddy", "smtp-proxy"}

// haOnly are the services only docker-compose.ha.yml has (one of each
// image).
var haOnly = []string{"pg1", "etcd1"}

// runs reports whether the stack of these compose files runs the service.
func runs(service string, files []string) bool {
	ha := slices.Contains(files, "docker-compose.ha.yml")
	switch {
	case slices.Contains(replicasOnly, service):
		return slices.Contains(files, "docker-compose.replicas.yml")
	case slices.Contains(haOnly, service):
		return ha
	case service == "postgres":
		// The HA stack's nodes take the single PostgreSQL's place.
		return !ha
	}
	return true
}

// stack is one compose project of this test run: its own project name
// (hence containers, networks and volume) and free host ports, so that
// the compose tests run beside each other (each waits mostly on its
// containers).
type stack struct {
	t       *testing.T
	project string
	files   []string
	env     []string
	http    string // base URL of azuld (or of Caddy) on loopback
	port    int    // the published HTTP port
	smtp    string // azuld's SMTP listener (or HAProxy) on loopback
	mailpit string // base URL of mailpit's API on loopback
}

// enabled reports whether the compose tests are to run; when not, it says
// why in the test log.
func enabled(t *testing.T) bool {
	t.Helper()
	if os.Getenv("AZUL_COMPOSE_TEST") != "1" {
		t.Log("AZUL_COMPOSE_TEST is not 1: the compose stack was not started (.ci/run sets it once " +
			"the Docker engine answers and scripts/images/build.sh has built the images)")
		return false
	}
	return true
}

// newStack checks the tools and images, and prepares (not starts) a
// project from the given compose files (relative to the repository's root).
func newStack(t *testing.T, files ...string) *stack {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "docker", "compose", "version", "--short").CombinedOutput(); err != nil {
		t.Fatalf("docker compose (v2) is needed: %v: %s (scripts/install-compose-plugin.sh builds it)", err, out)
	}
	s := &stack{t: t, project: "azultest-" + randomHex(t, 4)}
	for _, f := range files {
		s.files = append(s.files, filepath.Join(repoRoot(), f))
	}
	for _, img := range images {
		if !runs(img.service, files) {
			continue // e.g. only the replicas have proxies
		}
		name := cmp.Or(os.Getenv(img.env), img.local)
		if out, err := exec.CommandContext(ctx, "docker", "image", "inspect", "--format", "{{.Id}}", name).CombinedOutput(); err != nil {
			t.Fatalf("image %s (%s) is missing: %v: %s (scripts/images/build.sh builds the local images; "+
				"there is no registry to pull from)", name, img.env, err, bytes.TrimSpace(out))
		}
		s.env = append(s.env, img.env+"="+name)
	}
	httpPort, smtpPort, mailPort := freePort(t), freePort(t), freePort(t)
	// AZUL_BASE_URL is left to its default, as a user leaves it, which
	// must follow the HTTP port.
	s.env = append(s.env,
		"AZUL_BASE_URL=",
		// The tests' players move by the API and by mail at machine speed
		// and wait for each turn mail: none is held back for a player
		// who just moved.
		"AZUL_AWAY_DELAY=0",
		"AZUL_PUBLISH_ADDR=127.0.0.1",
		"AZUL_HTTP_PORT="+strconv.Itoa(httpPort),
		"AZUL_SMTP_PORT="+strconv.Itoa(smtpPort),
		"AZUL_MAILPIT_PORT="+strconv.Itoa(mailPort),
		"COMPOSE_PROJECT_NAME="+s.project,
	)
	s.port = httpPort
	s.http = "http://127.0.0.1:" + strconv.Itoa(httpPort)
	s.mailpit = "http://127.0.0.1:" + strconv.Itoa(mailPort)
	s.smtp = "127.0.0.1:" + strconv.Itoa(smtpPort)
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := s.compose(context.Background(), "logs", "--no-color", "--tail", "400")
			t.Logf("logs of %s:\n%s", s.project, out)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if out, err := s.compose(ctx, "down", "--volumes", "--remove-orphans", "--timeout", "10"); err != nil {
			t.Errorf("down -v: %v: %s", err, out)
		}
	})
	return s
}

// compose runs docker compose on the project and returns its output.
func (s *stack) compose(ctx context.Context, args ...string) (string, error) {
	full := []string{"compose"}
	for _, f := range s.files {
		full = append(full, "-f", f)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, "docker", full...)
	cmd.Env = append(os.Environ(), s.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("docker %s: %w", strings.Join(full, " "), err)
	}
	return string(out), nil
}

// must runs docker compose and fails the test on an error.
func (s *stack) must(args ...string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	out, err := s.compose(ctx, args...)
	if err != nil {
		s.t.Fatalf("%v\n%s", err, out)
	}
	s.t.Logf("docker compose %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return out
}

// docker runs a docker command and returns its output.
func docker(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("docker %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return string(out), nil
}

// up starts the project and waits until every service is healthy. Images
// are never pulled or built here: the test runs on the images given.
func (s *stack) up(extra ...string) {
	s.t.Helper()
	s.must(append([]string{"up", "--detach", "--wait", "--wait-timeout", "180", "--no-build", "--pull", "never"}, extra...)...)
}

// waitReady polls url until it answers 200.
func waitReady(t *testing.T, url string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	var last string
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("%s not ready within %s: %s", url, within, last)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// client speaks azuld's REST API through one base URL.
type client struct {
	base string
	http *http.Client
	// mailpit, when set, is where register finds the link that confirms
	// a new player's address, and follows it.
	mailpit string
}

func newClient(base string) *client {
	return &client{base: base, http: &http.Client{Timeout: 15 * time.Second}}
}

// call sends a request; status 0 and an error mean no answer came.
func (c *client) call(ctx context.Context, method, path, token string, body any, header map[string]string) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// player is a registered player and its token.
type player struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Token string `json:"token"`
}

// gameView is the part of a game's state the tests read.
type gameView struct {
	ID      string `json:"id"`
	Version int64  `json:"version"`
	Status  string `json:"status"`
	ToAct   []int  `json:"to_act"`
}

type legalMove struct {
	Seat     int             `json:"seat"`
	Move     json.RawMessage `json:"move"`
	Notation string          `json:"notation"`
}

// record is an event as the API returns it.
type record struct {
	Version  int64  `json:"version"`
	Position int64  `json:"position"`
	Type     string `json:"type"`
	Meta     struct {
		Channel string `json:"channel"`
	} `json:"meta"`
}

type moveResult struct {
	Version        int64    `json:"version"`
	Events         []record `json:"events"`
	CurrentVersion int64    `json:"current_version"`
	Status         string   `json:"status"`
	Replayed       bool     `json:"replayed"`
}

// retrying sends a request until azuld answers with a status that is not
// a gateway's or an overloaded server's (502, 503, 504), or within runs
// out: what a client behind a proxy does. Every request is safe to send
// again: reads are, and moves carry an Idempotency-Key.
func (c *client) retrying(ctx context.Context, within time.Duration, method, path, token string, body any, header map[string]string) (int, []byte, int, error) {
	deadline := time.Now().Add(within)
	var status int
	var b []byte
	var err error
	for tries := 1; ; tries++ {
		status, b, err = c.call(ctx, method, path, token, body, header)
		if err == nil && status != http.StatusBadGateway && status != http.StatusServiceUnavailable && status != http.StatusGatewayTimeout {
			return status, b, tries - 1, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			if err == nil {
				err = fmt.Errorf("status %d: %s", status, b)
			}
			return status, b, tries - 1, fmt.Errorf("%s %s: no answer within %s after %d tries: %w", method, path, within, tries, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (c *client) register(ctx context.Context, t *testing.T, name string) player {
	t.Helper()
	p := player{Name: name, Email: strings.ToLower(name) + "@example.org"}
	status, b, _, err := c.retrying(ctx, 30*time.Second, http.MethodPost, "/v1/players", "", map[string]string{"name": p.Name, "email": p.Email}, nil)
	if err != nil || status != http.StatusCreated {
		t.Fatalf("register %s: %d %s %v", name, status, b, err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if c.mailpit != "" {
		c.confirm(ctx, t, c.mailpit, p)
	}
	return p
}

// confirm follows the link that confirms p's address, as its owner
// would: the mail from mailpit, the link's page, its form. Until then
// azuld mails the address nothing else.
func (c *client) confirm(ctx context.Context, t *testing.T, mailpit string, p player) {
	t.Helper()
	var link mail
	waitMails(t, mailpit, time.Minute, func(ms []mail) bool {
		for _, m := range ms {
			if len(m.To) == 1 && m.To[0].Address == p.Email && strings.Contains(m.Subject, "confirm your address") {
				link = m
				return true
			}
		}
		return false
	})
	var full struct {
		Text string `json:"Text"`
	}
	if err := getJSON(ctx, mailpit+"/api/v1/message/"+link.ID, &full); err != nil {
		t.Fatalf("the confirmation mail to %s: %v", p.Email, err)
	}
	at := strings.Index(full.Text, "/signin/link/")
	if at < 0 {
		t.Fatalf("the confirmation mail to %s has no link:\n%s", p.Email, full.Text)
	}
	path := strings.Fields(full.Text[at:])[0]
	// The page's form carries the visitor's CSRF token, bound to a cookie.
	jar := &http.Client{Timeout: 15 * time.Second, Jar: newJar(t), CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := jar.Get(c.base + path)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, rest, ok := strings.Cut(string(page), `name="csrf" value="`)
	csrf, _, _ := strings.Cut(rest, `"`)
	if resp.StatusCode != http.StatusOK || !ok {
		t.Fatalf("the confirmation link's page: %d\n%s", resp.StatusCode, page)
	}
	resp, err = jar.PostForm(c.base+path, map[string][]string{"csrf": {csrf}, "token": {strings.TrimPrefix(path, "/signin/link/")}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("following the confirmation link: %d", resp.StatusCode)
	}
	var me struct {
		EmailVerified bool `json:"email_verified"`
	}
	status, b, err := c.call(ctx, http.MethodGet, "/v1/me", p.Token, nil, nil)
	if err != nil || status != http.StatusOK || json.Unmarshal(b, &me) != nil || !me.EmailVerified {
		t.Fatalf("after the link, /v1/me: %d %s %v", status, b, err)
	}
}

// getJSON decodes the answer of a GET.
func getJSON(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(out)
}

// newJar is a cookie jar for one browser.
func newJar(t *testing.T) http.CookieJar {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return jar
}

// createGame starts an Azul Mini game of two players.
func (c *client) createGame(ctx context.Context, a, b player) (gameView, error) {
	body := map[string]any{"ruleset": "azul-mini", "seats": []map[string]string{{"player": "me"}, {"player": b.ID}}}
	status, raw, _, err := c.retrying(ctx, 30*time.Second, http.MethodPost, "/v1/games", a.Token, body, nil)
	if err != nil {
		return gameView{}, err
	}
	if status != http.StatusCreated {
		return gameView{}, fmt.Errorf("create game: %d %s", status, raw)
	}
	var g gameView
	if err := json.Unmarshal(raw, &g); err != nil {
		return gameView{}, err
	}
	return c.accept(ctx, g, b, 30*time.Second)
}

// accept is b's yes to the invitation to game g (a seat that names
// another player waits for them): the game as it stands once b holds
// the seat, which is active. A retried join whose first try went
// through is refused (the seat is held); the game then tells.
func (c *client) accept(ctx context.Context, g gameView, b player, within time.Duration) (gameView, error) {
	if g.Status == "active" {
		return g, nil
	}
	status, raw, _, err := c.retrying(ctx, within, http.MethodPost, "/v1/games/"+g.ID+"/join", b.Token, nil, nil)
	if err != nil {
		return gameView{}, err
	}
	switch status {
	case http.StatusOK:
		if err := json.Unmarshal(raw, &g); err != nil {
			return gameView{}, err
		}
	case http.StatusForbidden:
		if g, err = c.game(ctx, g.ID); err != nil {
			return gameView{}, err
		}
	default:
		return gameView{}, fmt.Errorf("accept the invitation to %s: %d %s", g.ID, status, raw)
	}
	if g.Status != "active" {
		return gameView{}, fmt.Errorf("game %s is %q once its invitation is accepted, want active", g.ID, g.Status)
	}
	return g, nil
}

// game reads a game's state.
func (c *client) game(ctx context.Context, id string) (gameView, error) {
	status, b, _, err := c.retrying(ctx, 30*time.Second, http.MethodGet, "/v1/games/"+id, "", nil, nil)
	if err != nil {
		return gameView{}, err
	}
	if status != http.StatusOK {
		return gameView{}, fmt.Errorf("GET game %s: %d %s", id, status, b)
	}
	var g gameView
	return g, json.Unmarshal(b, &g)
}

// playOne makes one move in g for the seat to act, chosen among its legal
// moves other than resign, and returns the acknowledged result and how
// many times a request had to be sent again.
func (c *client) playOne(ctx context.Context, g gameView, seats [2]player, pick func(int) int) (moveResult, int, error) {
	seat := g.ToAct[0]
	p := seats[seat]
	path := "/v1/games/" + g.ID
	status, b, retries, err := c.retrying(ctx, 30*time.Second, http.MethodGet, path+"/legal-moves", p.Token, nil, nil)
	if err != nil {
		return moveResult{}, retries, err
	}
	if status != http.StatusOK {
		return moveResult{}, retries, fmt.Errorf("legal-moves at %d: %d %s", g.Version, status, b)
	}
	var lm struct {
		Version int64       `json:"version"`
		Moves   []legalMove `json:"moves"`
	}
	if err := json.Unmarshal(b, &lm); err != nil {
		return moveResult{}, retries, err
	}
	moves := slices.DeleteFunc(lm.Moves, func(m legalMove) bool { return m.Notation == "resign" })
	if lm.Version != g.Version || len(moves) == 0 {
		return moveResult{}, retries, fmt.Errorf("legal-moves at %d (game at %d): %d moves besides resign", lm.Version, g.Version, len(moves))
	}
	m := moves[pick(len(moves))]
	hdr := map[string]string{
		"If-Match": strconv.FormatInt(g.Version, 10),
		// The same key on every try: a move whose answer was lost is
		// answered with its first result instead of being made twice.
		"Idempotency-Key": fmt.Sprintf("%s-%d", g.ID, g.Version),
	}
	status, b, more, err := c.retrying(ctx, 30*time.Second, http.MethodPost, path+"/moves", p.Token, m.Move, hdr)
	retries += more
	if err != nil {
		return moveResult{}, retries, err
	}
	if status != http.StatusCreated {
		return moveResult{}, retries, fmt.Errorf("move %s at %d: %d %s", m.Notation, g.Version, status, b)
	}
	var res moveResult
	return res, retries, json.Unmarshal(b, &res)
}

// events reads a game's whole event log.
func (c *client) events(ctx context.Context, id string) ([]record, error) {
	status, b, _, err := c.retrying(ctx, 30*time.Second, http.MethodGet, "/v1/games/"+id+"/events?format=jsonl", "", nil, nil)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("events of %s: %d %s", id, status, b)
	}
	var out []record
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var r record
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
}

// randomPick chooses uniformly with crypto/rand (no seed to keep).
func randomPick(n int) int {
	v, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return int(v.Int64())
}

// mail is a message as mailpit lists it.
type mail struct {
	ID        string `json:"ID"`
	MessageID string `json:"MessageID"`
	Subject   string `json:"Subject"`
	To        []struct {
		Address string `json:"Address"`
	} `json:"To"`
}

// kind is the mail's kind, from azuld's Message-ID
// <azuld.<game>.<version>.<seat>.<kind>@<domain>>, and its game.
func (m mail) kind() (game, kind string) {
	local, _, _ := strings.Cut(strings.Trim(m.MessageID, "<>"), "@")
	parts := strings.Split(local, ".")
	if len(parts) != 5 || parts[0] != "azuld" {
		return "", ""
	}
	return parts[1], parts[4]
}

// mails lists every message mailpit caught.
func mails(ctx context.Context, base string) ([]mail, error) {
	var out []mail
	for start := 0; ; start += 500 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/messages?start=%d&limit=500", base, start), nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, fmt.Errorf("mailpit: %w", err)
		}
		var page struct {
			Total    int    `json:"total"`
			Messages []mail `json:"messages"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("mailpit: %w", err)
		}
		out = append(out, page.Messages...)
		if len(page.Messages) == 0 || len(out) >= page.Total {
			return out, nil
		}
	}
}

// waitMails polls mailpit until ok says the mails are complete.
func waitMails(t *testing.T, base string, within time.Duration, ok func([]mail) bool) []mail {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ms, err := mails(ctx, base)
		cancel()
		if err == nil && ok(ms) {
			return ms
		}
		if time.Now().After(deadline) {
			t.Fatalf("mails not complete within %s (%d caught, err %v)", within, len(ms), err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// count tallies mails by kind for one game, and checks that no mail came
// twice (the same Message-ID is the same notification).
func count(t *testing.T, ms []mail, game string) map[string]int {
	t.Helper()
	seen := map[string]int{}
	kinds := map[string]int{}
	for _, m := range ms {
		g, k := m.kind()
		if g != game {
			continue
		}
		seen[m.MessageID]++
		if seen[m.MessageID] == 2 {
			t.Errorf("mail %s (%q) sent more than once", m.MessageID, m.Subject)
		}
		kinds[k]++
	}
	return kinds
}
