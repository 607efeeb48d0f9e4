package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// accept has b accept the invitation to the game id with its table
// page's Accept button.
func accept(t *testing.T, b *browser, id string) {
	t.Helper()
	action := "/games/" + id + "/join"
	table := b.get("/games/"+id).must(t, http.StatusOK)
	b.post(action, url.Values{"csrf": {table.formCSRF(t, action)}}).must(t, http.StatusSeeOther)
}

// TestInvitationOnTheWeb: a game created from the form naming another
// player keeps their seat: they find it in the lobby's invitations and on
// its table page, with Accept and Decline; the creator's page says whom
// it waits for. Accepting starts the game; declining another frees its
// seat.
func TestInvitationOnTheWeb(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana, bea := e.browser(), e.browser()
	ana.register("Ana", "ana@example.org")
	bea.register("Bea", "bea@example.org")
	create := func() string {
		t.Helper()
		res := ana.post("/games/new", newGameForm(t, ana, map[string]string{"ruleset": "azul-mini", "seat1": "player", "seat1_player": bea.playerID()})).must(t, http.StatusSeeOther)
		return strings.TrimPrefix(res.Header.Get("Location"), "/games/")
	}
	id := create()
	lobby := bea.get("/").must(t, http.StatusOK)
	if !strings.Contains(lobby.Body, "Invitations") || !strings.Contains(lobby.Body, "/games/"+id+"/decline") {
		t.Fatalf("Bea's lobby does not list the invitation:\n%s", lobby.Body)
	}
	table := bea.get("/games/"+id).must(t, http.StatusOK)
	if !strings.Contains(table.Body, "You are invited to this game") || table.formCSRF(t, "/games/"+id+"/join") == "" || table.formCSRF(t, "/games/"+id+"/decline") == "" {
		t.Fatalf("Bea's table page does not invite her:\n%s", table.Body)
	}
	if mine := ana.get("/games/"+id).must(t, http.StatusOK); !strings.Contains(mine.Body, "Waiting for Bea to accept") {
		t.Fatalf("Ana's table page does not say whom the game waits for:\n%s", mine.Body)
	}
	accept(t, bea, id)
	var status string
	if err := e.pool.QueryRow(t.Context(), `SELECT status FROM games WHERE id = $1`, id).Scan(&status); err != nil || status != "active" {
		t.Fatalf("after Bea accepted the game is %q (%v)", status, err)
	}

	other := create()
	action := "/games/" + other + "/decline"
	page := bea.get("/games/"+other).must(t, http.StatusOK)
	bea.post(action, url.Values{"csrf": {page.formCSRF(t, action)}}).must(t, http.StatusSeeOther)
	var reserved int
	if err := e.pool.QueryRow(t.Context(), `SELECT count(*) FROM games g, jsonb_array_elements(g.seats) s WHERE g.id = $1 AND s ? 'reserved'`, other).Scan(&reserved); err != nil || reserved != 0 {
		t.Fatalf("after Bea declined %d seats are kept (%v)", reserved, err)
	}
}
