package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// me is GET /v1/me with a bearer token.
func (b *browser) me(t *testing.T, token string) play.Player {
	t.Helper()
	res := b.get("/v1/me", "Authorization", "Bearer "+token).must(t, http.StatusOK)
	var p play.Player
	if err := json.Unmarshal([]byte(res.Body), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// verifyMails counts the verification mails queued for an address.
func (e *env) verifyMails(to string) int {
	return e.count(`SELECT count(*) FROM river_job WHERE kind = 'azuld_signin_mail' AND args->>'to' = $1 AND (args->>'verify')::boolean`, to)
}

// A new player's address is unverified: registration mails the
// verification link, the lobby and GET /v1/me say so, one more link can
// be asked for (then 429), and following the link verifies the address.
func TestVerificationOfANewAddress(t *testing.T) {
	t.Parallel()
	e := newEnvTuned(t, false, nil, func(c *notify.Config) { c.VerifyAddresses = true })
	b := e.browser()
	reg := b.register("Ana", "ana@example.org")
	if !strings.Contains(reg.Body, "the link to confirm ana@example.org was printed on the terminal azuld runs in") {
		t.Fatalf("the registration page does not say a verification mail went out:\n%s", reg.Body)
	}
	token := reg.token(t)
	if n := e.verifyMails("ana@example.org"); n != 1 {
		t.Fatalf("%d verification mails queued at registration; want 1", n)
	}
	if p := b.me(t, token); p.EmailVerified || p.EmailStatus != play.EmailUnverified {
		t.Fatalf("GET /v1/me of a new player: verified %v, status %q", p.EmailVerified, p.EmailStatus)
	}
	lobby := b.get("/").must(t, http.StatusOK)
	if !strings.Contains(lobby.Body, "is not confirmed yet") || !strings.Contains(lobby.Body, `action="/verification"`) {
		t.Fatalf("the lobby does not say the address is unverified, or how to fix it:\n%s", lobby.Body)
	}

	// One more on request, from the lobby; then no more today, from the
	// lobby or the API.
	again := b.post("/verification", url.Values{"csrf": {lobby.csrf(t)}}).must(t, http.StatusOK)
	if !strings.Contains(again.Body, "the new link for ana@example.org was printed on the terminal azuld runs in") {
		t.Fatalf("no confirmation of the new link:\n%s", again.Body)
	}
	b.post("/verification", url.Values{"csrf": {lobby.csrf(t)}}).must(t, http.StatusTooManyRequests)
	api := b.do(http.MethodPost, "/v1/me/verification", nil, "", "Authorization", "Bearer "+token)
	if api.Status != http.StatusTooManyRequests || !strings.Contains(api.Header.Get("Content-Type"), "problem+json") || !strings.Contains(api.Body, "one more today") {
		t.Fatalf("a third link by the API: %d %s", api.Status, api.Body)
	}
	// A sign-in link asked for the address is held back too.
	askLinkQuiet(t, e, "ana@example.org")
	if n := e.count(`SELECT count(*) FROM river_job WHERE kind = 'azuld_signin_mail' AND args->>'to' = 'ana@example.org'`); n != 2 {
		t.Fatalf("%d link mails to an unverified address in a day; want 2", n)
	}
	// A CSRF-less post changes nothing.
	b.post("/verification", url.Values{}).must(t, http.StatusForbidden)

	// Registering by the API mails the verification link too.
	reg2 := e.browser().postJSON("/v1/players", `{"name":"Ben","email":"ben@example.org"}`).must(t, http.StatusCreated)
	var ben play.Player
	if err := json.Unmarshal([]byte(reg2.Body), &ben); err != nil || ben.EmailStatus != play.EmailUnverified || ben.EmailVerified {
		t.Fatalf("POST /v1/players: %v %s", err, reg2.Body)
	}
	if n := e.verifyMails("ben@example.org"); n != 1 {
		t.Fatalf("%d verification mails queued by POST /v1/players; want 1", n)
	}

	// Following the link verifies the address.
	useLink(t, e.browser(), linkPath(t, e.queuedLink("ana@example.org"))).must(t, http.StatusSeeOther)
	if p := b.me(t, token); !p.EmailVerified || p.EmailStatus != play.EmailOK {
		t.Fatalf("after the link: verified %v, status %q", p.EmailVerified, p.EmailStatus)
	}
	if body := b.get("/").Body; strings.Contains(body, "address-banner") {
		t.Fatalf("the lobby still warns about a verified address:\n%s", body)
	}
	done := b.do(http.MethodPost, "/v1/me/verification", nil, "", "Authorization", "Bearer "+token)
	if done.Status != http.StatusConflict || !strings.Contains(done.Body, "verified already") {
		t.Fatalf("asking to verify a verified address: %d %s", done.Status, done.Body)
	}
	e.browser().do(http.MethodPost, "/v1/me/verification", nil, "").must(t, http.StatusUnauthorized)
}

// askLinkQuiet asks for a sign-in link, which answers the same whether
// or not one is sent.
func askLinkQuiet(t *testing.T, e *env, email string) {
	t.Helper()
	b := e.browser()
	form := b.get("/signin").must(t, http.StatusOK)
	b.post("/signin", url.Values{"csrf": {form.csrf(t)}, "email": {email}}).must(t, http.StatusOK)
}

// Without verification (AZUL_VERIFY_ADDRESSES=false) no verification mail
// goes out, the lobby says nothing, and the address reads ok.
func TestNoVerificationOnAClosedServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	b := e.browser()
	token := b.register("Ana", "ana@example.org").token(t)
	if n := e.verifyMails("ana@example.org"); n != 0 {
		t.Fatalf("%d verification mails without verification", n)
	}
	if p := b.me(t, token); p.EmailVerified || p.EmailStatus != play.EmailOK {
		t.Fatalf("GET /v1/me: verified %v, status %q; want false, ok", p.EmailVerified, p.EmailStatus)
	}
	if body := b.get("/").Body; strings.Contains(body, "address-banner") {
		t.Fatalf("the lobby warns without verification:\n%s", body)
	}
}

// An undeliverable address is shown in the lobby, and the game page
// tells the other seats that the player may not be hearing of the game.
func TestUndeliverableAddressIsShown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ctx := context.Background()
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	ben := e.browser()
	benToken := ben.register("Ben", "ben@example.org").token(t)
	benPlayer := ben.me(t, benToken)
	anaPlayer, err := e.svc.Player(ctx, e.playerID("ana@example.org"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.svc.CreateGame(ctx, anaPlayer, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: benPlayer.ID}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	// What a hard bounce records (the notify package's tests send real
	// ones over SMTP).
	if _, err := e.pool.Exec(ctx, `UPDATE players SET email_undeliverable_at = now() WHERE id = $1`, anaPlayer.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(ctx, `INSERT INTO undeliverable_notices (game_id, player_id) VALUES ($1, $2)`, g.ID, anaPlayer.ID); err != nil {
		t.Fatal(err)
	}
	if body := ana.get("/").Body; !strings.Contains(body, "comes back undelivered") {
		t.Fatalf("the lobby does not say the address is undeliverable:\n%s", body)
	}
	table := ben.get("/games/"+g.ID).must(t, http.StatusOK)
	if !strings.Contains(table.Body, "Ana may not be hearing of this game") {
		t.Fatalf("the game page does not say Ana may not hear of it:\n%s", table.Body)
	}
	if p := ben.me(t, benToken); p.EmailStatus != play.EmailOK {
		t.Fatalf("the other player's status: %q", p.EmailStatus)
	}
}

// playerID is the id of the player registered with an address.
func (e *env) playerID(email string) string {
	e.t.Helper()
	var id string
	if err := e.pool.QueryRow(context.Background(), `SELECT id::text FROM players WHERE email = $1`, email).Scan(&id); err != nil {
		e.t.Fatal(err)
	}
	return id
}

// Confirmation mails count against the address's sign-in link limit:
// accounts are cheap to make, and each one naming the same stranger's
// address must not make azuld mail that stranger again and again.
func TestConfirmationMailsPerAddressAreLimited(t *testing.T) {
	t.Parallel()
	policy := limits.DefaultPolicy()
	r, _, err := limits.ParseRule(limits.SigninLinksTo, "2/h")
	if err != nil {
		t.Fatal(err)
	}
	r.Fast = policy[limits.SigninLinksTo].Fast
	policy[limits.SigninLinksTo] = r
	e := newEnvOpts(t, envOptions{limits: policy, tune: func(c *notify.Config) { c.VerifyAddresses = true }})
	// One account per address: the accounts name variants of the
	// stranger's mailbox, which the limit counts as one.
	for _, a := range [][2]string{{"Ana", "Victim@example.org"}, {"Bea", "victim+2@example.org"}, {"Cy", "VICTIM+3@example.org"}} {
		e.browser().postJSON("/v1/players", `{"name":"`+a[0]+`","email":"`+a[1]+`"}`).must(t, http.StatusCreated)
	}
	if n := e.count(`SELECT count(*) FROM river_job WHERE kind = 'azuld_signin_mail' AND lower(args->>'to') LIKE 'victim%@example.org'`); n != 2 {
		t.Fatalf("%d confirmation mails to one address from three registrations; want 2 (the limit)", n)
	}
}
