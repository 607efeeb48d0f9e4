package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/notify"
)

// registerForm posts the registration form from a fresh browser.
func (e *env) registerForm(name, email string) page {
	e.t.Helper()
	b := e.browser()
	form := b.get("/register").must(e.t, http.StatusOK)
	return b.post("/register", url.Values{"csrf": {form.csrf(e.t)}, "name": {name}, "email": {email}})
}

// One account per address on the web too: an address in another case is
// refused at its field, saying how to sign in instead, and nothing is
// created; a profile cannot take another account's address either.
func TestOneAccountPerAddressOnTheWeb(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	e.browser().register("Carl", "carl@example.org")
	for _, email := range []string{"carl@example.org", "CARL@example.org", "Carl@EXAMPLE.org"} {
		res := e.registerForm("Mallory", email).must(t, http.StatusBadRequest)
		if msg := res.fieldError(t, "email"); !strings.Contains(msg, "belongs to an account here already") {
			t.Fatalf("%s: the email field says %q", email, msg)
		}
	}
	if n := e.count(`SELECT count(*) FROM players`); n != 1 {
		t.Fatalf("%d players, want 1", n)
	}

	dana := e.browser()
	dana.register("Dana", "dana@example.org")
	pg := dana.get("/account").must(t, http.StatusOK)
	res := dana.post("/account/profile", url.Values{"csrf": {pg.formCSRF(t, "/account/profile")}, "name": {"Dana"},
		"email": {"CARL@example.org"}, "language": {"en"}, "time_zone": {"UTC"}}).must(t, http.StatusBadRequest)
	if msg := res.fieldError(t, "email"); !strings.Contains(msg, "belongs to an account here already") {
		t.Fatalf("the profile's email field says %q", msg)
	}
	if n := e.count(`SELECT count(*) FROM players WHERE email = 'dana@example.org'`); n != 1 {
		t.Fatal("the refused change changed Dana's address")
	}
}

// A name that is a link or an address is refused at the name field, at
// registration and on the account page, in the reader's language.
func TestNamesAreNotLinksOnTheWeb(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	for _, name := range []string{"Claim prize at http://evil.example/win", "www.evil", "evil.example/win", "ana@evil.example"} {
		res := e.registerForm(name, "ana@example.org").must(t, http.StatusBadRequest)
		if msg := res.fieldError(t, "name"); !strings.Contains(msg, "no web or mail address") {
			t.Fatalf("%q: the name field says %q", name, msg)
		}
	}
	b := e.browser()
	b.register("Ana", "ana@example.org")
	pg := b.get("/account").must(t, http.StatusOK)
	res := b.post("/account/profile", url.Values{"csrf": {pg.formCSRF(t, "/account/profile")}, "name": {"evil.example/win"},
		"email": {"ana@example.org"}, "language": {"en"}, "time_zone": {"UTC"}}).must(t, http.StatusBadRequest)
	if msg := res.fieldError(t, "name"); !strings.Contains(msg, "no web or mail address") {
		t.Fatalf("the profile's name field says %q", msg)
	}
	nl := e.browser()
	nl.lang = "nl"
	form := nl.get("/register").must(t, http.StatusOK)
	res = nl.post("/register", url.Values{"csrf": {form.csrf(t)}, "name": {"www.evil"}, "email": {"bo@example.org"}}).must(t, http.StatusBadRequest)
	if msg := res.fieldError(t, "name"); !strings.Contains(msg, "geen web- of mailadres") {
		t.Fatalf("in Dutch the name field says %q", msg)
	}
	if n := e.count(`SELECT count(*) FROM players WHERE name <> 'Ana'`); n != 0 {
		t.Fatalf("%d players with refused names", n)
	}
}

// The server's own mail domain cannot be registered, nor given on the
// account page.
func TestOwnMailDomainOnTheWeb(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	res := e.registerForm("Mallory", "postmaster@mail.test").must(t, http.StatusBadRequest)
	if msg := res.fieldError(t, "email"); !strings.Contains(msg, "this server's own mail addresses") {
		t.Fatalf("the email field says %q", msg)
	}
	b := e.browser()
	b.register("Ana", "ana@example.org")
	pg := b.get("/account").must(t, http.StatusOK)
	res = b.post("/account/profile", url.Values{"csrf": {pg.formCSRF(t, "/account/profile")}, "name": {"Ana"},
		"email": {"play+x@mail.test"}, "language": {"en"}, "time_zone": {"UTC"}}).must(t, http.StatusBadRequest)
	if msg := res.fieldError(t, "email"); !strings.Contains(msg, "this server's own mail addresses") {
		t.Fatalf("the profile's email field says %q", msg)
	}
}

// Accounts registered for the variants of one mailbox (victim+1@,
// VICTIM+2@, at Gmail v.ictim@) share its limit of verification mails:
// the mailbox is not mailed once per variant.
func TestAddressVariantsShareTheMailLimit(t *testing.T) {
	t.Parallel()
	policy := limits.Policy{limits.SigninLinksTo: {Name: limits.SigninLinksTo, Limit: 3, Period: time.Hour}}
	e := newEnvOpts(t, envOptions{limits: policy, tune: func(c *notify.Config) { c.VerifyAddresses = true }})
	for _, email := range []string{"victim+1@example.org", "VICTIM+2@example.org", "victim+3@example.org", "victim+4@example.org", "victim+5@example.org"} {
		e.registerForm("Victim", email).must(t, http.StatusCreated)
	}
	if n := e.count(`SELECT count(*) FROM river_job WHERE kind = 'azuld_signin_mail' AND args->>'to' ILIKE 'victim%@example.org'`); n != 3 {
		t.Fatalf("%d mails to one mailbox, want 3", n)
	}
	for _, email := range []string{"v.ictim@gmail.com", "victim+x@googlemail.com", "vic.tim@gmail.com", "victim@gmail.com"} {
		e.registerForm("Victim", email).must(t, http.StatusCreated)
	}
	if n := e.count(`SELECT count(*) FROM river_job WHERE kind = 'azuld_signin_mail' AND args->>'to' ILIKE '%mail.com'`); n != 3 {
		t.Fatalf("%d mails to one Gmail mailbox, want 3", n)
	}
}
