package browser

import (
	"context"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/azuld/azuld/i18n"
)

// speak sets the player's account language and zone (PATCH /v1/me).
func (p *player) speak(lang, zone string) {
	p.e.t.Helper()
	p.e.rest(p.token, http.MethodPatch, "/v1/me", map[string]string{"language": lang, "time_zone": zone}, http.StatusOK, nil)
}

// acceptLanguage makes every request of the player's browser ask for
// lang (Accept-Language), as a browser set to that language does.
func (p *player) acceptLanguage(lang string) {
	p.e.t.Helper()
	err := chromedp.Do(p.ctx, chromedp.Action[chromedp.Void](func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			return chromedp.Void{}, err
		}
		_, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": lang}})
		return chromedp.Void{}, err
	}))
	if err != nil {
		p.e.t.Fatal(err)
	}
}

// readable is everything the page says to a reader: the drawn text,
// and the accessible names and tooltips of every element (tiles, spaces,
// buttons), after the scripts have drawn it.
const readable = `[document.title, document.body.innerText,
  ...[...document.querySelectorAll('[aria-label], [title], [aria-valuetext]')].flatMap((e) => [e.getAttribute('aria-label') || '', e.getAttribute('title') || '', e.getAttribute('aria-valuetext') || '']),
  ...[...document.querySelectorAll('svg title')].map((e) => e.textContent)].join('\n')`

// The table drawn by the scripts, in the pseudo-locale, says nothing that
// did not come through the catalogue: its labels, choosers, status lines,
// the accessible names of its tiles and spaces, and the final result.
func TestTablePseudoLocale(t *testing.T) {
	parallel(t)
	cat, err := i18n.New(i18n.Options{Pseudo: true})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvCat(t, false, cat)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	ann.acceptLanguage(i18n.Pseudo)
	// Names, the brand, each language's own name, the zone's abbreviation.
	allowed := []string{"Ann", "Bob", "azuld", "azul", "English", "Nederlands", "Deutsch", "Italiano", "UTC"}
	// Seeds and their commitments are hex, not words.
	hex := regexp.MustCompile(`[0-9a-f]{16,}`)
	check := func(what string) {
		t.Helper()
		text := hex.ReplaceAllString(eval[string](ann, readable), "")
		if !strings.Contains(text, i18n.PseudoOpen) {
			t.Fatalf("%s: no pseudo-locale text:\n%s", what, text)
		}
		if bad := i18n.Bypassed(text, allowed...); len(bad) > 0 {
			t.Errorf("%s: words outside the catalogue %q in:\n%s", what, bad, text)
		}
	}

	azul := e.newGame("azul-mini", nil, seedA, ann, bob)
	ann.open("/games/" + azul)
	ann.waitJS(`document.querySelector('#app svg .pick')`, "Ann's choices")
	check("azul-mini, Ann to move")
	ann.clickFirstPick()
	ann.waitJS(`document.querySelector('#app svg .sel')`, "a chosen source")
	check("azul-mini, tiles chosen")

	pav := e.newGame("summer-pavilion", nil, seedA, ann, bob)
	for g := e.game(pav); g.Phase != "play" || g.ToAct[0] != 0; g = e.game(pav) {
		e.moveREST(pav, players)
	}
	ann.open("/games/" + pav)
	ann.waitJS(`document.querySelector('#app svg .pick')`, "Ann's choices")
	check("summer-pavilion, Ann to place")
	ann.clickFirstPick()
	ann.waitJS(`document.querySelector('#app .chooser') || document.getElementById('app').dataset.sending != 'yes'`, "a choice")
	check("summer-pavilion, a choice open")

	for e.game(azul).Status != "finished" {
		e.moveREST(azul, players)
	}
	ann.open("/games/" + azul)
	ann.waitJS(`document.querySelector('table.final')`, "the final result")
	check("azul-mini, finished")
	ann.open("/games/" + azul + "/replay?version=5")
	ann.waitJS(`document.querySelector('#fair dl') && document.querySelector('#step .event') && document.querySelector('#analysis').dataset.state`, "the replay's panels")
	check("azul-mini, replay")
	if missing := cat.Missing(); len(missing) > 0 {
		t.Errorf("messages asked for and missing: %q", missing)
	}
}

// englishWords are the words of the table's English messages that no
// German message has: none of them may show on a German page.
func englishWords(t *testing.T) map[string]bool {
	t.Helper()
	en, err := i18n.Messages(i18n.LocaleFS(), "en")
	if err != nil {
		t.Fatal(err)
	}
	de, err := i18n.Messages(i18n.LocaleFS(), "de")
	if err != nil {
		t.Fatal(err)
	}
	word := regexp.MustCompile(`[A-Za-z]{4,}`)
	german := map[string]bool{}
	for _, forms := range de {
		for _, s := range forms {
			// Placeholders ({{.Factory}}) are not German words.
			s = regexp.MustCompile(`\{\{[^}]*\}\}`).ReplaceAllString(s, " ")
			for _, w := range word.FindAllString(s, -1) {
				german[strings.ToLower(w)] = true
			}
		}
	}
	out := map[string]bool{}
	for id, forms := range en {
		if !strings.HasPrefix(id, "web.js.") && !strings.HasPrefix(id, "game.") && !strings.HasPrefix(id, "web.table.") {
			continue
		}
		for _, s := range forms {
			// Placeholders are not words.
			s = regexp.MustCompile(`\{\{[^}]*\}\}`).ReplaceAllString(s, " ")
			for _, w := range word.FindAllString(s, -1) {
				if lw := strings.ToLower(w); !german[lw] {
					out[lw] = true
				}
			}
		}
	}
	return out
}

// englishIn lists the English words on a German page.
func englishIn(text string, english map[string]bool) []string {
	seen := map[string]bool{}
	for _, w := range regexp.MustCompile(`[A-Za-z]{4,}`).FindAllString(text, -1) {
		if lw := strings.ToLower(w); english[lw] {
			seen[lw] = true
		}
	}
	out := make([]string, 0, len(seen))
	for w := range seen {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// Two players whose accounts are German play a whole game of Azul Mini
// by clicks, to the final result: the table speaks German on the way
// (the labels, the hints, the accessible names of the tiles and spaces),
// and no English word shows.
func TestGermanGameByClicks(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	ann.speak("de", "Europe/Berlin")
	bob.speak("de", "Europe/Vienna")
	english := englishWords(t)
	if !english["pattern"] || !english["factory"] || english["azul"] {
		t.Fatalf("the English word list is not what it should be: %d words", len(english))
	}
	id := e.newGame("azul-mini", nil, seedA, ann, bob)
	seen := map[string]bool{}
	n := playOut(e, id, []*player{ann, bob}, mouse, func(step int, p *player) {
		text := eval[string](p, readable)
		for _, want := range []string{"Du bist am Zug.", "Runde ", "Musterreihe 1", "Bodenreihe", "Manufakturplättchen 1", "Tischmitte", "Nimm Fliesen von einem Manufakturplättchen"} {
			if strings.Contains(text, want) {
				seen[want] = true
			}
		}
		if bad := englishIn(text, english); len(bad) > 0 {
			t.Fatalf("step %d: English on %s's German page: %q in:\n%s", step, p.name, bad, text)
		}
		if lang := eval[string](p, `document.documentElement.lang`); lang != "de" {
			t.Fatalf("step %d: the page is in %q", step, lang)
		}
		if step == 8 {
			p.shot("de-table")
		}
	})
	for _, want := range []string{"Du bist am Zug.", "Runde ", "Musterreihe 1", "Bodenreihe", "Manufakturplättchen 1", "Tischmitte", "Nimm Fliesen von einem Manufakturplättchen"} {
		if !seen[want] {
			t.Errorf("the German table never said %q", want)
		}
	}
	for _, p := range []*player{ann, bob} {
		text := eval[string](p, readable)
		for _, want := range []string{"Das Spiel ist vorbei.", "Endergebnis", "Platzierung"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s's final page does not say %q:\n%s", p.name, want, text)
			}
		}
		if bad := englishIn(text, english); len(bad) > 0 {
			t.Errorf("English on %s's final page: %q", p.name, bad)
		}
	}
	ann.shot("de-final")
	t.Logf("a German game of azul-mini: %d moves", n)
}

// Screenshots for docs/web.md: a Dutch lobby and an Italian account page
// (AZUL_SCREENSHOTS=docs/screenshots keeps them).
func TestLanguageScreens(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	ann.speak("nl", "Europe/Amsterdam")
	bob.speak("it", "Europe/Rome")
	players := []*player{ann, bob}
	done := e.newGame("azul-mini", nil, seedA, ann, bob)
	for e.game(done).Status != "finished" {
		e.moveREST(done, players)
	}
	e.newGame("summer-pavilion", nil, seedA, ann, bob)
	ann.open("/")
	ann.waitJS(`document.body.classList.contains('page-lobby') && document.documentElement.lang == 'nl'`, "the Dutch lobby")
	if text := eval[string](ann, `document.body.innerText`); !strings.Contains(text, "Je spellen") || !strings.Contains(text, "Jij bent aan de beurt") {
		t.Errorf("the Dutch lobby says:\n%s", text)
	}
	ann.shot("nl-lobby")
	bob.open("/account")
	bob.waitJS(`document.documentElement.lang == 'it'`, "the Italian account page")
	if text := eval[string](bob, `document.body.innerText`); !strings.Contains(text, "Il tuo account") || !strings.Contains(text, "Fuso orario") {
		t.Errorf("the Italian account page says:\n%s", text)
	}
	bob.shot("it-account")
}

// A visitor who registers in a browser set to Rome's time and to German
// gets an account in German and in Rome's zone: the language from
// Accept-Language, the zone from the browser (static/zone.js).
func TestRegisterTakesTheBrowsersLanguageAndZone(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	v := e.visitor("a visitor")
	ctx := v.ctx
	v.acceptLanguage("de-AT,de;q=0.9")
	err := chromedp.Do(ctx, chromedp.Action[chromedp.Void](func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/Rome"})
		return chromedp.Void{}, err
	}))
	if err != nil {
		t.Fatal(err)
	}
	v.open("/register")
	v.waitJS(`document.querySelector('input[name=time_zone]').value == 'Europe/Rome'`, "the browser's zone in the form")
	if got := eval[string](v, `document.querySelector('select[name=language]').value`); got != "de" {
		t.Fatalf("the language offered is %q, want de", got)
	}
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("input[name=name]"), "Vera"),
		chromedp.SendKeys(chromedp.CSS("input[name=email]"), "vera@example.org"),
		chromedp.Click(chromedp.CSS("form[action='/register'] button[type=submit]")),
	); err != nil {
		t.Fatal(err)
	}
	v.waitJS(`document.body.classList.contains('page-registered')`, "the welcome page")
	if text := eval[string](v, `document.body.innerText`); !strings.Contains(text, "Willkommen, Vera") {
		t.Fatalf("the welcome page says:\n%s", text)
	}
	var me struct {
		Language string `json:"language"`
		TimeZone string `json:"time_zone"`
	}
	token := eval[string](v, `document.querySelector('.token code').textContent`)
	e.rest(token, http.MethodGet, "/v1/me", nil, http.StatusOK, &me)
	if me.Language != "de" || me.TimeZone != "Europe/Rome" {
		t.Fatalf("the account is %+v, want de and Europe/Rome", me)
	}
}
