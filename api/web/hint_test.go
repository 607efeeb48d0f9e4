package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestHintFromThePage: the table page's script asks the API for a hint
// with the page's session; in an unrated game on the player's turn it gets
// a move with reasons in the page's language, in a rated game the refusal
// (409 hints-off) that says why; the page loads its hint module.
func TestHintFromThePage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	create := func(fields map[string]string) string {
		t.Helper()
		res := ana.post("/games/new", newGameForm(t, ana, fields)).must(t, http.StatusSeeOther)
		return strings.TrimPrefix(res.Header.Get("Location"), "/games/")
	}
	unrated := create(map[string]string{"rated": "", "seat1": "bot", "seat1_bot": "level2"})
	rated := create(map[string]string{"seat1": "bot", "seat1_bot": "level2"})

	ana.lang = "it"
	res := ana.get("/v1/games/"+unrated+"/hint").must(t, http.StatusOK)
	var h struct {
		Notation string `json:"notation"`
		Reasons  []struct {
			Text string `json:"text"`
		} `json:"reasons"`
	}
	if err := json.Unmarshal([]byte(res.Body), &h); err != nil {
		t.Fatal(err)
	}
	if h.Notation == "" || len(h.Reasons) == 0 || h.Reasons[0].Text == "" {
		t.Fatalf("hint %s", res.Body)
	}
	refused := ana.get("/v1/games/" + rated + "/hint")
	if refused.Status != http.StatusConflict || !strings.Contains(refused.Body, "hints-off") || !strings.Contains(refused.Body, "valutata") {
		t.Fatalf("a hint in a rated game: %d %s", refused.Status, refused.Body)
	}
	if !strings.Contains(ana.get("/static/hint.js").must(t, http.StatusOK).Body, "export function hintPanel") {
		t.Fatal("the hint module is not served")
	}
}
