package browser

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// resizeWindow resizes the player's browser window, as a person drags
// its edge (unlike viewport, which emulates a device's screen).
func (p *player) resizeWindow(w, h int64) {
	p.e.t.Helper()
	err := chromedp.Do(p.ctx, chromedp.Action[chromedp.Void](func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		win, err := chromedp.Call(ctx, browser.GetWindowForTarget, browser.GetWindowForTargetParams{})
		if err != nil {
			return chromedp.Void{}, err
		}
		_, err = chromedp.Call(ctx, browser.SetWindowBounds, browser.SetWindowBoundsParams{WindowID: win.WindowID, Bounds: &browser.Bounds{Width: w, Height: h}})
		return chromedp.Void{}, err
	}))
	if err != nil {
		p.e.t.Fatalf("%s: resize the window to %d×%d: %v", p.name, w, h, err)
	}
}

// overflow is the JavaScript that lists what sticks out of the window on
// the right: the page's width beyond the window, and the elements whose
// right edge is past it.
const overflow = `(() => {
	const out = [];
	const extra = document.documentElement.scrollWidth - innerWidth;
	if (extra > 0) out.push('the page is ' + extra + 'px wider than the window');
	for (const e of document.querySelectorAll('#app *')) {
		const r = e.getBoundingClientRect();
		if (r.width > 0 && r.right > innerWidth + 0.5 && !e.closest('svg *')) out.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + '.' + [...e.classList].join('.') + ' ends at ' + Math.round(r.right));
		if (out.length > 8) break;
	}
	return out;
})()`

// TestReplayFollowsResize: a replay page opened on a desktop and made
// phone-narrow lays itself out again for the phone, with nothing cut off
// on the right, and wide again for the desktop.
func TestReplayFollowsResize(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	id := e.newGame("summer-pavilion", nil, seedA, ann, bob)
	for range 30 {
		e.moveREST(id, players)
	}
	done := e.botsGame(ann, "summer-pavilion")
	ann.watchConsole()
	for _, view := range []string{"replay", "finished-replay", "table"} {
		ann.resizeWindow(1280, 900)
		path := "/games/" + id
		switch view {
		case "replay":
			path += "/replay?version=20"
		case "finished-replay":
			path = fmt.Sprintf("/games/%s/replay?version=%d", done.ID, e.moveAfter(done.ID, 30))
		}
		ann.open(path)
		ann.waitJS(`document.getElementById('app').dataset.shownVersion || document.getElementById('app').dataset.myTurn`, "the page drawn")
		if got := eval[[]string](ann, overflow); len(got) > 0 {
			t.Fatalf("%s at 1280×900: %v", view, got)
		}
		for _, w := range []int64{820, 600, 390, 320} {
			ann.resizeWindow(w, 844)
			ann.waitJS(fmt.Sprintf(`innerWidth <= %d`, w), "the narrower window")
			if got := eval[[]string](ann, overflow); len(got) > 0 {
				ann.shot(fmt.Sprintf("%s-resized-%d", view, w))
				t.Fatalf("%s shrunk from 1280 to %d px: %v", view, w, got)
			}
		}
		ann.shot(view + "-resized-to-phone")
		ann.resizeWindow(1280, 900)
		ann.waitJS(`innerWidth > 1200`, "the wide window again")
		if got := eval[[]string](ann, overflow); len(got) > 0 {
			t.Fatalf("%s widened again: %v", view, got)
		}
	}
	ann.noConsoleErrors("resizing")
}
