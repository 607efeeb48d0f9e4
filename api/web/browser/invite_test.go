package browser

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// allowClipboard lets the player's pages of this site write and read the
// clipboard, as a browser does once its user allows it.
func (p *player) allowClipboard() {
	p.e.t.Helper()
	c := chromedp.FromContext(p.ctx)
	err := c.Browser.Call(p.ctx, "Browser.grantPermissions", map[string]any{
		"permissions": []string{"clipboardReadWrite", "clipboardSanitizedWrite"},
		"origin":      p.e.url, "browserContextId": c.BrowserContextID,
	}, nil)
	if err != nil {
		p.e.t.Fatalf("allow the clipboard: %v", err)
	}
}

// TestInvitationLinkOnTheTable: the page of an open game shows its
// creator the invitation link, drawn as a QR code too, whose copy button
// puts the link on the clipboard; a friend who opens the link takes the
// seat by clicking, and lands at the table of the started game. The
// account page shows the player code, with a copy button that copies it.
func TestInvitationLinkOnTheTable(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	ann.watchConsole()
	bob.watchConsole()
	ann.allowClipboard()
	var g struct {
		ID            string `json:"id"`
		InvitationURL string `json:"invitation_url"`
	}
	e.rest(ann.token, http.MethodPost, "/v1/games", map[string]any{"ruleset": "azul-mini", "visibility": "private", "rated": false,
		"seats": []map[string]string{{"player": "me"}, {}}}, http.StatusCreated, &g)

	ann.open("/games/" + g.ID)
	ann.waitJS(`document.querySelector('#extra section#invite input#invite-url')`, "the invitation link among the table's panels")
	link := eval[string](ann, `document.getElementById('invite-url').value`)
	if link != g.InvitationURL || !strings.Contains(link, "/invite/") {
		t.Fatalf("the page's link %q, the API's %q", link, g.InvitationURL)
	}
	ann.waitJS(`(() => { const img = document.querySelector('section#invite img.invite-qr'); return img && img.complete && img.naturalWidth >= 100 && img.getBoundingClientRect().width > 0; })()`,
		"the QR code drawn on the page")
	if err := chromedp.Do(ann.ctx, chromedp.Click(chromedp.CSS("section#invite button.copy"))); err != nil {
		t.Fatal(err)
	}
	ann.waitJS(`document.querySelector('section#invite button.copy').dataset.state`, "the copy button to answer")
	if state := eval[string](ann, `document.querySelector('section#invite button.copy').dataset.state`); state != "copied" {
		t.Fatalf("the copy button says %q", state)
	}
	if got := eval[string](ann, `navigator.clipboard.readText()`); got != link {
		t.Fatalf("the clipboard holds %q, want %q", got, link)
	}
	ann.waitJS(`document.querySelector('section#invite .copy-status').textContent == 'Copied.'`, "the copy's confirmation")
	ann.shot("invitation-table")
	ann.noConsoleErrors("the table page with the invitation")

	bob.open(strings.TrimPrefix(link, e.url))
	bob.waitJS(`document.getElementById('take-seat')`, "the invitation's button")
	if got := eval[string](bob, `document.querySelector('.invite-what').textContent`); !strings.Contains(got, "Ann invites you") {
		t.Fatalf("the invitation says %q", got)
	}
	bob.shot("invitation-page")
	if err := chromedp.Do(bob.ctx, chromedp.Click(chromedp.CSS("#take-seat"))); err != nil {
		t.Fatal(err)
	}
	bob.waitJS(`document.getElementById('app') && document.getElementById('app').dataset.status == 'active'`, "the started game's table")
	bob.noConsoleErrors("the invitation and the table")

	ann.open("/account")
	ann.waitJS(`document.getElementById('player-code-value')`, "the player code on the account page")
	if got := eval[string](ann, `document.getElementById('player-code-value').value`); got != ann.id {
		t.Fatalf("the account page's player code %q, want %q", got, ann.id)
	}
	if err := chromedp.Do(ann.ctx, chromedp.Click(chromedp.CSS("#player-code button.copy"))); err != nil {
		t.Fatal(err)
	}
	ann.waitJS(`document.querySelector('#player-code button.copy').dataset.state == 'copied'`, "the player code copied")
	if got := eval[string](ann, `navigator.clipboard.readText()`); got != ann.id {
		t.Fatalf("the clipboard holds %q, want the player code %q", got, ann.id)
	}
	ann.open("/players/" + ann.id)
	ann.waitJS(`document.getElementById('player-code-value') && document.getElementById('player-code-value').value == '`+ann.id+`'`, "the player code on Ann's own profile")
	bob.open("/players/" + ann.id)
	if eval[bool](bob, `!!document.getElementById('player-code-value')`) {
		t.Fatal("Bob sees a copy box of Ann's player code on her profile")
	}
	ann.noConsoleErrors("the account and profile pages")
}
