package browser

import (
	"context"
	"net/http"
	"strings"
	"testing"

	cdpinput "github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// paste inserts text at the focused element as a paste does (Chromium's
// own input path, which a maxlength would cut short).
func (p *player) paste(sel, text string) {
	p.e.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		p.e.t.Fatalf("%s: click %s: %v", p.name, sel, err)
	}
	err := chromedp.Do(p.ctx, chromedp.Action[chromedp.Void](func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Call(ctx, cdpinput.InsertText, cdpinput.InsertTextParams{Text: text})
		return chromedp.Void{}, err
	}))
	if err != nil {
		p.e.t.Fatalf("%s: paste into %s: %v", p.name, sel, err)
	}
}

// TestTalkLimitByTheBox: a Dutch player pastes 5,000 characters into the
// table talk. The box keeps them all, a counter under it says how many
// of the 500 allowed, marked; sending is refused before anything is sent,
// with the reason in Dutch right under the box (not at the top of the
// page). Shortened, the message goes, and the reason and the mark go.
func TestTalkLimitByTheBox(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	ann.speak("nl", "Europe/Amsterdam")
	id := e.newGame("azul-mini", nil, seedA, ann, bob)
	ann.watchConsole()
	ann.open("/games/" + id)
	ann.waitJS(`document.querySelector('#extra section#talk form.talk-form #talk-count')`, "the talk form with its counter")
	if got := eval[string](ann, `document.getElementById('talk-count').textContent`); got != "0 van de hoogstens 500 tekens" {
		t.Fatalf("the empty box's counter reads %q", got)
	}

	long := strings.Repeat("lang ", 1000)
	ann.paste("#talk-text", long)
	if got := eval[int](ann, `document.getElementById('talk-text').value.length`); got != len(long) {
		t.Fatalf("the box keeps %d of the %d characters pasted", got, len(long))
	}
	ann.waitJS(`document.getElementById('talk-count').textContent === '4.999 van de hoogstens 500 tekens' && document.getElementById('talk-count').classList.contains('over')`, "the counter at 4.999, marked")
	ann.clickJS(`document.querySelector('form.talk-form button[type=submit]')`)
	ann.waitJS(`!document.getElementById('talk-error').hidden`, "the reason by the box")
	const reason = "Het bericht heeft 4.999 tekens; een bericht heeft er hoogstens 500. Maak het korter om het te versturen."
	if got := eval[string](ann, `document.getElementById('talk-error').textContent`); got != reason {
		t.Fatalf("the reason reads %q, want %q", got, reason)
	}
	// Right under the box, in view with it; the page's top notice says
	// nothing.
	gap := eval[float64](ann, `document.getElementById('talk-error').getBoundingClientRect().top - document.getElementById('talk-text').getBoundingClientRect().bottom`)
	if gap < 0 || gap > 80 {
		t.Fatalf("the reason stands %.0f px from the box", gap)
	}
	if !eval[bool](ann, `(() => { const r = document.getElementById('talk-error').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`) {
		t.Fatal("the reason is out of view")
	}
	if eval[bool](ann, `!document.getElementById('notice').hidden`) {
		t.Fatalf("the page's top notice says %q", eval[string](ann, `document.getElementById('notice').textContent`))
	}
	if got := eval[string](ann, `document.getElementById('talk-text').getAttribute('aria-describedby')`); !strings.Contains(got, "talk-error") {
		t.Fatalf("the box is described by %q", got)
	}
	ann.shot("talk-limit-nl")
	var page struct {
		Messages []struct{} `json:"messages"`
	}
	e.rest(ann.token, http.MethodGet, "/v1/games/"+id+"/messages", nil, http.StatusOK, &page)
	if len(page.Messages) != 0 {
		t.Fatalf("%d messages were sent", len(page.Messages))
	}

	// Shortened, it goes.
	eval[bool](ann, `(() => { const a = document.getElementById('talk-text'); a.value = ''; a.dispatchEvent(new Event('input')); return true; })()`)
	ann.paste("#talk-text", "Veel plezier!")
	ann.waitJS(`document.getElementById('talk-count').textContent === '13 van de hoogstens 500 tekens' && !document.getElementById('talk-count').classList.contains('over') && document.getElementById('talk-error').hidden`, "the counter at 13 and the reason gone")
	ann.clickJS(`document.querySelector('form.talk-form button[type=submit]')`)
	ann.waitJS(`[...document.querySelectorAll('#talk li.talk-message .talk-text')].some((e) => e.textContent === 'Veel plezier!')`, "the message sent")
	ann.noConsoleErrors("around the talk limit")
}
