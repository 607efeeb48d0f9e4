package browser

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestFactoryGapTakesItsColour: a click between a factory's tiles, where
// no tile is, chooses a colour of that factory, as a click on a tile
// does; no point of the factory's disc is dead.
func TestFactoryGapTakesItsColour(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	id := e.newGame("azul-mini", nil, seedA, ann, bob)
	ann.watchConsole()
	ann.open("/games/" + id)
	ann.waitJS(`document.querySelector('#offer .factory .grp.pick')`, "Ann's choices")
	// The points between factory 1's tiles: between the first two (one
	// row), between the rows and at the disc's middle.
	gaps := eval[[][]float64](ann, `(() => {
		const f = document.querySelector('#offer .factory');
		f.scrollIntoView({block: 'center'});
		const r = [...f.querySelectorAll('.tile rect')].map((e) => e.getBoundingClientRect());
		const d = f.querySelector('circle.disc').getBoundingClientRect();
		return [
			[(r[0].right + r[1].left) / 2, (r[0].top + r[0].bottom) / 2],
			[(r[0].left + r[0].right) / 2, (r[0].bottom + r[2].top) / 2],
			[(r[0].right + r[1].left) / 2, (r[0].bottom + r[2].top) / 2],
			[(d.left + d.right) / 2, d.bottom - 6],
		];
	})()`)
	for i, xy := range gaps {
		if eval[bool](ann, `(() => { const e = document.elementFromPoint(`+fmtXY(xy)+`); return !!(e && e.closest('.tile')); })()`) {
			t.Fatalf("gap %d at %v is on a tile", i, xy)
		}
		if err := chromedp.Do(ann.ctx, chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
			t.Fatal(err)
		}
		ann.waitJS(`document.querySelector('#offer .factory .grp.sel[data-src="0"]') && document.querySelector('#app svg .line.pick')`, "factory 1's colour chosen by a click in a gap")
		if i == 0 {
			ann.shot("factory-gap-chosen")
		}
		if err := chromedp.Do(ann.ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
			t.Fatal(err)
		}
		ann.waitJS(`!document.querySelector('#offer .grp.sel')`, "the choice cancelled")
	}
	ann.noConsoleErrors("choosing from the factory")
}
