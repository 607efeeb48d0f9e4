package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/account"
	"github.com/azuld/azuld/internal/eventually"
)

// profileOf reads GET /v1/me.
func (c *client) profile() account.Profile {
	c.t.Helper()
	var p account.Profile
	c.call(http.MethodGet, "/v1/me", nil).mustStatus(c.t, http.StatusOK).decode(c.t, &p)
	return p
}

// tokens reads GET /v1/me/tokens.
func (c *client) tokens() []account.Token {
	c.t.Helper()
	var out struct {
		Tokens []account.Token `json:"tokens"`
	}
	c.call(http.MethodGet, "/v1/me/tokens", nil).mustStatus(c.t, http.StatusOK).decode(c.t, &out)
	return out.Tokens
}

func TestProfileUpdate(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")

	p := ana.profile()
	if p.ID != ana.Player.ID || p.Name != "Ana" || p.Language != "en" || p.TimeZone != "UTC" || p.Email != "ana@example.org" {
		t.Fatalf("a new player's profile = %+v", p)
	}

	var got account.Profile
	ana.call(http.MethodPatch, "/v1/me", map[string]string{"name": "  Ana B  ", "language": "nl", "time_zone": "Europe/Amsterdam"}).
		mustStatus(t, http.StatusOK).decode(t, &got)
	want := p
	want.Name, want.Language, want.TimeZone = "Ana B", "nl", "Europe/Amsterdam"
	if got != want {
		t.Fatalf("PATCH answered %+v, want %+v", got, want)
	}
	// The name is read back at once, past the token cache of this replica.
	if p := ana.profile(); p != want {
		t.Fatalf("GET /v1/me after the change = %+v, want %+v", p, want)
	}

	// Bad input: a clear 400 and nothing changed, even where the other
	// fields of the same request are good.
	for _, body := range []string{
		`{}`,
		`{"nick":"x"}`,
		`{"name":"Ana C","language":"fr"}`,
		`{"name":"Ana C","time_zone":"Mars/Olympus_Mons"}`,
		`{"time_zone":"Local"}`,
		`{"time_zone":""}`,
		`{"time_zone":"../../etc/passwd"}`,
		`{"name":""}`,
		`{"name":"` + strings.Repeat("é", 65) + `"}`,
		`{"name":"Ana\nC"}`,
		`{"email":"not an address"}`,
		`{"email":"Ana <ana@example.org>"}`,
		`{"language":1}`,
		`[]`,
		`{"name":"Ana C"} {}`,
	} {
		res := ana.call(http.MethodPatch, "/v1/me", []byte(body))
		if res.Status != http.StatusBadRequest {
			t.Errorf("PATCH %s: status %d, want 400: %s", body, res.Status, res.Body)
			continue
		}
		if pr := res.problem(t); pr.Detail == "" {
			t.Errorf("PATCH %s: a problem without a detail", body)
		}
	}
	if p := ana.profile(); p != want {
		t.Fatalf("bad input changed the profile: %+v, want %+v", p, want)
	}
	env.anonymous(t).call(http.MethodPatch, "/v1/me", map[string]string{"name": "X"}).mustStatus(t, http.StatusUnauthorized)

	// A new address is stored and a link to it is queued.
	ana.call(http.MethodPatch, "/v1/me", map[string]string{"email": "ana.b@example.org"}).mustStatus(t, http.StatusOK)
	if p := ana.profile(); p.Email != "ana.b@example.org" {
		t.Fatalf("email = %q", p.Email)
	}
	var queued int
	err := env.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM river_job WHERE kind = 'azuld_signin_mail' AND args->>'to' = 'ana.b@example.org'`).Scan(&queued)
	if err != nil {
		t.Fatal(err)
	}
	if queued != 1 {
		t.Fatalf("%d verification mails queued for the new address, want 1", queued)
	}
	// Saving the same address again sends nothing more.
	ana.call(http.MethodPatch, "/v1/me", map[string]string{"email": "ana.b@example.org", "language": "it"}).mustStatus(t, http.StatusOK)
	if err := env.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM river_job WHERE kind = 'azuld_signin_mail'`).Scan(&queued); err != nil || queued != 1 {
		t.Fatalf("%d sign-in mails queued in all, want 1 (%v)", queued, err)
	}
	// Personal data stays out of the log.
	var inEvents int
	if err := env.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM events WHERE data::text LIKE '%ana.b@%' OR data::text LIKE '%Ana B%' OR meta::text LIKE '%ana.b@%' OR meta::text LIKE '%Ana B%'`).Scan(&inEvents); err != nil || inEvents != 0 {
		t.Fatalf("%d events hold the profile (%v)", inEvents, err)
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	bo := env.register(t, "Bo")

	// Registration's token is listed, without its secret.
	list := ana.tokens()
	if len(list) != 1 || list[0].Name != "registration" || list[0].ID == "" {
		t.Fatalf("tokens after registration = %+v", list)
	}
	raw := ana.call(http.MethodGet, "/v1/me/tokens", nil)
	if strings.Contains(string(raw.Body), "azt_") {
		t.Fatalf("the listing shows a secret: %s", raw.Body)
	}
	if list[0].LastUsedAt == nil {
		t.Errorf("the token in use has no last use: %+v", list[0])
	}

	// A new token is shown once and works.
	res := ana.call(http.MethodPost, "/v1/me/tokens", map[string]string{"name": "laptop"}).mustStatus(t, http.StatusCreated)
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("a response with a token must not be stored: %q", res.Header.Get("Cache-Control"))
	}
	var created account.NewToken
	res.decode(t, &created)
	if !strings.HasPrefix(created.Secret, "azt_") || created.Name != "laptop" || created.ID == "" {
		t.Fatalf("created = %+v", created)
	}
	laptop := &client{t: t, env: env, token: created.Secret}
	if p := laptop.profile(); p.ID != ana.Player.ID {
		t.Fatalf("the new token is %s's, want Ana's", p.Name)
	}
	if list := ana.tokens(); len(list) != 2 || list[1].Name != "laptop" {
		t.Fatalf("tokens = %+v", list)
	}

	// Bad names and bodies change nothing.
	for _, body := range []string{`{}`, `{"name":""}`, `{"name":"   "}`, `{"name":"` + strings.Repeat("x", 65) + `"}`, `{"name":"a\nb"}`, `{"name":"x","scope":"all"}`, `{"name":3}`} {
		res := ana.call(http.MethodPost, "/v1/me/tokens", []byte(body))
		if res.Status != http.StatusBadRequest {
			t.Errorf("POST /v1/me/tokens %s: status %d, want 400: %s", body, res.Status, res.Body)
			continue
		}
		res.problem(t)
	}
	if n := len(ana.tokens()); n != 2 {
		t.Fatalf("%d tokens after bad requests, want 2", n)
	}

	// Nobody revokes another's token; unknown and malformed ids are 404.
	for _, id := range []string{created.ID, "00000000-0000-4000-8000-000000000000", "nope", strings.ToUpper(created.ID)} {
		bo.call(http.MethodDelete, "/v1/me/tokens/"+id, nil).mustStatus(t, http.StatusNotFound).problem(t)
	}
	laptop.profile()

	// Revoked, it stops at once.
	ana.call(http.MethodDelete, "/v1/me/tokens/"+created.ID, nil).mustStatus(t, http.StatusNoContent)
	laptop.call(http.MethodGet, "/v1/me", nil).mustStatus(t, http.StatusUnauthorized).problem(t)
	ana.call(http.MethodDelete, "/v1/me/tokens/"+created.ID, nil).mustStatus(t, http.StatusNotFound)
	if list := ana.tokens(); len(list) != 1 || list[0].Name != "registration" {
		t.Fatalf("tokens after the revocation = %+v", list)
	}

	// At most account.MaxTokens live tokens.
	for i := 1; i < account.MaxTokens; i++ {
		ana.call(http.MethodPost, "/v1/me/tokens", map[string]string{"name": "bot"}).mustStatus(t, http.StatusCreated)
	}
	pr := ana.call(http.MethodPost, "/v1/me/tokens", map[string]string{"name": "one too many"}).mustStatus(t, http.StatusBadRequest).problem(t)
	if !strings.Contains(pr.Detail, "revoke one") {
		t.Errorf("the limit's detail %q does not say what to do", pr.Detail)
	}
	if n := len(ana.tokens()); n != account.MaxTokens {
		t.Fatalf("%d tokens, want %d", n, account.MaxTokens)
	}

	// The token in use may revoke itself; the next request is refused.
	own := ana.tokens()[0]
	ana.call(http.MethodDelete, "/v1/me/tokens/"+own.ID, nil).mustStatus(t, http.StatusNoContent)
	ana.call(http.MethodGet, "/v1/me/tokens", nil).mustStatus(t, http.StatusUnauthorized)
	// Bo is untouched.
	if n := len(bo.tokens()); n != 1 {
		t.Fatalf("Bo has %d tokens, want 1", n)
	}
}

// TestRevocationReachesOtherReplicas revokes a token on one server while
// another, over the same database, has it cached for a minute: the other
// must refuse it within the auth generation's polling bound.
func TestRevocationReachesOtherReplicas(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	var created account.NewToken
	ana.call(http.MethodPost, "/v1/me/tokens", map[string]string{"name": "bot"}).mustStatus(t, http.StatusCreated).decode(t, &created)

	other, err := New(Config{Service: newReplica(t, env), Pool: env.pool, Metrics: prometheus.NewRegistry(), AuthCacheTTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	otherHTTP := httptest.NewServer(other.Handler())
	t.Cleanup(otherHTTP.Close)
	status := func() int {
		req, err := http.NewRequest(http.MethodGet, otherHTTP.URL+"/v1/me", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+created.Secret)
		res, err := otherHTTP.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if s := status(); s != http.StatusOK {
		t.Fatalf("the other replica answers %d before the revocation", s)
	}
	// Its cache holds the token now: the database is not asked again
	// within the hour.
	ana.call(http.MethodDelete, "/v1/me/tokens/"+created.ID, nil).mustStatus(t, http.StatusNoContent)
	revoked := time.Now()
	eventually.True(t, AuthGenerationEvery+2*time.Second, func() bool { return status() == http.StatusUnauthorized },
		"the other replica still accepts the revoked token")
	t.Logf("refused by the other replica %v after the revocation", time.Since(revoked).Round(time.Millisecond))
}
