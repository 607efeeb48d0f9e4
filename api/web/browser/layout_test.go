package browser

import (
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/azuld/azuld/i18n"
)

// pageOverflow is the JavaScript that lists what sticks out of the window
// on the right, anywhere on the page: the page's width beyond the
// window, and the elements whose right edge is past it, unless they
// scroll within a box that fits the window (the text board). A box that
// hides what overflows it does not excuse it: that is cut off.
const pageOverflow = `(() => {
	const out = [];
	const extra = document.documentElement.scrollWidth - innerWidth;
	if (extra > 0) out.push('the page is ' + extra + 'px wider than the window');
	const clipped = (e) => {
		for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
			const ox = getComputedStyle(a).overflowX;
			if ((ox === 'auto' || ox === 'scroll') && a.getBoundingClientRect().right <= innerWidth + 0.5) return true;
		}
		return false;
	};
	for (const e of document.querySelectorAll('body *')) {
		const r = e.getBoundingClientRect();
		if (r.width > 0 && r.right > innerWidth + 0.5 && !e.closest('svg *') && !clipped(e)) {
			out.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.classList.length ? '.' + [...e.classList].join('.') : '') +
				' ends at ' + Math.round(r.right) + ' (' + (e.textContent || '').trim().slice(0, 40) + ')');
		}
		if (out.length > 8) break;
	}
	// A select shows one option in its box and cuts off what is longer:
	// it must be as wide as a copy of it that sizes itself to its widest
	// option.
	for (const s of document.querySelectorAll('select')) {
		if (!s.offsetParent) continue;
		const free = s.cloneNode(true);
		free.removeAttribute('id');
		Object.assign(free.style, { position: 'absolute', width: 'auto', maxWidth: 'none', minWidth: '0', visibility: 'hidden' });
		s.parentElement.append(free);
		const need = free.getBoundingClientRect().width, has = s.getBoundingClientRect().width;
		free.remove();
		if (need > has + 0.5) {
			const longest = [...s.options].map((o) => o.text).sort((a, b) => b.length - a.length)[0];
			out.push('select' + (s.id ? '#' + s.id : '[name=' + s.name + ']') + ' is ' + Math.round(has) + ' px wide, its options need ' + Math.round(need) + ' ("' + longest + '")');
		}
	}
	return out;
})()`

// load opens a page and waits until it is complete, in lang, and ready
// holds; unlike open it takes pages without a table.
func (p *player) load(path, lang, ready string) {
	p.e.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Navigate(p.e.url+path)); err != nil {
		p.e.t.Fatalf("%s opens %s: %v", p.name, path, err)
	}
	p.waitJS(`document.readyState == 'complete' && document.documentElement.lang == '`+lang+`' && (`+ready+`)`, path+" drawn in "+lang)
}

// layoutPage is a page the layout test opens, as whom, and what shows it
// is drawn; a core page is checked in every language, always.
type layoutPage struct {
	name, path, ready string
	who               *player
	core              bool
}

// layoutFullEnv is the environment variable that asks the layout test
// for every page in every language (AZUL_LAYOUT_FULL=1), some two
// minutes of a busy two-core machine. Without it, the core pages (the
// lobby, the new-game form, the table, finished or not, the replay, the
// account page, the ratings and the profile: the pages whose words and
// numbers change most with the language) are checked in every language,
// and each other page in one language, a different one from page to
// page; every page at both widths.
const layoutFullEnv = "AZUL_LAYOUT_FULL"

// TestNothingWiderThanTheWindow opens the pages in every language on a
// phone (390 px) and a desktop (1,280 px): none is wider than the
// window, and nothing on it ends past the window's right edge. Every
// page in every language with AZUL_LAYOUT_FULL=1 (layoutFullEnv).
func TestNothingWiderThanTheWindow(t *testing.T) {
	parallel(t)
	e := newEnvWorkers(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	visitor := e.visitor("a visitor")

	// A Summer Pavilion game under way, with Ann to place; a finished one
	// (two bots, public, its seed revealed) for the result and the
	// replay; a rated game Ann lost for her profile and the leaderboard.
	pav := e.newGame("summer-pavilion", nil, seedA, ann, bob)
	for g := e.game(pav); g.Phase != "play" || g.ToAct[0] != 0; g = e.game(pav) {
		e.moveREST(pav, players)
	}
	done := e.botsGame(ann, "summer-pavilion")
	rated := e.newRatedGame("azul-mini", ann, bob)
	e.rest(ann.token, http.MethodPost, "/v1/games/"+rated+"/moves", map[string]string{"type": "resign"}, http.StatusCreated, nil)
	v := e.moveAfter(done.ID, 20)
	replay := fmt.Sprintf("/games/%s/replay?version=%d", done.ID, v)
	// The analysis, asked for once: the replay shows it from then on
	// (the page keeps it).
	ann.load(replay, "en", `document.querySelector('#analysis #analyse')`)
	if err := chromedp.Do(ann.ctx, chromedp.Focus(chromedp.CSS("#analysis #analyse")), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	ann.waitLong(`document.getElementById('analysis').dataset.state == 'done'`, "the analysis", analysisWait)

	drawn := `document.getElementById('app')?.dataset.version`
	pages := []layoutPage{
		{"sign-in", "/signin", `document.querySelector('form.signin-token')`, visitor, false},
		{"register", "/register", `document.querySelector('form')`, visitor, false},
		{"visitor", "/", `document.body.classList.contains('page-visitor')`, visitor, false},
		{"watch", "/watch", `document.body.classList.contains('page-visitor')`, visitor, false},
		{"visitor-error", "/nowhere", `document.body.classList.contains('page-error')`, visitor, false},
		{"lobby", "/", `document.body.classList.contains('page-lobby')`, ann, true},
		{"new-game", "/games/new", `document.querySelector('form')`, ann, true},
		{"table", "/games/" + pav, `document.querySelector('#app svg .pick')`, ann, true},
		{"table-finished", "/games/" + done.ID, drawn + ` && document.querySelector('table.final')`, ann, true},
		{"replay", replay, `document.querySelector('#fair dl') && document.getElementById('analysis')?.dataset.state == 'done'`, ann, true},
		{"account", "/account", `document.body.classList.contains('page-account')`, ann, true},
		{"account-delete", "/account/delete", `document.querySelector('form')`, ann, false},
		{"ratings", "/ratings?ruleset=azul-mini&players=2&provisional=1", `document.querySelector('table.leaderboard')`, ann, true},
		{"profile", "/players/" + ann.id, `document.querySelector('svg.rating-chart')`, ann, true},
		{"profile-games", "/players/" + ann.id + "/games", `document.querySelector('main')`, ann, false},
		{"error", "/games/0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f", `document.body.classList.contains('page-error')`, ann, false},
	}
	full := os.Getenv(layoutFullEnv) != ""
	for li, lang := range i18n.Languages {
		ann.speak(lang, "Europe/Amsterdam")
		visitor.acceptLanguage(lang)
		for _, width := range []int64{390, 1280} {
			ann.viewport(width, 844)
			visitor.viewport(width, 844)
			for pi, pg := range pages {
				if !full && !pg.core && pi%len(i18n.Languages) != li {
					continue
				}
				pg.who.load(pg.path, lang, pg.ready)
				name := fmt.Sprintf("layout-%s-%s-%d", pg.name, lang, width)
				if got := eval[[]string](pg.who, pageOverflow); len(got) > 0 {
					pg.who.shot(name)
					t.Errorf("%s in %s at %d px: %v", pg.name, lang, width, got)
				} else if width == 390 && (lang == "nl" || lang == "de") {
					pg.who.shot(name)
				}
			}
		}
	}
}
