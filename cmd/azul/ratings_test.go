package main

import (
	"strings"
	"testing"
)

// TestRatingsAndProfileCommands: 'azul ratings' and 'azul profile'
// against a real server, after games finished between players and
// against a bot.
func TestRatingsAndProfileCommands(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bea, visitor := newUser(t, srv.URL), newUser(t, srv.URL), newUser(t, srv.URL)
	ana.register("Ana")
	bea.register("Bea")
	var who struct {
		ID string `json:"id"`
	}
	ana.mustJSON(&who, "account", "show")
	anaID := who.ID
	bea.mustJSON(&who, "account", "show")
	beaID := who.ID
	var g struct {
		ID string `json:"id"`
	}
	// Ana resigns against Bea, then against the greedy bot; a third game
	// against Bea runs on.
	ana.mustJSON(&g, "new", "--seat", "me", "--seat", beaID)
	bea.must("accept", g.ID)
	ana.must("move", g.ID, "resign")
	ana.mustJSON(&g, "new", "--ruleset", "summer-pavilion-mini", "--seat", "me", "--seat", "bot:greedy")
	ana.must("move", g.ID, "resign")
	ana.mustJSON(&g, "new", "--seat", "me", "--seat", beaID)
	bea.must("accept", g.ID)

	// The leaderboard needs no account.
	out := visitor.must("ratings", "--ruleset", "azul-mini", "--players", "2", "--provisional")
	for _, want := range []string{"Azul Mini, 2 players", "Rank", "Bea (provisional)", "Ana (provisional)"} {
		if !strings.Contains(out, want) {
			t.Errorf("ratings lack %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "Bea") > strings.Index(out, "Ana") {
		t.Errorf("the winner is not first:\n%s", out)
	}
	if out := visitor.must("ratings"); !strings.Contains(out, "Nobody is rated here yet.") {
		t.Errorf("without provisional ratings:\n%s", out)
	}
	if msg := visitor.wantCode(exitUsage, "ratings", "--players", "5"); !strings.Contains(msg, "--players must be 2, 3 or 4") {
		t.Errorf("--players 5: %q", msg)
	}
	if msg := visitor.wantCode(exitUsage, "ratings", "--ruleset", "chess"); msg == "" {
		t.Error("an unknown rule set gave no message")
	}

	// Bea reads Ana's profile: ratings, results, games, and their record.
	out = bea.must("profile", anaID)
	for _, want := range []string{"Ana\nMember since", "Ratings:", "Azul Mini, 2 players", "Summer Pavilion Mini, 2 players",
		"Results:", "0 wins (0%)", "mean place 2.0", "Against you:", "1 finished game together.", "Ana ahead 0, you ahead 1, same place 0",
		"Running games:", "against Bea", "waiting for Ana", "Recent games:", "against Greedy bot", "place 2 with"} {
		if !strings.Contains(out, want) {
			t.Errorf("Ana's profile as Bea lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "@example.org") {
		t.Errorf("an address in a profile:\n%s", out)
	}
	// Ana hides her games: Bea sees her ratings and results only.
	ana.must("account", "set", "--hide-games")
	if out := bea.must("profile", anaID); !strings.Contains(out, "Their games are private.") || strings.Contains(out, "Recent games:") ||
		strings.Contains(out, "Against you:") || !strings.Contains(out, "Results:") {
		t.Errorf("Ana's hidden profile as Bea:\n%s", out)
	}
	if out := ana.must("profile"); !strings.Contains(out, "Recent games:") {
		t.Errorf("Ana's own hidden profile:\n%s", out)
	}
	ana.must("account", "set", "--hide-games=false")
	// Her own profile: no record against herself.
	if out := ana.must("profile"); !strings.HasPrefix(out, "Ana\n") || strings.Contains(out, "Against you:") {
		t.Errorf("azul profile (me):\n%s", out)
	}
	if out := visitor.must("profile", "bot:greedy"); !strings.HasPrefix(out, "Greedy bot\nA bot.") || !strings.Contains(out, "1 game") {
		t.Errorf("the bot's profile:\n%s", out)
	}
	var p struct {
		Name    string `json:"name"`
		Ratings []any  `json:"ratings"`
	}
	visitor.mustJSON(&p, "profile", anaID)
	if p.Name != "Ana" || len(p.Ratings) != 2 {
		t.Errorf("--json: %+v", p)
	}
	// Without an account there is no "me"; an unknown player is not
	// found; a malformed one is a usage error.
	visitor.wantCode(exitNotAllow, "profile")
	if o := visitor.run("profile", "00000000-0000-4000-8000-000000000000"); o.code == exitOK || o.code == exitUsage || o.errOut == "" {
		t.Errorf("an unknown player: exit %d, %q", o.code, o.errOut)
	}
	visitor.wantCode(exitUsage, "profile", "a/b")
}

// TestProfileGamesCommand: 'azul profile P --games finished|running'
// pages through a player's games: the first page and the command for the
// next, --cursor that page, --all every page.
func TestProfileGamesCommand(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, visitor := newUser(t, srv.URL), newUser(t, srv.URL)
	ana.register("Ana")
	var who struct {
		ID string `json:"id"`
	}
	ana.mustJSON(&who, "account", "show")
	var g struct {
		ID string `json:"id"`
	}
	var ids []string
	for range 22 {
		ana.mustJSON(&g, "new", "--seat", "me", "--seat", "bot:random")
		ana.must("move", g.ID, "resign")
		ids = append(ids, g.ID)
	}
	count := func(out string) int {
		n := 0
		for _, id := range ids {
			if strings.Contains(out, id) {
				n++
			}
		}
		return n
	}
	// The profile lists 10, and says how to see the rest.
	out := visitor.must("profile", who.ID)
	if count(out) != 10 || !strings.Contains(out, "More: azul profile "+who.ID+" --games finished --cursor ") {
		t.Errorf("the profile:\n%s", out)
	}
	first := visitor.must("profile", who.ID, "--games", "finished")
	i := strings.Index(first, "--cursor ")
	if !strings.HasPrefix(first, "Finished games:\n") || count(first) != 20 || i < 0 || !strings.Contains(first, ids[21]) || strings.Contains(first, ids[1]) {
		t.Fatalf("the first page:\n%s", first)
	}
	cursor := strings.TrimSpace(first[i+len("--cursor "):])
	if rest := visitor.must("profile", who.ID, "--games", "finished", "--cursor", cursor); count(rest) != 2 || !strings.Contains(rest, ids[0]) || strings.Contains(rest, "More:") {
		t.Errorf("the second page:\n%s", rest)
	}
	if all := visitor.must("profile", who.ID, "--games", "finished", "--all"); count(all) != 22 || strings.Contains(all, "More:") {
		t.Errorf("--all:\n%s", all)
	}
	if running := ana.must("profile", "--games", "running"); !strings.Contains(running, "Running games:\n  No games.") {
		t.Errorf("no running games:\n%s", running)
	}
	var page struct {
		Games []struct {
			ID string `json:"id"`
		} `json:"games"`
		NextCursor string `json:"next_cursor"`
	}
	visitor.mustJSON(&page, "profile", who.ID, "--games", "finished")
	if len(page.Games) != 20 || page.NextCursor == "" {
		t.Errorf("--json: %+v", page)
	}
	if msg := visitor.wantCode(exitUsage, "profile", who.ID, "--games", "open"); !strings.Contains(msg, "--games must be finished or running") {
		t.Errorf("--games open: %q", msg)
	}
	if msg := visitor.wantCode(exitUsage, "profile", who.ID, "--all"); !strings.Contains(msg, "--all and --cursor go with --games") {
		t.Errorf("--all alone: %q", msg)
	}
}
