package main

import (
	"strings"
	"testing"
)

func TestAccountCommands(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana := newUser(t, srv.URL)
	ana.register("Ana")

	out := ana.must("account", "show")
	for _, want := range []string{"Ana", "ana@example.org", "en", "UTC"} {
		if !strings.Contains(out, want) {
			t.Errorf("account show lacks %q:\n%s", want, out)
		}
	}
	if ana.must("account") != out {
		t.Error("'azul account' does not show the account")
	}

	out = ana.must("account", "set", "--language", "nl", "--time-zone", "Europe/Amsterdam", "--name", "Ana B")
	// The answer already speaks the new language.
	for _, want := range []string{"Europe/Amsterdam", "Ana B", "Taal", "Nederlands (nl)", "Tijdzone"} {
		if !strings.Contains(out, want) {
			t.Errorf("set printed no %q:\n%s", want, out)
		}
	}
	var prof struct {
		Name     string `json:"name"`
		Language string `json:"language"`
		TimeZone string `json:"time_zone"`
	}
	ana.mustJSON(&prof, "account", "show")
	if prof.Name != "Ana B" || prof.Language != "nl" || prof.TimeZone != "Europe/Amsterdam" {
		t.Fatalf("profile after set = %+v", prof)
	}

	// Bad input: a usage error that says why, in the account's
	// language, and nothing changed.
	if msg := ana.wantCode(exitUsage, "account", "set"); !strings.Contains(msg, "niets te wijzigen") {
		t.Errorf("set without flags: %q", msg)
	}
	ana.env["LANG"] = "de_DE.UTF-8"
	if msg := ana.wantCode(exitUsage, "account", "language", "fr"); !strings.Contains(msg, "onbekende taal “fr”: kies uit en, nl, de, it") {
		t.Errorf("an unknown language: %q", msg)
	}
	if msg := ana.wantCode(exitUsage, "account", "zone", "Mars/Olympus"); !strings.Contains(msg, "IANA") {
		t.Errorf("an unknown zone: %q", msg)
	}
	ana.must("account", "language", "en")
	delete(ana.env, "LANG")
	if msg := ana.wantCode(exitUsage, "account", "set", "--name", "Ana C", "--time-zone", "Mars/Olympus"); !strings.Contains(msg, "IANA") {
		t.Errorf("set with a bad zone: %q", msg)
	}
	if msg := ana.wantCode(exitUsage, "account", "set", "--language", "fr"); !strings.Contains(msg, "en, nl, de, it") {
		t.Errorf("set with a bad language: %q", msg)
	}
	ana.mustJSON(&prof, "account", "show")
	if prof.Name != "Ana B" || prof.Language != "en" {
		t.Fatalf("refused changes changed the profile: %+v", prof)
	}

	// Tokens: created once, listed without secrets, revoked.
	secret := strings.TrimSpace(ana.must("account", "token", "create", "laptop"))
	if !strings.HasPrefix(secret, "azt_") {
		t.Fatalf("token create printed %q", secret)
	}
	laptop := newUser(t, srv.URL)
	laptop.must("login", secret)
	laptop.must("account", "show")
	list := ana.must("account", "tokens")
	if !strings.Contains(list, "registration") || !strings.Contains(list, "laptop") || strings.Contains(list, "azt_") {
		t.Fatalf("account tokens:\n%s", list)
	}
	var tokens struct {
		Tokens []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"tokens"`
	}
	ana.mustJSON(&tokens, "account", "tokens")
	var laptopID string
	for _, tk := range tokens.Tokens {
		if tk.Name == "laptop" {
			laptopID = tk.ID
		}
	}
	if laptopID == "" {
		t.Fatalf("no laptop token in %+v", tokens)
	}
	ana.wantCode(exitUsage, "account", "token", "revoke", "laptop")
	ana.wantCode(exitUsage, "account", "token", "create", "")
	ana.wantCode(exitUsage, "account", "token", "frobnicate")
	ana.must("account", "token", "revoke", laptopID)
	if msg := laptop.wantCode(exitNotAllow, "account", "show"); !strings.Contains(msg, "does not know the token") {
		t.Errorf("a revoked token: %q", msg)
	}
	if msg := ana.wantCode(exitFailure, "account", "token", "revoke", laptopID); !strings.Contains(msg, "no live token") {
		t.Errorf("revoking twice: %q", msg)
	}

	// Sessions: none from the command line.
	if out := ana.must("account", "sessions"); !strings.Contains(out, "No browser is signed in") {
		t.Errorf("account sessions:\n%s", out)
	}
	ana.wantCode(exitUsage, "account", "sessions", "end", "nope")
	ana.wantCode(exitFailure, "account", "sessions", "end", "00000000-0000-4000-8000-000000000000")
}

func TestAccountDeleteAsksForTheName(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana := newUser(t, srv.URL)
	ana.register("Ana")

	o := ana.runIn(t.Context(), strings.NewReader("ana\n"), "account", "delete")
	if o.code != exitUsage || !strings.Contains(o.errOut, "nothing was deleted") {
		t.Fatalf("a wrong name: exit %d, %q", o.code, o.errOut)
	}
	ana.must("account", "show")

	o = ana.runIn(t.Context(), strings.NewReader("Ana\n"), "account", "delete")
	if o.code != exitOK || !strings.Contains(o.out, "is deleted") {
		t.Fatalf("delete: exit %d\n%s%s", o.code, o.out, o.errOut)
	}
	// The token went with the account.
	ana.wantCode(exitNotAllow, "account", "show")
}

// azul account verify asks for a new confirmation link; where there is
// nothing to confirm, the server's reason is shown and the exit code says
// it was refused.
func TestAccountVerify(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana := newUser(t, srv.URL)
	ana.register("Ana")
	o := ana.run("account", "verify")
	if o.code == exitOK || !strings.Contains(o.errOut, "Your address is verified already: there is nothing to confirm.") {
		t.Fatalf("verify of an address that needs none: exit %d, out %q, err %q", o.code, o.out, o.errOut)
	}
}
