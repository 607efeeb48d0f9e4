package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// newGameForm is a valid create-game form for the browser's page.
func newGameForm(t *testing.T, b *browser, fields map[string]string) url.Values {
	t.Helper()
	form := b.get("/games/new").must(t, http.StatusOK)
	v := url.Values{}
	// The form's own defaults, as a browser would send them.
	for _, in := range find(form.doc(t), func(n *html.Node) bool { return n.Data == "input" || n.Data == "select" }) {
		name, _ := attr(in, "name")
		if in.Data == "input" {
			val, _ := attr(in, "value")
			if typ, _ := attr(in, "type"); typ == "radio" || typ == "checkbox" {
				// Sent only when checked, as a browser does.
				if _, checked := attr(in, "checked"); !checked {
					continue
				}
			}
			v.Set(name, val)
			continue
		}
		opts := find(in, func(n *html.Node) bool { return n.Data == "option" })
		for i, o := range opts {
			if _, sel := attr(o, "selected"); sel || i == 0 {
				val, _ := attr(o, "value")
				v.Set(name, val)
			}
		}
	}
	for k, val := range fields {
		v.Set(k, val)
	}
	return v
}

// The create-game form offers every option of the API and creates the
// game it describes; a refused form is shown again with the API's message
// next to the field.
func TestCreateGameForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	bea := e.browser()
	bea.register("Bea", "bea@example.org")
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	// Ana has not played with Bea yet: she seats her by id (names and
	// addresses find only players one shares a game with).
	var beaMe struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(bea.get("/v1/me").must(t, http.StatusOK).Body), &beaMe); err != nil {
		t.Fatal(err)
	}

	res := ana.post("/games/new", newGameForm(t, ana, map[string]string{
		"ruleset": "summer-pavilion-mini", "board": "monochrome", "wild_order": "red, blue yellow orange green purple",
		"seats": "3", "seat0": "player", "seat0_player": beaMe.ID, "seat1": "me", "seat2": "open",
		"per_move": "3d", "on_timeout": "forfeit", "remind_before": "12h",
	})).must(t, http.StatusSeeOther)
	id := strings.TrimPrefix(res.Header.Get("Location"), "/games/")
	var g struct {
		Ruleset string `json:"ruleset"`
		Status  string `json:"status"`
		Options struct {
			Board     string   `json:"board"`
			WildOrder []string `json:"wild_order"`
		} `json:"options"`
		Seats []struct {
			Name string `json:"name"`
		} `json:"seats"`
		TimeControl struct {
			PerMove      string `json:"per_move"`
			OnTimeout    string `json:"on_timeout"`
			RemindBefore string `json:"remind_before"`
		} `json:"time_control"`
	}
	body := ana.get("/v1/games/"+id).must(t, http.StatusOK).Body
	if err := json.Unmarshal([]byte(body), &g); err != nil {
		t.Fatal(err)
	}
	if g.Ruleset != "summer-pavilion-mini" || g.Options.Board != "monochrome" || g.Status != "open" ||
		!slices.Equal(g.Options.WildOrder, []string{"red", "blue", "yellow", "orange", "green", "purple"}) ||
		len(g.Seats) != 3 || g.Seats[0].Name != "Bea" || g.Seats[1].Name != "Ana" ||
		g.TimeControl.PerMove != "72h0m0s" || g.TimeControl.OnTimeout != "forfeit" || g.TimeControl.RemindBefore != "12h0m0s" {
		t.Fatalf("the game is not the form's: %s", body)
	}

	before := e.countGames()
	for _, c := range []struct {
		fields map[string]string
		field  string
		want   string
	}{
		{map[string]string{"wild_order": "red red red red red red", "ruleset": "summer-pavilion-mini"}, "wild_order", "wild"},
		{map[string]string{"seat1": "player", "seat1_player": "nobody@example.org"}, "seat1", "No one you have played with"},
		{map[string]string{"seat1": "player", "seat1_player": ""}, "seat1", "Name the player"},
		{map[string]string{"per_move": "5s"}, "per_move", "at least 1m"},
		{map[string]string{"per_move": "soon"}, "per_move", "not a duration"},
		{map[string]string{"per_move": "1h", "remind_before": "2h"}, "remind_before", "reminder must come before the deadline"},
		{map[string]string{"seed": "xyz"}, "seed", "64 hex digits"},
		{map[string]string{"ruleset": "chess"}, "ruleset", "Choose a rule set"},
		{map[string]string{"seats": "9"}, "seats", "2 to 4 seats"},
	} {
		res := ana.post("/games/new", newGameForm(t, ana, c.fields))
		if res.Status != http.StatusBadRequest {
			t.Errorf("%v: status %d", c.fields, res.Status)
			continue
		}
		if got := res.fieldError(t, c.field); !strings.Contains(got, c.want) {
			t.Errorf("%v: error at %s is %q, want %q", c.fields, c.field, got, c.want)
		}
		// The form keeps what was typed.
		for k, v := range c.fields {
			if k != "seats" && k != "ruleset" && !strings.Contains(res.Body, `value="`+v+`"`) {
				t.Errorf("%v: the form lost %s=%q", c.fields, k, v)
			}
		}
	}
	// Several mistakes are shown together: the form's own and the rules'.
	res = ana.post("/games/new", newGameForm(t, ana, map[string]string{
		"ruleset": "summer-pavilion-mini", "wall": "grey", "seat1": "player", "seat1_player": "zoe",
	})).must(t, http.StatusBadRequest)
	if res.fieldError(t, "seat1") == "" || res.fieldError(t, "wall") == "" {
		t.Errorf("not every mistake is shown: seat1 %q, wall %q", res.fieldError(t, "seat1"), res.fieldError(t, "wall"))
	}
	if n := e.countGames(); n != before {
		t.Fatalf("refused forms created %d games", n-before)
	}

	// The same form sent twice (a double click) creates one game.
	v := newGameForm(t, ana, map[string]string{"seat1": "bot"})
	first := ana.post("/games/new", v).must(t, http.StatusSeeOther)
	second := ana.post("/games/new", v).must(t, http.StatusSeeOther)
	if first.Header.Get("Location") != second.Header.Get("Location") || e.countGames() != before+1 {
		t.Fatalf("a form sent twice made two games: %s, %s", first.Header.Get("Location"), second.Header.Get("Location"))
	}
}

// The lobby puts my turn first, offers open seats with a join button that
// seats me, and lists finished games.
func TestLobbyAndJoin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	bea := e.browser()
	bea.register("Bea", "bea@example.org")
	create := func(b *browser, fields map[string]string) string {
		res := b.post("/games/new", newGameForm(t, b, fields)).must(t, http.StatusSeeOther)
		return strings.TrimPrefix(res.Header.Get("Location"), "/games/")
	}
	mine := create(ana, map[string]string{"seat1": "bot", "per_move": "48h"})
	open := create(bea, map[string]string{"ruleset": "summer-pavilion", "seat1": "open"})

	lobby := ana.get("/").must(t, http.StatusOK)
	doc := lobby.doc(t)
	section := func(class string) string {
		s := find(doc, func(n *html.Node) bool { return n.Data == "section" && hasClass(n, class) })
		if len(s) != 1 {
			t.Fatalf("no section.%s", class)
		}
		return text(s[0])
	}
	if turns := section("lobby-turns"); !strings.Contains(turns, "Ana · random bot") || !strings.Contains(turns, "move by") {
		t.Fatalf("my turn is not listed with its deadline: %q", turns)
	}
	if o := section("lobby-open"); !strings.Contains(o, "Bea · free seat") {
		t.Fatalf("the open game is not listed: %q", o)
	}
	joins := find(doc, func(n *html.Node) bool {
		a, _ := attr(n, "action")
		return n.Data == "form" && a == "/games/"+open+"/join"
	})
	if len(joins) != 1 {
		t.Fatalf("%d join forms for the open game", len(joins))
	}
	ana.post("/games/"+open+"/join", url.Values{"csrf": {lobby.csrf(t)}}).must(t, http.StatusSeeOther)
	var g struct {
		Status    string `json:"status"`
		YourSeats []int  `json:"your_seats"`
	}
	_ = json.Unmarshal([]byte(ana.get("/v1/games/"+open).Body), &g)
	if g.Status != "active" || !slices.Equal(g.YourSeats, []int{1}) {
		t.Fatalf("join did not seat Ana: %+v", g)
	}
	// Joining again is refused with the API's reason, and changes nothing.
	res := ana.post("/games/"+open+"/join", url.Values{"csrf": {lobby.csrf(t)}}).must(t, http.StatusForbidden)
	if !strings.Contains(res.Body, "no free seat") {
		t.Fatalf("no reason given:\n%s", res.Body)
	}

	// Resigning finishes the game: it moves to the finished list.
	token := ana.get("/games/" + mine).metaCSRF(t)
	ana.postJSON("/v1/games/"+mine+"/moves", `{"type":"resign"}`, "X-CSRF-Token", token).must(t, http.StatusCreated)
	doc = ana.get("/").doc(t)
	if f := section("lobby-finished"); !strings.Contains(f, "won by random bot") || !strings.Contains(f, "rank 2") {
		t.Fatalf("the finished game is not listed with its result: %q", f)
	}
}

// The table and replay pages carry what the script needs and the text
// board for readers without JavaScript.
func TestTableAndReplayPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	res := ana.post("/games/new", newGameForm(t, ana, map[string]string{"ruleset": "azul-mini", "seat1": "bot"})).must(t, http.StatusSeeOther)
	id := strings.TrimPrefix(res.Header.Get("Location"), "/games/")
	var state struct {
		Version int64 `json:"version"`
	}
	_ = json.Unmarshal([]byte(ana.get("/v1/games/"+id).Body), &state)

	app := func(p page) map[string]string {
		mains := find(p.doc(t), func(n *html.Node) bool { id, _ := attr(n, "id"); return n.Data == "main" && id == "app" })
		if len(mains) != 1 {
			t.Fatalf("no main#app:\n%s", p.Body)
		}
		out := map[string]string{}
		for _, a := range mains[0].Attr {
			out[a.Key] = a.Val
		}
		out["board"] = ""
		if pres := find(mains[0], func(n *html.Node) bool { return n.Data == "pre" && hasClass(n, "board") }); len(pres) == 1 {
			out["board"] = text(pres[0])
		}
		scripts := find(p.doc(t), func(n *html.Node) bool { _, src := attr(n, "src"); return n.Data == "script" && src })
		if len(scripts) != 1 {
			t.Fatalf("%d scripts", len(scripts))
		}
		out["script"], _ = attr(scripts[0], "src")
		out["type"], _ = attr(scripts[0], "type")
		return out
	}
	mine := app(ana.get("/games/"+id).must(t, http.StatusOK))
	me := ana.get("/v1/me").must(t, http.StatusOK)
	var player struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal([]byte(me.Body), &player)
	if mine["data-view"] != "table" || mine["data-game"] != id || mine["data-player"] != player.ID || mine["data-seats"] != "[0]" ||
		mine["data-version"] != itoa(state.Version) || !strings.HasPrefix(mine["script"], "/static/app.js") || mine["type"] != "module" {
		t.Fatalf("table data %v", mine)
	}
	if len(mine["board"]) < 100 {
		t.Fatalf("no text board: %q", mine["board"])
	}
	visitor := app(e.browser().get("/games/"+id).must(t, http.StatusOK))
	if visitor["data-player"] != "" || visitor["data-seats"] != "[]" {
		t.Fatalf("visitor data %v", visitor)
	}
	rp := app(ana.get("/games/"+id+"/replay?version=1").must(t, http.StatusOK))
	if rp["data-view"] != "replay" || rp["data-version"] != "1" || rp["data-latest"] != itoa(state.Version) {
		t.Fatalf("replay data %v", rp)
	}
	ana.get("/games/"+id+"/replay?version="+itoa(state.Version+1)).must(t, http.StatusBadRequest)
	ana.get("/games/"+id+"/replay?version=0").must(t, http.StatusBadRequest)
	ana.get("/games/nope").must(t, http.StatusNotFound)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Static files are served from the binary with their type, an ETag that
// answers 304, and a year's cache for the versioned URL the pages link.
func TestStaticFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	b := e.browser()
	page := b.get("/signin")
	links := find(page.doc(t), func(n *html.Node) bool { return n.Data == "link" })
	var css string
	for _, l := range links {
		if rel, _ := attr(l, "rel"); rel == "stylesheet" {
			css, _ = attr(l, "href")
		}
	}
	if !strings.HasPrefix(css, "/static/style.css?v=") {
		t.Fatalf("style sheet link %q", css)
	}
	res := b.get(css).must(t, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "text/css; charset=utf-8" {
		t.Errorf("content type %q", ct)
	}
	if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=31536000") || !strings.Contains(cc, "immutable") {
		t.Errorf("versioned cache control %q", cc)
	}
	etag := res.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	bare := b.get("/static/app.js").must(t, http.StatusOK)
	if ct := bare.Header.Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
		t.Errorf("content type %q", ct)
	}
	if cc := bare.Header.Get("Cache-Control"); !strings.Contains(cc, "no-cache") {
		t.Errorf("bare cache control %q", cc)
	}
	b.get("/static/style.css", "If-None-Match", etag).must(t, http.StatusNotModified)
	b.get("/static/style.css", "If-None-Match", `"other"`).must(t, http.StatusOK)
	b.get("/static/nothing.js").must(t, http.StatusNotFound)
	b.get("/static/../web.go").must(t, http.StatusNotFound)
}

// A search bot's seat takes a budget: the form sends it on, the API's
// bounds apply with the API's message next to the budget field, and a bot
// that takes no budget ignores the field.
func TestCreateGameFormBotBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	form := ana.get("/games/new").must(t, http.StatusOK)
	for _, want := range []string{`name="seat1_budget"`, "Seat 1 (moves first)", "Seat 4", `placeholder="200ms"`, "10ms to 2s"} {
		if !strings.Contains(form.Body, want) {
			t.Fatalf("the form lacks %s", want)
		}
	}
	if strings.Contains(form.Body, "Seat 0") {
		t.Fatal("the form counts seats from 0")
	}
	type seats struct {
		Seats []struct {
			Bot    string `json:"bot"`
			Budget string `json:"budget"`
		} `json:"seats"`
	}
	created := func(fields map[string]string) seats {
		t.Helper()
		res := ana.post("/games/new", newGameForm(t, ana, fields)).must(t, http.StatusSeeOther)
		var g seats
		body := ana.get("/v1/games/"+strings.TrimPrefix(res.Header.Get("Location"), "/games/")).must(t, http.StatusOK).Body
		if err := json.Unmarshal([]byte(body), &g); err != nil {
			t.Fatal(err)
		}
		if len(g.Seats) != 2 {
			t.Fatalf("%d seats: %s", len(g.Seats), body)
		}
		return g
	}
	if g := created(map[string]string{"seat1": "bot", "seat1_bot": "search", "seat1_budget": "150ms"}); g.Seats[1].Bot != "search" || g.Seats[1].Budget != "150ms" {
		t.Fatalf("seat 1 is %+v, want the search bot with 150ms", g.Seats[1])
	}
	if g := created(map[string]string{"seat1": "bot", "seat1_bot": "greedy", "seat1_budget": "5s"}); g.Seats[1].Bot != "greedy" || g.Seats[1].Budget != "" {
		t.Fatalf("seat 1 is %+v, want the greedy bot without a budget", g.Seats[1])
	}

	before := e.countGames()
	for budget, want := range map[string]string{"10s": "between 10ms and 2s", "1ms": "between 10ms and 2s", "quick": `a duration such as "200ms"`} {
		res := ana.post("/games/new", newGameForm(t, ana, map[string]string{"seat1": "bot", "seat1_bot": "search", "seat1_budget": budget}))
		if res.Status != http.StatusBadRequest {
			t.Fatalf("budget %s: status %d", budget, res.Status)
		}
		if got := budgetError(t, res, "seat1_budget"); !strings.Contains(got, want) || !strings.Contains(got, "budget") {
			t.Errorf("budget %s: the error next to the field is %q, want %q", budget, got, want)
		}
		if !strings.Contains(res.Body, `value="`+budget+`"`) || !strings.Contains(res.Body, `class="form-error"`) {
			t.Errorf("budget %s: the form lost the value or says nothing at the top", budget)
		}
	}
	if n := e.countGames(); n != before {
		t.Fatalf("refused budgets created %d games", n-before)
	}
}

// TestCreateGameFormLevels: the new-game form offers the six levels as
// bots by their names, and a seat of the form takes one (a budget typed
// in the field counts for the search bot only).
func TestCreateGameFormLevels(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	form := ana.get("/games/new").must(t, http.StatusOK)
	for _, want := range []string{`<option value="level1">level 1: just started`, `<option value="level6">level 6: the strongest`} {
		if !strings.Contains(form.Body, want) {
			t.Fatalf("the form lacks %s", want)
		}
	}
	res := ana.post("/games/new", newGameForm(t, ana, map[string]string{"seat1": "bot", "seat1_bot": "level4", "seat1_budget": "150ms"})).must(t, http.StatusSeeOther)
	var g struct {
		Seats []struct {
			Bot    string `json:"bot"`
			Budget string `json:"budget"`
		} `json:"seats"`
	}
	body := ana.get("/v1/games/"+strings.TrimPrefix(res.Header.Get("Location"), "/games/")).must(t, http.StatusOK).Body
	if err := json.Unmarshal([]byte(body), &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Seats) != 2 || g.Seats[1].Bot != "level4" || g.Seats[1].Budget != "" {
		t.Fatalf("seats %s, want level 4 without a budget", body)
	}

	// Once level 3 has a rating, its label names it, for the rule set and
	// number of seats the form shows, and carries it for the page's script.
	finishGame(t, ana, nil, ana, map[string]string{"ruleset": "azul-mini", "seat1": "bot", "seat1_bot": "level3"})
	waitFor(t, func() bool { return e.count(`SELECT count(*) FROM ratings WHERE subject = 'bot:level3'`) == 1 })
	form = ana.get("/games/new").must(t, http.StatusOK)
	options := find(form.doc(t), func(n *html.Node) bool { v, _ := attr(n, "value"); return n.Data == "option" && v == "level3" })
	if len(options) == 0 {
		t.Fatal("the form offers no level 3")
	}
	label := text(options[0])
	labels, _ := attr(options[0], "data-labels")
	if !regexp.MustCompile(`^level 3: knows the game \(\d+\.\d\)$`).MatchString(label) ||
		!strings.Contains(labels, `"azul-mini/2":"level 3: knows the game (`) || !strings.Contains(form.Body, "newgame.js") {
		t.Fatalf("level 3's option: %q, labels %q", label, labels)
	}
	if strings.Contains(form.Body, `value="level2" data-labels`) {
		t.Fatal("level 2, unrated, has labels with ratings")
	}
}

// budgetError is the error shown in the budget field's own box (not the
// seat's), which is marked invalid.
func budgetError(t *testing.T, p page, field string) string {
	t.Helper()
	for _, box := range find(p.doc(t), func(n *html.Node) bool { return hasClass(n, "seat-budget") }) {
		if len(find(box, func(n *html.Node) bool { name, _ := attr(n, "name"); return n.Data == "input" && name == field })) == 0 {
			continue
		}
		errs := find(box, func(n *html.Node) bool { return hasClass(n, "field-error") })
		if len(errs) == 0 || !hasClass(box, "invalid") {
			return ""
		}
		return strings.TrimSpace(text(errs[0]))
	}
	return ""
}

// The form's settings: Rated and Public/Private reach the game; a seed
// with Rated ticked is refused next to the Rated box, saying why.
func TestCreateGameFormSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	form := newGameForm(t, ana, map[string]string{"seat1": "bot"})
	if form.Get("rated") != "on" || form.Get("visibility") != "public" {
		t.Fatalf("the form's defaults: rated %q, visibility %q", form.Get("rated"), form.Get("visibility"))
	}
	form.Del("rated")
	form.Set("visibility", "private")
	res := ana.post("/games/new", form).must(t, http.StatusSeeOther)
	var g struct {
		Rated      bool   `json:"rated"`
		Visibility string `json:"visibility"`
		Takebacks  bool   `json:"takebacks"`
	}
	if err := json.Unmarshal([]byte(ana.get("/v1/games/"+strings.TrimPrefix(res.Header.Get("Location"), "/games/")).must(t, http.StatusOK).Body), &g); err != nil {
		t.Fatal(err)
	}
	if g.Rated || g.Visibility != "private" || !g.Takebacks {
		t.Errorf("an unrated private game from the form: %+v", g)
	}

	before := e.countGames()
	refused := ana.post("/games/new", newGameForm(t, ana, map[string]string{"seat1": "bot", "seed": strings.Repeat("ab", 32)})).must(t, http.StatusBadRequest)
	errs := find(refused.doc(t), func(n *html.Node) bool { return n.Data == "p" && hasClass(n, "field-error") })
	if len(errs) != 1 || !strings.Contains(text(errs[0]), "cannot be rated") || e.countGames() != before {
		t.Fatalf("a rated game with a seed: %d field errors, %d games made\n%s", len(errs), e.countGames()-before, refused.Body)
	}
	// The error is the Rated box's.
	box := find(refused.doc(t), func(n *html.Node) bool { return n.Data == "div" && hasClass(n, "invalid") && hasClass(n, "check") })
	if len(box) != 1 {
		t.Error("the refusal is not shown at the Rated box")
	}
}
