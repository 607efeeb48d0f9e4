package api

import (
	"context"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// policyWith is the default policy with some limits changed ("name":
// "5/h" or "off").
func policyWith(t testing.TB, changes map[string]string) limits.Policy {
	t.Helper()
	p, err := limits.ParsePolicy(func(name string) string { return changes[name] })
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// newLimitedEnv is a test server whose rate limits are on.
func newLimitedEnv(t testing.TB, changes map[string]string, opts ...func(*setup)) *testEnv {
	t.Helper()
	url := pg.ServerRoleURL(t, pg.NewDatabase(t))
	return newTestEnvAt(t, url, 0, append([]func(*setup){func(c *setup) {
		c.app.Limits, c.app.Policy = limits.Options{}, policyWith(t, changes)
	}}, opts...)...)
}

// mustBeLimited checks a 429: problem+json of the rate-limited type
// naming the limit, with a Retry-After the problem repeats.
func mustBeLimited(t testing.TB, r response, limit string) Problem {
	t.Helper()
	if r.Status != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429: %s", r.Status, r.Body)
	}
	p := r.problem(t)
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if p.Type != ProblemRateLimited || p.Limit != limit || err != nil || secs < 1 || secs != p.RetryAfter {
		t.Fatalf("limited by %q (type %s), Retry-After %q, retry_after %d: %s", p.Limit, p.Type, r.Header.Get("Retry-After"), p.RetryAfter, r.Body)
	}
	if !strings.Contains(p.Detail, "Too many") || !strings.Contains(p.Detail, "try again in") {
		t.Errorf("the detail does not say what was limited and when: %q", p.Detail)
	}
	return p
}

func (env *testEnv) countOf(t testing.TB, query string) int {
	t.Helper()
	var n int
	if err := env.pool.QueryRow(context.Background(), query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Registrations are limited per client address; the refused one creates
// nothing.
func TestRegistrationsLimitedPerAddress(t *testing.T) {
	t.Parallel()
	env := newLimitedEnv(t, map[string]string{limits.Registrations: "2/h"})
	env.register(t, "Ana")
	env.register(t, "Ben")
	res := env.anonymous(t).call(http.MethodPost, "/v1/players", map[string]string{"name": "Cy", "email": "cy@example.org"})
	p := mustBeLimited(t, res, limits.Registrations)
	if p.RetryAfter < 1700 || p.RetryAfter > 1800 {
		t.Errorf("retry after %d s, want about half an hour (one of two an hour)", p.RetryAfter)
	}
	if n := env.countOf(t, `SELECT count(*) FROM players`); n != 2 {
		t.Fatalf("%d players after a refused registration", n)
	}
}

// After N wrong bearer tokens from an address, the address is refused
// with 429 even with a right token; another address is not; right tokens
// are never counted.
func TestTokenBruteForceLimited(t *testing.T) {
	t.Parallel()
	proxy := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	env := newLimitedEnv(t, map[string]string{limits.FailedTokens: "3/h"}, func(c *setup) { c.api.TrustedProxies = proxy })
	ana := env.register(t, "Ana")
	from := func(addr string) header { return header{"X-Forwarded-For", addr} }
	// Right tokens, many times: never counted.
	for range 10 {
		ana.call(http.MethodGet, "/v1/me", nil, from("198.51.100.1")).mustStatus(t, http.StatusOK)
	}
	guesser := &client{t: t, env: env}
	for i := range 3 {
		guesser.token = "azt_guess" + strconv.Itoa(i)
		guesser.call(http.MethodGet, "/v1/me", nil, from("198.51.100.1")).mustStatus(t, http.StatusUnauthorized)
	}
	guesser.token = "azt_guess4"
	mustBeLimited(t, guesser.call(http.MethodGet, "/v1/me", nil, from("198.51.100.1")), limits.FailedTokens)
	// The right token from the same address: refused too, cached or not.
	mustBeLimited(t, ana.call(http.MethodGet, "/v1/me", nil, from("198.51.100.1")), limits.FailedTokens)
	fresh := &client{t: t, env: env, token: ana.token}
	// As on another replica, whose cache does not hold the token.
	env.srv.auth.mu.Lock()
	clear(env.srv.auth.entries)
	env.srv.auth.mu.Unlock()
	mustBeLimited(t, fresh.call(http.MethodGet, "/v1/me", nil, from("198.51.100.1")), limits.FailedTokens)
	// Another address is not limited. IPv6 addresses count by /64: the
	// guesser's /64 is limited, the next /64 is not.
	ana.call(http.MethodGet, "/v1/me", nil, from("198.51.100.2")).mustStatus(t, http.StatusOK)
	for i := range 3 {
		guesser.token = "azt_v6guess" + strconv.Itoa(i)
		guesser.call(http.MethodGet, "/v1/me", nil, from("2001:db8:1:2::"+strconv.Itoa(i+1))).mustStatus(t, http.StatusUnauthorized)
	}
	mustBeLimited(t, ana.call(http.MethodGet, "/v1/me", nil, from("2001:db8:1:2:ffff::9")), limits.FailedTokens)
	ana.call(http.MethodGet, "/v1/me", nil, from("2001:db8:1:3::1")).mustStatus(t, http.StatusOK)
	// Without a trusted proxy a client's X-Forwarded-For is not believed:
	// shown in TestClientAddressComesOnlyFromTrustedProxies.
}

// Moves, games created, invitations and API calls are limited per
// account; a refused request changes nothing, and other accounts go on.
func TestAccountLimits(t *testing.T) {
	t.Parallel()
	env := newLimitedEnv(t, map[string]string{limits.Moves: "2/min", limits.Games: "2/h", limits.Invitations: "2/d"})
	ana, ben, cy := env.register(t, "Ana"), env.register(t, "Ben"), env.register(t, "Cy")

	// Invitations: seats given to others (not me, bots or open seats).
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}, {Player: cy.Player.ID}}})
	before := env.countOf(t, `SELECT count(*) FROM games`)
	res := ana.call(http.MethodPost, "/v1/games", play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	mustBeLimited(t, res, limits.Invitations)
	// Games: the second is allowed (its invitation was not), the third not.
	ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "random"}}})
	mustBeLimited(t, ana.call(http.MethodPost, "/v1/games", play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {}}}), limits.Games)
	if n := env.countOf(t, `SELECT count(*) FROM games`); n != before+1 {
		t.Fatalf("%d games created by refused requests", n-before-1)
	}
	ben.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {}}})

	// Moves: Ana's third in a minute is refused and the game stays.
	ana.firstMove(g.ID)
	ben.firstMove(g.ID)
	cy.firstMove(g.ID)
	ana.firstMove(g.ID)
	ben.firstMove(g.ID)
	cy.firstMove(g.ID)
	st := ana.getGame(g.ID)
	res = ana.call(http.MethodPost, "/v1/games/"+g.ID+"/moves", map[string]any{"move": st.LegalMoves[0].Move})
	mustBeLimited(t, res, limits.Moves)
	if after := ana.getGame(g.ID); after.Version != st.Version {
		t.Fatalf("a refused move changed the game: version %d → %d", st.Version, after.Version)
	}
}

// API calls per account: past the limit every authenticated call is
// refused for that account only.
func TestAPICallsLimitedPerAccount(t *testing.T) {
	t.Parallel()
	env := newLimitedEnv(t, map[string]string{limits.APICalls: "5/min"})
	ana, ben := env.register(t, "Ana"), env.register(t, "Ben")
	for range 5 {
		ana.call(http.MethodGet, "/v1/me", nil).mustStatus(t, http.StatusOK)
	}
	mustBeLimited(t, ana.call(http.MethodGet, "/v1/me/turns", nil), limits.APICalls)
	ben.call(http.MethodGet, "/v1/me", nil).mustStatus(t, http.StatusOK)
	// Anonymous reads are not an account's.
	env.anonymous(t).call(http.MethodGet, "/healthz", nil).mustStatus(t, http.StatusOK)
}

// AZUL_RATE_LIMITS=off: nothing is limited and nothing stored.
func TestLimitsOff(t *testing.T) {
	t.Parallel()
	url := pg.ServerRoleURL(t, pg.NewDatabase(t))
	env := newTestEnvAt(t, url, 0, func(c *setup) {
		c.app.Limits, c.app.Policy = limits.Options{Off: true}, policyWith(t, map[string]string{limits.Registrations: "1/h"})
	})
	for _, name := range []string{"Ana", "Ben", "Cy"} {
		env.register(t, name)
	}
	if n := env.countOf(t, `SELECT count(*) FROM rate_limits`); n != 0 {
		t.Fatalf("%d rows stored with limits off", n)
	}
}

// When the limiter's database fails, requests go on (fail open): an
// outage of the limiter must not stop play.
func TestLimiterOutageFailsOpen(t *testing.T) {
	t.Parallel()
	broken, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broken.Close)
	url := pg.ServerRoleURL(t, pg.NewDatabase(t))
	env := newTestEnvAt(t, url, 0, func(c *setup) {
		c.app.Limiter, c.app.Policy = limits.New(broken, limits.Options{}), policyWith(t, map[string]string{limits.Registrations: "1/h", limits.FailedTokens: "1/h"})
	})
	env.register(t, "Ana")
	ben := env.register(t, "Ben")
	guesser := &client{t: t, env: env, token: "azt_wrong"}
	guesser.call(http.MethodGet, "/v1/me", nil).mustStatus(t, http.StatusUnauthorized)
	guesser.call(http.MethodGet, "/v1/me", nil).mustStatus(t, http.StatusUnauthorized)
	ben.call(http.MethodGet, "/v1/me", nil).mustStatus(t, http.StatusOK)
}

// Wrong stop-link tokens and wrong inbound mail secrets count as failed
// tokens too: past the limit the address is refused before they are
// looked at.
func TestOtherSecretsLimited(t *testing.T) {
	t.Parallel()
	env := newLimitedEnv(t, map[string]string{limits.FailedTokens: "3/h"})
	anon := env.anonymous(t)
	anon.call(http.MethodGet, "/v1/mail/stop?token=guess1", nil).mustStatus(t, http.StatusNotFound)
	anon.call(http.MethodPost, "/v1/mail/stop?token=guess2", nil).mustStatus(t, http.StatusNotFound)
	anon.call(http.MethodPost, "/v1/inbound/email", "From: a@b\r\n\r\n1\r\n", header{"Authorization", "Bearer wrong"}).mustStatus(t, http.StatusUnauthorized)
	mustBeLimited(t, anon.call(http.MethodGet, "/v1/mail/stop?token=guess3", nil), limits.FailedTokens)
	mustBeLimited(t, anon.call(http.MethodPost, "/v1/inbound/email", "From: a@b\r\n\r\n1\r\n", header{"Authorization", "Bearer " + testInboundSecret}), limits.FailedTokens)
}
