package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestDeleteAccountPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	ana.register("Anastasia Goesaway", "anastasia.goes@example.org")
	bea := e.browser()
	bea.register("Bea", "bea@example.org")
	players := func() int { return e.count(`SELECT count(*) FROM players WHERE email = 'anastasia.goes@example.org'`) }

	// A visitor is sent to sign in.
	if res := e.browser().get("/account/delete").must(t, http.StatusSeeOther); res.Header.Get("Location") != "/signin" {
		t.Fatalf("a visitor goes to %q", res.Header.Get("Location"))
	}
	form := ana.get("/account/delete").must(t, http.StatusOK)
	if !strings.Contains(form.Body, "Anastasia Goesaway") || !strings.Contains(form.Body, `action="/account/delete"`) {
		t.Fatalf("the confirmation page:\n%s", form.Body)
	}
	csrf := form.csrf(t)
	// Without the form's token, or with another name, nothing changes.
	ana.post("/account/delete", url.Values{"csrf": {"wrong"}, "name": {"Anastasia Goesaway"}}).must(t, http.StatusForbidden)
	res := ana.post("/account/delete", url.Values{"csrf": {csrf}, "name": {"Anastasia"}}).must(t, http.StatusBadRequest)
	if msg := res.fieldError(t, "name"); !strings.Contains(msg, "not deleted") {
		t.Fatalf("the wrong name's message: %q", msg)
	}
	// Another player's session cannot delete Ana with her name.
	bea.post("/account/delete", url.Values{"csrf": {csrf}, "name": {"Anastasia Goesaway"}}).must(t, http.StatusForbidden)
	if players() != 1 {
		t.Fatal("a refused deletion deleted the account")
	}

	done := ana.post("/account/delete", url.Values{"csrf": {csrf}, "name": {" Anastasia Goesaway "}}).must(t, http.StatusOK)
	if !strings.Contains(done.Body, "Your account is deleted") {
		t.Fatalf("the page after the deletion:\n%s", done.Body)
	}
	if players() != 0 || e.count(`SELECT count(*) FROM web_sessions`) != 1 {
		t.Fatal("the account or its session is still there")
	}
	if ana.cookie("azuld_session") != "" {
		t.Fatal("the browser is still signed in")
	}
	// Signed out: the page now asks to sign in.
	ana.get("/account/delete").must(t, http.StatusSeeOther)
}
