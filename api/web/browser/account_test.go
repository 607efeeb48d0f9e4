package browser

import (
	"slices"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestAccountPages opens the account page and the page that deletes an
// account as a player would, on a desktop and on a phone: the profile,
// the tokens and the sessions are there, and nothing is wider than the
// screen.
func TestAccountPages(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	// Signed in by the sign-in page, as a person is; the other tests'
	// players hold the cookie it sets from the start.
	ann := e.newPlayerByForm("Ann")
	cookies, err := chromedp.Call(ann.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{e.url}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(cookies.Cookies, func(c *network.Cookie) bool { return c.Name == sessionCookie && c.HTTPOnly }) {
		t.Fatalf("signing in set no HttpOnly %s cookie: %+v", sessionCookie, cookies.Cookies)
	}
	for _, size := range []struct {
		name string
		w, h int64
	}{{"desktop", 1280, 900}, {"phone", 375, 740}} {
		ann.viewport(size.w, size.h)
		ann.open("/account")
		ann.waitJS(`document.querySelector('input[name=name]') && document.querySelector('input[name=name]').value == 'Ann'`, "the account page with Ann's name")
		ann.waitJS(`document.body.textContent.includes('registration')`, "the registration token in the list")
		ann.waitJS(`document.body.textContent.includes('(this browser)') || document.body.textContent.includes('this browser')`, "this browser among the sessions")
		if w := eval[float64](ann, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
			t.Errorf("%s: the account page is %v px wider than the screen", size.name, w)
		}
		ann.shot("account-" + size.name)
		ann.open("/account/delete")
		ann.waitJS(`document.querySelector('form input[name=name]')`, "the deletion form")
		if w := eval[float64](ann, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
			t.Errorf("%s: the deletion page is %v px wider than the screen", size.name, w)
		}
		ann.shot("account-delete-" + size.name)
	}
}
