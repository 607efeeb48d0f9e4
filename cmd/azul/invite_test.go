package main

import (
	"regexp"
	"strings"
	"testing"
)

// azul new prints the invitation link of a game with open seats; azul
// join takes a seat with the link or its bare token, once a seat, and
// says what is wrong with anything else.
func TestJoinWithInvitationLink(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, cy, di := newUser(t, srv.URL), newUser(t, srv.URL), newUser(t, srv.URL), newUser(t, srv.URL)
	ana.register("Ana")
	bob.register("Bob")
	cy.register("Cy")
	di.register("Di")
	out := ana.must("new", "--unrated", "--private", "--seat", "me", "--seat", "open", "--seat", "open")
	m := regexp.MustCompile(`(https?://\S+/invite/([A-Za-z0-9_-]+))`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("azul new printed no invitation link:\n%s", out)
	}
	link, token := m[1], m[2]

	if errOut := bob.wantCode(exitUsage, "join", "not a link"); !strings.Contains(errOut, "neither a game id nor an invitation link") {
		t.Fatalf("join with nonsense: %s", errOut)
	}
	bob.wantCode(exitFailure, "join", strings.Repeat("A", len(token)))
	if out := bob.must("join", link); !strings.Contains(out, "at seat 1; it is open") {
		t.Fatalf("join with the link printed %q", out)
	}
	bob.wantCode(exitNotAllow, "join", link)
	if out := cy.must("join", token); !strings.Contains(out, "at seat 2; it is active") {
		t.Fatalf("join with the token printed %q", out)
	}
	if errOut := di.wantCode(exitNotAllow, "join", link); !strings.Contains(errOut, "no free seat") {
		t.Fatalf("join of a full game: %s", errOut)
	}
	if out := ana.must("new", "--seat", "me", "--seat", "bot"); strings.Contains(out, "/invite/") {
		t.Fatalf("a game without an open seat has a link:\n%s", out)
	}
}
