package web_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// After the first rated games nobody has an established rating: the
// leaderboard lists the provisional ones anyway, each marked, and says
// why, instead of saying that nobody is rated. Its numbers, and the
// profile's, are written with the reader's decimal comma in Dutch.
func TestLeaderboardProvisionalAndDecimalComma(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana, bea, visitor := e.browser(), e.browser(), e.browser()
	ana.register("Ana", "ana@example.org")
	bea.register("Bea", "bea@example.org")
	beaID := bea.playerID()
	finishGame(t, ana, bea, bea, map[string]string{"ruleset": "azul-mini", "seat1": "player", "seat1_player": beaID})
	finishGame(t, ana, bea, ana, map[string]string{"ruleset": "azul-mini", "seat1": "player", "seat1_player": beaID})
	waitFor(t, func() bool { return e.count(`SELECT count(*) FROM rating_history`) == 4 })

	visitor.lang = "nl"
	board := visitor.get("/ratings?ruleset=azul-mini&players=2").must(t, http.StatusOK)
	doc := board.doc(t)
	rows := find(doc, func(n *html.Node) bool { return n.Data == "tr" && n.Parent != nil && n.Parent.Data == "tbody" })
	if len(rows) != 2 {
		t.Fatalf("%d rows on the leaderboard, want Ana and Bea (provisional):\n%s", len(rows), board.Body)
	}
	decimal := regexp.MustCompile(`^−?[0-9]+,[0-9]$`)
	for _, r := range rows {
		if marks := find(r, func(n *html.Node) bool { return hasClass(n, "provisional") }); len(marks) != 1 || text(marks[0]) != "voorlopig" {
			t.Errorf("a row is not marked provisional: %q", text(r))
		}
		cell := find(r, func(n *html.Node) bool { return n.Data == "td" && hasClass(n, "rating") })
		if len(cell) != 1 || !decimal.MatchString(strings.TrimSpace(text(cell[0]))) {
			t.Errorf("a rating is not written with a decimal comma: %q", text(r))
		}
		if title, _ := attr(cell[0], "title"); !regexp.MustCompile(`^μ −?[0-9]+,[0-9] · σ [0-9]+,[0-9]$`).MatchString(title) {
			t.Errorf("μ and σ read %q", title)
		}
	}
	note := find(doc, func(n *html.Node) bool { return hasClass(n, "board-note") })
	if len(note) != 1 || !strings.Contains(text(note[0]), "voorlopige ratings") {
		t.Errorf("the board does not say the provisional ratings stand in:\n%s", board.Body)
	}
	if strings.Contains(board.Body, "Hier heeft nog niemand een rating") {
		t.Error("the board says nobody is rated")
	}

	prof := visitor.get("/players/"+beaID).must(t, http.StatusOK)
	points := 0
	for _, n := range find(prof.doc(t), func(n *html.Node) bool { return n.Data == "title" && n.Parent != nil && hasClass(n.Parent, "pt") }) {
		if !regexp.MustCompile(`: −?[0-9]+,[0-9]$`).MatchString(text(n)) {
			t.Errorf("a point of the chart reads %q", text(n))
		}
		points++
	}
	if points != 2 {
		t.Errorf("%d points on Bea's chart", points)
	}
}
