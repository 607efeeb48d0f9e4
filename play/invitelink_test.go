package play_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/azuld/azuld/play"
)

func TestInvitationLinkFillsAPrivateGameOnceASeat(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	ana, ben, cy, dora := e.register(t, "Ana"), e.register(t, "Ben"), e.register(t, "Cy"), e.register(t, "Dora")
	private := false
	g, err := e.svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Rated: &private, Visibility: play.VisibilityPrivate,
		Seats: []play.SeatSpec{{Player: "me"}, {}, {}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	token, err := e.svc.InvitationToken(ctx, g)
	if err != nil || len(token) < 22 {
		t.Fatalf("token %q, %v", token, err)
	}
	// Another server (same database) shows the same link.
	again, err := newService(e.pool, e.store, 0).InvitationToken(ctx, g)
	if err != nil || again != token {
		t.Fatalf("second server's token %q, %v; want %q", again, err, token)
	}

	// A wrong token names nothing and changes nothing.
	for _, bad := range []string{"", "x", token[:len(token)-1] + "A", strings.Repeat("A", len(token)), token + "A", "../" + token} {
		if bad == token {
			continue
		}
		if _, err := e.svc.AcceptInvitation(ctx, bad, ben, "api"); !errors.Is(err, play.ErrNotFound) || !errors.Is(err, play.ErrNoInvitation) {
			t.Fatalf("token %q: %v, want not found", bad, err)
		}
	}
	if now, _ := e.svc.Game(ctx, g.ID); now.Version != g.Version {
		t.Fatalf("a wrong token changed the game: version %d, was %d", now.Version, g.Version)
	}

	shown, err := e.svc.InvitedGame(ctx, token)
	if err != nil || shown.ID != g.ID || shown.Seats[0].Name != "Ana" {
		t.Fatalf("invited game %+v, %v", shown, err)
	}
	g1, err := e.svc.AcceptInvitation(ctx, token, ben, "api")
	if err != nil || g1.Status != play.StatusOpen || g1.Seats[1].PlayerID != ben.ID {
		t.Fatalf("Ben's accept: %+v, %v", g1, err)
	}
	if _, err := e.svc.AcceptInvitation(ctx, token, ben, "api"); !errors.Is(err, play.ErrForbidden) {
		t.Fatalf("Ben's second accept: %v, want forbidden", err)
	}
	g2, err := e.svc.AcceptInvitation(ctx, token, cy, "api")
	if err != nil || g2.Status != play.StatusActive || g2.Seats[2].PlayerID != cy.ID {
		t.Fatalf("Cy's accept (the last seat): %+v, %v", g2, err)
	}
	if _, err := e.svc.AcceptInvitation(ctx, token, dora, "api"); !errors.Is(err, play.ErrForbidden) {
		t.Fatalf("Dora's accept of a full game: %v, want forbidden", err)
	}
	if tok, err := e.svc.InvitationToken(ctx, g2); err != nil || tok != "" {
		t.Fatalf("a started game's token %q, %v; want none", tok, err)
	}

	// Neither the token nor its hash is in the log; the store holds the
	// hash only.
	var inLog, stored bool
	err = e.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM events WHERE data::text LIKE '%' || $1 || '%' OR meta::text LIKE '%' || $1 || '%'),
		EXISTS (SELECT FROM invitation_links WHERE token_hash = $2 AND game_id = $3::uuid)`, token, play.HashToken(token), g.ID).Scan(&inLog, &stored)
	if err != nil || inLog || !stored {
		t.Fatalf("token in the log %v, hash stored %v, %v", inLog, stored, err)
	}
}

func TestFullGameHasNoInvitationLink(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	ana := e.register(t, "Ana")
	g, err := e.svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "random"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := e.svc.InvitationToken(ctx, g); err != nil || tok != "" {
		t.Fatalf("a game without a free seat has token %q, %v", tok, err)
	}
}
