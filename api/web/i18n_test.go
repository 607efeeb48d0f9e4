package web_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/azuld/azuld/i18n"
)

// update rewrites the golden pages under testdata/pages.
var update = flag.Bool("update", false, "rewrite the golden pages in testdata/pages")

// tour visits every page kind as a visitor and as a signed-in player whose
// account is in lang (a visitor's pages follow the browser's lang), and
// returns each page by name. Names, addresses and the course of the
// games are the same every time, so the pages can be compared.
func tour(t *testing.T, e *env, lang string) map[string]page {
	t.Helper()
	pages := map[string]page{}
	visitor := e.browser()
	visitor.lang = lang
	pages["signin"] = visitor.get("/signin").must(t, http.StatusOK)
	pages["register"] = visitor.get("/register").must(t, http.StatusOK)
	pages["link"] = visitor.get("/signin/link/"+strings.Repeat("t", 52)).must(t, http.StatusOK)
	pages["signin-error"] = visitor.post("/signin", url.Values{"csrf": {pages["signin"].csrf(t)}, "token": {"azt_wrong"}}).must(t, http.StatusUnauthorized)
	pages["error-404"] = visitor.get("/games/00000000-0000-4000-8000-000000000000").must(t, http.StatusNotFound)
	pages["error-language"] = visitor.get("/language?lang=xx").must(t, http.StatusBadRequest)
	pages["error-route"] = visitor.get("/nowhere").must(t, http.StatusNotFound)
	pages["visitor"] = visitor.get("/").must(t, http.StatusOK)

	account := lang
	if !i18n.Supported(account) {
		account = i18n.Default
	}
	ana := e.browser()
	ana.lang = lang
	form := ana.get("/register").must(t, http.StatusOK)
	pages["registered"] = ana.post("/register", url.Values{"csrf": {form.csrf(t)}, "name": {"Ana"}, "email": {"ana@example.org"},
		"language": {account}, "time_zone": {"UTC"}}).must(t, http.StatusCreated)
	bea := e.browser()
	bea.register("Bea", "bea@example.org")

	// Games for every list of the lobby: one where Ana must move, one
	// where Bea must, one with a free seat and one finished.
	newGame := func(b *browser, fields map[string]string) string {
		t.Helper()
		res := b.post("/games/new", newGameForm(t, b, fields)).must(t, http.StatusSeeOther)
		return strings.TrimPrefix(res.Header.Get("Location"), "/games/")
	}
	mine := newGame(ana, map[string]string{"ruleset": "azul-mini", "seat1": "player", "seat1_player": bea.playerID()})
	accept(t, bea, mine)
	theirs := newGame(bea, map[string]string{"ruleset": "summer-pavilion", "seat1": "player", "seat1_player": ana.playerID()})
	accept(t, ana, theirs)
	newGame(bea, map[string]string{"ruleset": "summer-pavilion-mini", "seat1": "open"})
	done := newGame(ana, map[string]string{"ruleset": "azul-mini", "seat1": "player", "seat1_player": bea.playerID()})
	accept(t, bea, done)
	table := ana.get("/games/"+done).must(t, http.StatusOK)
	ana.postJSON("/v1/games/"+done+"/moves", `{"type":"resign"}`, "X-CSRF-Token", table.metaCSRF(t)).must(t, http.StatusCreated)
	_ = theirs

	pages["lobby"] = ana.get("/").must(t, http.StatusOK)
	pages["new-game"] = ana.get("/games/new").must(t, http.StatusOK)
	pages["new-game-errors"] = ana.post("/games/new", newGameForm(t, ana, map[string]string{
		"per_move": "soon", "seed": "xyz", "seat1": "player", "seat1_player": "nobody@example.org",
	})).must(t, http.StatusBadRequest)
	pages["table"] = ana.get("/games/"+mine).must(t, http.StatusOK)
	pages["table-finished"] = ana.get("/games/"+done).must(t, http.StatusOK)
	pages["replay"] = ana.get("/games/"+mine+"/replay?version=1").must(t, http.StatusOK)
	pages["error-version"] = ana.get("/games/"+mine+"/replay?version=99").must(t, http.StatusBadRequest)
	acct := ana.get("/account").must(t, http.StatusOK)
	pages["account"] = acct
	pages["account-errors"] = ana.post("/account/profile", url.Values{"csrf": {acct.formCSRF(t, "/account/profile")}, "name": {"Ana"},
		"email": {"ana@example.org"}, "language": {"xx"}, "time_zone": {"Mars/Olympus"}}).must(t, http.StatusBadRequest)
	// The leaderboard and profiles, once the finished game is rated.
	waitFor(t, func() bool { return e.count(`SELECT count(*) FROM rating_history`) == 2 })
	pages["ratings"] = ana.get("/ratings?provisional=1").must(t, http.StatusOK)
	pages["ratings-empty"] = visitor.get("/ratings?ruleset=summer-pavilion&players=3").must(t, http.StatusOK)
	pages["error-ratings"] = visitor.get("/ratings?ruleset=chess").must(t, http.StatusBadRequest)
	pages["profile"] = ana.get("/players/"+bea.playerID()).must(t, http.StatusOK)
	pages["profile-bot"] = visitor.get("/players/bot:greedy").must(t, http.StatusOK)
	pages["account-delete"] = ana.get("/account/delete").must(t, http.StatusOK)
	del := pages["account-delete"]
	pages["account-delete-error"] = ana.post("/account/delete", url.Values{"csrf": {del.csrf(t)}, "name": {"Eve"}}).must(t, http.StatusBadRequest)
	return pages
}

// pageText is what a reader reads of a page: its text, block by block,
// and the labels that are read out (aria-label, title, placeholder).
// The text board (pre.board) is left out: it is the engine's plain-text
// drawing for readers without JavaScript, written by the engine in
// English (see docs/web.md).
func pageText(t *testing.T, p page) (text string, labels []string) {
	t.Helper()
	doc := p.doc(t)
	var b strings.Builder
	block := map[string]bool{"p": true, "h1": true, "h2": true, "h3": true, "li": true, "tr": true, "div": true, "section": true,
		"form": true, "fieldset": true, "legend": true, "label": true, "option": true, "nav": true, "header": true, "footer": true,
		"main": true, "table": true, "details": true, "summary": true, "title": true, "button": true, "td": true, "th": true,
		"text": true, "br": true}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style"):
			return
		case n.Type == html.ElementNode && n.Data == "pre" && hasClass(n, "board"):
			return
		case n.Type == html.ElementNode && n.Data == "noscript" && n.FirstChild != nil:
			// Parsed as a scripting browser does, its content is raw
			// text: read it as the HTML it is.
			inner, err := html.ParseFragment(strings.NewReader(n.FirstChild.Data), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range inner {
				walk(c)
			}
			return
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				if a.Key == "aria-label" || a.Key == "title" || a.Key == "placeholder" {
					labels = append(labels, a.Val)
				}
			}
			if block[n.Data] {
				b.WriteString("\n")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && block[n.Data] {
			b.WriteString("\n")
		}
	}
	walk(doc)
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n") + "\n", labels
}

// allowedWords are the ASCII words a pseudo-locale page may show outside
// the catalogue: names and addresses the test chose, the brand, each
// language's own name in the switcher, the zone's abbreviation, units of
// durations typed as Go writes them, the token's prefix, the values the
// test typed into forms, and the device
// the account service names for the test's HTTP client.
var allowedWords = []string{"Ana", "Bea", "Eve", "ana@example.org", "bea@example.org", "nobody@example.org", "azuld", "azul",
	"English", "Nederlands", "Deutsch", "Italiano", "UTC", "ms", "azt", "Mars/Olympus", "Go client", "xx", "soon", "xyz",
	// scrub's placeholders.
	"id", "token", "time"}

// Every page, rendered in the pseudo-locale, shows no word that did not
// come through the catalogue, and asks for no message that is missing.
func TestPagesPseudoLocale(t *testing.T) {
	t.Parallel()
	cat, err := i18n.New(i18n.Options{Pseudo: true})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvOpts(t, envOptions{catalogue: cat})
	pages := tour(t, e, i18n.Pseudo)
	names := make([]string, 0, len(pages))
	for name := range pages {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		text, labels := pageText(t, pages[name])
		if !strings.Contains(text, i18n.PseudoOpen) {
			t.Errorf("%s: no pseudo-locale text at all:\n%s", name, text)
		}
		if bad := i18n.Bypassed(scrub(text+"\n"+strings.Join(labels, "\n")), allowedWords...); len(bad) > 0 {
			t.Errorf("%s: words outside the catalogue %q in:\n%s\nlabels %q", name, bad, text, labels)
		}
		if !strings.Contains(pages[name].Body, `<html lang="en">`) {
			t.Errorf("%s: the pseudo-locale's page is not marked as English", name)
		}
	}
	// The scripts' messages the page links are in the pseudo-locale too.
	pseudo := e.browser()
	pseudo.lang = i18n.Pseudo
	if msgs := pseudo.get(messagesLink(t, pages["table"])).must(t, http.StatusOK); !strings.Contains(msgs.Body, `"web.js.cancel":"⟦`) {
		t.Error("the table page does not link the scripts' messages in its language")
	}
	if missing := cat.Missing(); len(missing) > 0 {
		t.Errorf("messages asked for and missing: %q", missing)
	}
}

var (
	uuidRe  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	shortRe = regexp.MustCompile(`\b[0-9a-f]{8}(-[0-9a-f]{4})?\b`)
	tokenRe = regexp.MustCompile(`azt_[A-Za-z0-9_\-]{8,}`)
	timeRe  = regexp.MustCompile(`\S+ \d{1,2}\.? \S+ \d{4},? \d{1,2}:\d{2}`)
	dateRe  = regexp.MustCompile(`\b\d{1,2}\.? \pL+\.? \d{4}\b`)
)

// scrub replaces what differs from run to run (ids, tokens, the clock)
// with placeholders.
func scrub(s string) string {
	s = uuidRe.ReplaceAllString(s, "<id>")
	s = shortRe.ReplaceAllString(s, "<id>")
	s = tokenRe.ReplaceAllString(s, "azt_<token>")
	s = timeRe.ReplaceAllString(s, "<time>")
	return dateRe.ReplaceAllString(s, "<date>")
}

// Every page renders in each language; its text is kept in
// testdata/pages/<page>.<lang>.txt for a person to read (go test -run
// TestPagesGolden -update rewrites them), and a change shows in review.
func TestPagesGolden(t *testing.T) {
	t.Parallel()
	for _, lang := range i18n.Languages {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			cat, err := i18n.New(i18n.Options{})
			if err != nil {
				t.Fatal(err)
			}
			e := newEnvOpts(t, envOptions{catalogue: cat})
			pages := tour(t, e, lang)
			for name, p := range pages {
				if !strings.Contains(p.Body, `<html lang="`+lang+`">`) {
					t.Errorf("%s: not marked as %s", name, lang)
				}
				text, labels := pageText(t, p)
				got := scrub(text)
				if len(labels) > 0 {
					got += "\n-- labels --\n" + scrub(strings.Join(labels, "\n")) + "\n"
				}
				file := filepath.Join("testdata", "pages", name+"."+lang+".txt")
				if *update {
					if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatalf("%v (run go test ./api/web -run TestPagesGolden -update)", err)
				}
				if got != string(want) {
					t.Errorf("%s in %s differs from %s:\n%s", name, lang, file, got)
				}
			}
			if missing := cat.Missing(); len(missing) > 0 {
				t.Errorf("messages asked for and missing: %q", missing)
			}
		})
	}
}

// htmlLang is a page's <html lang>.
func htmlLang(t *testing.T, p page) string {
	t.Helper()
	for _, n := range find(p.doc(t), func(n *html.Node) bool { return n.Data == "html" }) {
		v, _ := attr(n, "lang")
		return v
	}
	return ""
}

// A visitor's page is in Accept-Language's best match, until the
// switcher (a GET link that sets a cookie and sends the browser back to a
// path of this site only) chooses; a signed-in player's pages are in the
// account's language whatever the browser asks, and the player's
// switcher sets the account's language (a form with the CSRF token).
func TestLanguageChoice(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	v := e.browser()
	for accept, want := range map[string]string{
		"": "en", "nl-BE,nl;q=0.9,en;q=0.5": "nl", "de-CH": "de", "it": "it", "fr-FR,de;q=0.3": "de", "ja": "en", "xx-garbage;;": "en",
	} {
		v.lang = accept
		if got := htmlLang(t, v.get("/signin").must(t, http.StatusOK)); got != want {
			t.Errorf("Accept-Language %q: page in %q, want %q", accept, got, want)
		}
	}
	v.lang = "nl"
	if p := v.get("/signin"); !strings.Contains(p.Body, "Mail me een aanmeldlink") || p.Header.Get("Content-Language") != "nl" {
		t.Fatalf("a Dutch visitor's sign-in page:\n%s", p.Body)
	}
	// The switcher: Italian, back to where the visitor was.
	res := v.get("/language?lang=it&next="+url.QueryEscape("/register?x=1")).must(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/register?x=1" {
		t.Fatalf("the switcher sends the visitor to %q", loc)
	}
	if p := v.get("/register"); htmlLang(t, p) != "it" || !strings.Contains(p.Body, "Registrati") {
		t.Fatalf("after choosing Italian, the page is in %q", htmlLang(t, p))
	}
	// Every page offers the switcher, each language in its own name.
	for _, want := range []string{`href="/language?lang=de&amp;next=%2Fregister"`, ">Deutsch<", ">Nederlands<", ">Italiano<", ">English<"} {
		if !strings.Contains(v.get("/register").Body, want) {
			t.Errorf("the switcher lacks %s", want)
		}
	}
	// Nowhere else to go, and no unknown language.
	for _, next := range []string{"//evil.example", "https://evil.example", `/\evil.example`, "/%2F%2Fevil.example", "javascript:alert(1)", ""} {
		res := v.get("/language?lang=de&next="+url.QueryEscape(next)).must(t, http.StatusSeeOther)
		if loc := res.Header.Get("Location"); loc != "/" {
			t.Errorf("next=%q: sent to %q", next, loc)
		}
	}
	bad := v.get("/language?lang=fr").must(t, http.StatusBadRequest)
	for _, want := range []string{"fr", "en (English)", "nl (Nederlands)", "de (Deutsch)", "it (Italiano)"} {
		if !strings.Contains(bad.Body, want) {
			t.Errorf("the refusal of fr does not name %q:\n%s", want, bad.Body)
		}
	}

	// A player whose account is German reads German, whatever the
	// browser asks for or the cookie says.
	ana := e.browser()
	form := ana.get("/register").must(t, http.StatusOK)
	ana.post("/register", url.Values{"csrf": {form.csrf(t)}, "name": {"Ana"}, "email": {"ana@example.org"}, "language": {"de"}, "time_zone": {"Europe/Berlin"}}).must(t, http.StatusCreated)
	if n := e.count(`SELECT count(*) FROM players WHERE name = 'Ana' AND language = 'de' AND time_zone = 'Europe/Berlin'`); n != 1 {
		t.Fatal("registration did not keep the chosen language and zone")
	}
	ana.lang = "it"
	ana.get("/language?lang=nl").must(t, http.StatusSeeOther)
	lobby := ana.get("/").must(t, http.StatusOK)
	if htmlLang(t, lobby) != "de" || !strings.Contains(lobby.Body, "Deine Spiele") {
		t.Fatalf("a German account's lobby is in %q", htmlLang(t, lobby))
	}
	// The player's switcher changes the account, with the CSRF token only.
	ana.post("/account/language", url.Values{"csrf": {"forged"}, "language": {"it"}, "next": {"/"}}).must(t, http.StatusForbidden)
	if n := e.count(`SELECT count(*) FROM players WHERE name = 'Ana' AND language = 'de'`); n != 1 {
		t.Fatal("a forged switch changed the account")
	}
	res = ana.post("/account/language", url.Values{"csrf": {lobby.csrf(t)}, "language": {"it"}, "next": {"//evil.example"}}).must(t, http.StatusSeeOther)
	if res.Header.Get("Location") != "/" {
		t.Errorf("the player's switcher sends to %q", res.Header.Get("Location"))
	}
	if htmlLang(t, ana.get("/")) != "it" {
		t.Fatal("the account's language did not change")
	}
	ana.post("/account/language", url.Values{"csrf": {lobby.csrf(t)}, "language": {"fr"}}).must(t, http.StatusBadRequest)
	if n := e.count(`SELECT count(*) FROM players WHERE name = 'Ana' AND language = 'it'`); n != 1 {
		t.Fatal("an unknown language changed the account")
	}
}

// The account form refuses an unknown language or zone next to its field,
// in the reader's language, naming what is accepted, and changes nothing.
func TestAccountRefusesUnknownLanguageAndZone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	form := ana.get("/register").must(t, http.StatusOK)
	ana.post("/register", url.Values{"csrf": {form.csrf(t)}, "name": {"Ana"}, "email": {"ana@example.org"}, "language": {"nl"}, "time_zone": {"Europe/Amsterdam"}}).must(t, http.StatusCreated)
	acct := ana.get("/account").must(t, http.StatusOK)
	csrf := acct.formCSRF(t, "/account/profile")
	for _, c := range []struct{ lang, zone, field, want string }{
		{"fr", "Europe/Amsterdam", "language", "Kies een van de aangeboden talen: en (English), nl (Nederlands), de (Deutsch), it (Italiano)."},
		{"de", "Europe/Atlantis", "time_zone", "„Europe/Atlantis” is geen tijdzone die deze server kent. Geef een IANA-naam, zoals UTC, Europe/Amsterdam"},
		{"de", "Local", "time_zone", "„Local” is geen tijdzone"},
		{"de", "", "time_zone", "is geen tijdzone"},
	} {
		res := ana.post("/account/profile", url.Values{"csrf": {csrf}, "name": {"Ana B"}, "email": {"ana@example.org"}, "language": {c.lang}, "time_zone": {c.zone}}).must(t, http.StatusBadRequest)
		if got := res.fieldError(t, c.field); !strings.Contains(got, c.want) {
			t.Errorf("%s/%s: error at %s is %q, want %q", c.lang, c.zone, c.field, got, c.want)
		}
		if n := e.count(`SELECT count(*) FROM players WHERE name = 'Ana' AND language = 'nl' AND time_zone = 'Europe/Amsterdam'`); n != 1 {
			t.Fatalf("%s/%s: a refused form changed the account", c.lang, c.zone)
		}
	}
}

// Times are shown in the player's zone, with the zone named: the lobby's
// and the table's deadlines, the account page's clock.
func TestTimesInThePlayersZone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	form := ana.get("/register").must(t, http.StatusOK)
	ana.post("/register", url.Values{"csrf": {form.csrf(t)}, "name": {"Ana"}, "email": {"ana@example.org"}, "language": {"en"}, "time_zone": {"Asia/Tokyo"}}).must(t, http.StatusCreated)
	res := ana.post("/games/new", newGameForm(t, ana, map[string]string{"ruleset": "azul-mini", "seat1": "bot", "seat1_bot": "random", "per_move": "3d"})).must(t, http.StatusSeeOther)
	id := strings.TrimPrefix(res.Header.Get("Location"), "/games/")
	var g struct {
		Deadline time.Time `json:"deadline"`
	}
	if err := json.Unmarshal([]byte(ana.get("/v1/games/"+id).must(t, http.StatusOK).Body), &g); err != nil || g.Deadline.IsZero() {
		t.Fatalf("no deadline: %v", err)
	}
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	local := g.Deadline.In(tokyo)
	want := fmt.Sprintf("%d %s %d %s JST", local.Day(), local.Format("Jan"), local.Year(), local.Format("15:04"))
	for _, path := range []string{"/", "/games/" + id} {
		if body := ana.get(path).must(t, http.StatusOK).Body; !strings.Contains(body, want) {
			t.Errorf("%s does not show the deadline in Tokyo time (%q)", path, want)
		}
	}
	if body := ana.get("/account").Body; !strings.Contains(body, "JST") {
		t.Error("the account page's clock does not name the zone")
	}
	// In another zone the same deadline reads otherwise.
	ana.post("/account/profile", url.Values{"csrf": {ana.get("/account").formCSRF(t, "/account/profile")}, "name": {"Ana"}, "email": {"ana@example.org"},
		"language": {"nl"}, "time_zone": {"America/New_York"}}).must(t, http.StatusOK)
	ny := g.Deadline.In(mustZone(t, "America/New_York"))
	if body := ana.get("/").Body; !strings.Contains(body, ny.Format("15:04")+" "+ny.Format("MST")) {
		t.Errorf("the lobby does not show the deadline in New York time (%s)", ny.Format("15:04 MST"))
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// The table page links the scripts' words in the reader's language: the
// messages (plural ones with their CLDR forms) and the move words the
// page writes legal moves with.
func TestScriptMessagesInLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	form := ana.get("/register").must(t, http.StatusOK)
	ana.post("/register", url.Values{"csrf": {form.csrf(t)}, "name": {"Ana"}, "email": {"ana@example.org"}, "language": {"de"}, "time_zone": {"Europe/Berlin"}}).must(t, http.StatusCreated)
	res := ana.post("/games/new", newGameForm(t, ana, map[string]string{"ruleset": "summer-pavilion", "seat1": "bot", "seat1_bot": "random"})).must(t, http.StatusSeeOther)
	table := ana.get(res.Header.Get("Location")).must(t, http.StatusOK)
	block := ana.get(messagesLink(t, table)).must(t, http.StatusOK).Body
	var m struct {
		Cancel   string            `json:"web.js.cancel"`
		AllMoves map[string]string `json:"web.js.all_moves"`
		Red      string            `json:"game.colour.red"`
		Words    map[string]map[string]string
	}
	if err := json.Unmarshal([]byte(strings.Replace(block, `"_words"`, `"Words"`, 1)), &m); err != nil {
		t.Fatalf("the messages file is not JSON: %v\n%.300s", err, block)
	}
	if m.Cancel != "Abbrechen" || m.Red != "rot" || m.AllMoves["one"] == "" || m.AllMoves["other"] == "" {
		t.Errorf("the scripts' German messages: %+v", m)
	}
	if w := m.Words["pavilion"]; w["red"] != "rot" || w["pass"] != "passe" || w["$star"] != "Stern " || m.Words["azul"]["floor"] != "Boden" {
		t.Errorf("the German move words: %v", m.Words)
	}
	if !strings.Contains(table.Body, `data-zone="Europe/Berlin"`) || !strings.Contains(table.Body, `<html lang="de">`) {
		t.Error("the page does not give the scripts the reader's zone and language")
	}
}
