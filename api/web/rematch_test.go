package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// TestRematchForms: without script, the finished game's page posts the
// rematch (the same game for a second request), and the invited player
// declines from the lobby; a stranger's decline finds nothing.
func TestRematchForms(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ctx := context.Background()
	ana, anaToken, err := e.svc.RegisterPlayer(ctx, "Ana", "ana@example.org", play.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	ben, benToken, err := e.svc.RegisterPlayer(ctx, "Ben", "ben@example.org", play.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	_, eveToken, err := e.svc.RegisterPlayer(ctx, "Eve", "eve@example.org", play.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if g, err = e.svc.Join(ctx, g.ID, ben, nil); err != nil {
		t.Fatal(err)
	}
	seat := g.ToAct()[0]
	if _, err := e.svc.Move(ctx, play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: g.Seats[seat].PlayerID}, Seat: &seat, Notation: "resign", Channel: "api"}); err != nil {
		t.Fatal(err)
	}
	ba, bb, be := e.browser(), e.browser(), e.browser()
	ba.signinWithToken(anaToken, firefox)
	bb.signinWithToken(benToken, firefox)
	be.signinWithToken(eveToken, firefox)

	action := "/games/" + g.ID + "/rematch"
	csrf := ba.get("/games/"+g.ID).must(t, http.StatusOK).formCSRF(t, action)
	first := ba.post(action, url.Values{"csrf": {csrf}}).must(t, http.StatusSeeOther)
	again := ba.post(action, url.Values{"csrf": {csrf}}).must(t, http.StatusSeeOther)
	loc := first.Header.Get("Location")
	if loc == "/games/"+g.ID || loc != again.Header.Get("Location") {
		t.Fatalf("the rematch is at %q, then %q", loc, again.Header.Get("Location"))
	}
	newID := loc[len("/games/"):]
	// A forged form changes nothing.
	ba.post("/games/"+newID+"/decline", url.Values{"csrf": {"forged"}}).must(t, http.StatusForbidden)
	refused := be.post("/games/"+newID+"/join", url.Values{"csrf": {be.get("/").must(t, http.StatusOK).csrf(t)}}).must(t, http.StatusForbidden)
	if !strings.Contains(refused.Body, "This seat is kept for another player") {
		t.Fatalf("Eve's join is refused without saying why:\n%s", refused.Body)
	}
	be.post("/games/"+newID+"/decline", url.Values{"csrf": {be.get("/").must(t, http.StatusOK).csrf(t)}}).must(t, http.StatusNotFound)

	lobby := bb.get("/").must(t, http.StatusOK)
	decline := "/games/" + newID + "/decline"
	bb.post(decline, url.Values{"csrf": {lobby.formCSRF(t, decline)}}).must(t, http.StatusSeeOther)
	after, err := e.svc.Game(ctx, newID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Declined) != 1 || after.Declined[0] != ben.ID || len(after.Awaiting()) != 0 {
		t.Fatalf("after Ben declined from the lobby: %+v", after.Seats)
	}
}
