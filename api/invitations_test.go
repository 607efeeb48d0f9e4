package api

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/azuld/azuld/play"
)

// invitation is what GET /v1/games/{id} says of a game's link.
type invitation struct {
	Status        string      `json:"status"`
	Seats         []play.Seat `json:"seats"`
	InvitationURL string      `json:"invitation_url"`
}

// The invitation link over REST: the seated players are given it, a
// stranger takes a free seat of a private game with it, once; a wrong
// token is a problem that changes nothing; the last seat starts the game.
func TestInvitationOverREST(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, ben, cy, di := env.register(t, "Ana"), env.register(t, "Ben"), env.register(t, "Cy"), env.register(t, "Di")
	unrated := false
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Rated: &unrated, Visibility: play.VisibilityPrivate,
		Seats: []play.SeatSpec{{Player: "me"}, {}, {}}})
	var seen invitation
	ana.call(http.MethodGet, "/v1/games/"+g.ID, nil).mustStatus(t, http.StatusOK).decode(t, &seen)
	u, err := url.Parse(seen.InvitationURL)
	if err != nil || !strings.HasPrefix(u.Path, "/invite/") {
		t.Fatalf("invitation_url %q", seen.InvitationURL)
	}
	token := strings.TrimPrefix(u.Path, "/invite/")
	accept := map[string]string{"token": token}
	// Someone who is not seated is not given the link (the private game
	// is readable while a seat is free).
	var stranger invitation
	ben.call(http.MethodGet, "/v1/games/"+g.ID, nil).mustStatus(t, http.StatusOK).decode(t, &stranger)
	if stranger.InvitationURL != "" {
		t.Fatalf("a stranger sees the link %q", stranger.InvitationURL)
	}

	for _, bad := range []string{"nothing", strings.Repeat("A", len(token)), token[:len(token)-1]} {
		res := ben.call(http.MethodPost, "/v1/invitations/accept", map[string]string{"token": bad}).mustStatus(t, http.StatusNotFound)
		if p := res.problem(t); p.Type != ProblemNotFound || !strings.Contains(p.Detail, "No invitation") {
			t.Fatalf("wrong token: %+v", p)
		}
	}
	env.anonymous(t).call(http.MethodPost, "/v1/invitations/accept", accept).mustStatus(t, http.StatusUnauthorized)
	if now := ana.getGame(g.ID); now.Version != g.Version {
		t.Fatalf("refused accepts changed the game: version %d, was %d", now.Version, g.Version)
	}

	var after game
	ben.call(http.MethodPost, "/v1/invitations/accept", accept).mustStatus(t, http.StatusOK).decode(t, &after)
	if after.Status != play.StatusOpen || after.Seats[1].PlayerID != ben.Player.ID || len(after.YourSeats) != 1 {
		t.Fatalf("after Ben: %+v", after)
	}
	if p := ben.call(http.MethodPost, "/v1/invitations/accept", accept).mustStatus(t, http.StatusForbidden).problem(t); !strings.Contains(p.Detail, "already hold a seat") {
		t.Fatalf("Ben again: %+v", p)
	}
	cy.call(http.MethodPost, "/v1/invitations/accept", accept).mustStatus(t, http.StatusOK).decode(t, &after)
	if after.Status != play.StatusActive || after.Seats[2].PlayerID != cy.Player.ID {
		t.Fatalf("after the last seat: %+v", after)
	}
	if p := di.call(http.MethodPost, "/v1/invitations/accept", accept).mustStatus(t, http.StatusForbidden).problem(t); !strings.Contains(p.Detail, "no free seat") {
		t.Fatalf("Di on a full game: %+v", p)
	}
	var started invitation
	ana.call(http.MethodGet, "/v1/games/"+g.ID, nil).mustStatus(t, http.StatusOK).decode(t, &started)
	if started.Status != play.StatusActive || started.InvitationURL != "" {
		t.Fatalf("a started game's link %q (%s)", started.InvitationURL, started.Status)
	}
}
