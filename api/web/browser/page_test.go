package browser

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// open loads a page of the site and waits until the script drew it.
func (p *player) open(path string) {
	p.e.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Navigate(p.e.url+path)); err != nil {
		p.e.t.Fatalf("%s opens %s: %v", p.name, path, err)
	}
	if !strings.HasPrefix(path, "/games/") || path == "/games/new" {
		p.waitJS(`document.readyState == 'complete'`, "the page to load")
		return
	}
	p.waitJS(`document.getElementById('app') && (document.getElementById('app').dataset.version || document.getElementById('app').dataset.shownVersion || document.getElementById('app').dataset.error) ? true : false`, "the page to be drawn")
}

// leave takes the player's tab away from the site, to a blank page.
func (p *player) leave() {
	p.e.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Navigate("about:blank")); err != nil {
		p.e.t.Fatalf("%s leaves the page: %v", p.name, err)
	}
}

// eval runs an expression in the page.
func eval[T any](p *player, expr string) T {
	p.e.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.e.t.Fatalf("%s: evaluate %s: %v", p.name, expr, err)
	}
	return v
}

// firstPick is the JavaScript that finds what a player would choose
// first: an open choice, else a highlighted piece of the drawing, else
// any highlighted control.
const firstPick = `(document.querySelector('#app .choice.pick') || document.querySelector('#app svg .pick') || document.querySelector('#app .pick'))`

// clickFirstPick clicks, with the mouse, the first highlighted choice.
func (p *player) clickFirstPick() {
	p.e.t.Helper()
	xy := eval[[]float64](p, `(() => {
		const e = `+firstPick+`;
		if (!e) return [];
		e.scrollIntoView({block: 'center', inline: 'center'});
		const shape = e.matches('button') ? e : (e.querySelector('polygon, rect, circle') || e);
		const r = shape.getBoundingClientRect();
		return [r.left + r.width / 2, r.top + r.height / 2];
	})()`)
	if len(xy) != 2 {
		p.e.t.Fatalf("%s: nothing to click", p.name)
	}
	if err := chromedp.Do(p.ctx, chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
		p.e.t.Fatalf("%s: click: %v", p.name, err)
	}
}

// pressEnter presses Enter on the focused element, after moving the
// focus with Tab onto a highlighted choice when it is elsewhere; with
// arrow, the arrow key first moves the focus to the next choice.
func (p *player) pressEnter(arrow bool) {
	p.e.t.Helper()
	for i := 0; ; i++ {
		if eval[bool](p, `!!(document.activeElement && document.activeElement.classList.contains('pick'))`) {
			break
		}
		if i > 60 {
			p.e.t.Fatalf("%s: Tab never reached a highlighted choice", p.name)
		}
		if err := chromedp.Do(p.ctx, chromedp.KeyEvent("\t")); err != nil {
			p.e.t.Fatal(err)
		}
	}
	if arrow {
		before := eval[string](p, `document.activeElement.outerHTML`)
		if err := chromedp.Do(p.ctx, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
			p.e.t.Fatal(err)
		}
		after := eval[string](p, `document.activeElement.classList.contains('pick') ? document.activeElement.outerHTML : ''`)
		if after == "" || (after == before && eval[int](p, `document.querySelectorAll('#app .pick').length`) > 1) {
			p.e.t.Fatalf("%s: the arrow key did not move to the next choice", p.name)
		}
	}
	if err := chromedp.Do(p.ctx, chromedp.KeyEvent("\r")); err != nil {
		p.e.t.Fatalf("%s: Enter: %v", p.name, err)
	}
}

// shot writes a screenshot of the page as name.png.
func (p *player) shot(name string) {
	p.e.t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.e.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(p.e.shots, name+".png"), png, 0o644); err != nil {
		p.e.t.Fatal(err)
	}
}

// viewport sets the page's size (a phone, a desktop).
func (p *player) viewport(w, h int64) {
	p.e.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.EmulateViewport(w, h)); err != nil {
		p.e.t.Fatal(err)
	}
}

// click clicks with the mouse at a point of the window.
func (p *player) click(xy []float64) {
	p.e.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
		p.e.t.Fatalf("%s: click at %v: %v", p.name, xy, err)
	}
}

// clickJS clicks with the mouse in the middle of the element the
// expression finds, scrolled into view if need be.
func (p *player) clickJS(expr string) {
	p.e.t.Helper()
	xy := eval[[]float64](p, `(() => { const e = `+expr+`; if (!e) return [];
		const r0 = e.getBoundingClientRect();
		if (r0.top < 0 || r0.bottom > innerHeight) e.scrollIntoView({block: 'center'});
		const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
	if len(xy) != 2 {
		p.e.t.Fatalf("%s: nothing to click for %s", p.name, expr)
	}
	p.click(xy)
}

// clickUntil clicks the element sel finds until cond holds: a page that
// draws itself again (a replay filling in its chapters on a busy machine)
// may replace the element between finding and clicking it, and that
// click is lost. It tries three times, waitTimeout/3 each.
func (p *player) clickUntil(sel, cond, what string) {
	p.e.t.Helper()
	for try := 1; ; try++ {
		p.waitJS(`document.querySelector('`+sel+`')`, what+": "+sel)
		if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
			p.e.t.Fatalf("%s: click %s: %v", p.name, sel, err)
		}
		if try == 3 {
			p.waitJS(cond, what)
			return
		}
		if ok, _ := p.holds(cond, waitTimeout/3); ok {
			return
		}
	}
}

// key presses a key on the page.
func (p *player) key(k string) {
	p.e.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.KeyEvent(k)); err != nil {
		p.e.t.Fatalf("%s: key %q: %v", p.name, k, err)
	}
}
