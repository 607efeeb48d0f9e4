package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/azuld/azuld/notify"
)

// consoleLink waits for the line the notifier prints on the operator's
// terminal for a link mail to an address, and returns its link.
func consoleLink(t *testing.T, console *syncBuffer, what, to string) string {
	t.Helper()
	line := regexp.MustCompile(`(?m)^azuld: no mail relay configured: the ` + regexp.QuoteMeta(what) + ` link for ` + regexp.QuoteMeta(to) +
		` \(works once, for [^)]+\): (http://azuld\.test/signin/link/[a-z2-7]+)$`)
	var link string
	waitFor(t, func() bool {
		m := line.FindAllStringSubmatch(console.String(), -1)
		if len(m) > 0 {
			link = m[len(m)-1][1]
		}
		return link != ""
	})
	return link
}

// addressStatus is the account page's word on the address.
func addressStatus(t *testing.T, b *browser) string {
	t.Helper()
	doc := b.get("/account").must(t, http.StatusOK).doc(t)
	found := find(doc, func(n *html.Node) bool { return hasClass(n, "address-status") })
	if len(found) != 1 {
		t.Fatalf("%d address statuses on the account page", len(found))
	}
	return text(found[0])
}

// With no mail relay (the default: mails go to the log) the pages say
// that nothing was mailed and where the link went instead: the link is
// printed on the terminal azuld runs in, one plain line, and kept out of
// the log. After the click the lobby says the address is confirmed; the
// account page shows the address's status all along.
func TestLinksWithoutARelay(t *testing.T) {
	t.Parallel()
	console := &syncBuffer{}
	e := newEnvTuned(t, true, nil, func(c *notify.Config) { c.VerifyAddresses, c.LinkConsole = true, console })
	ana := e.browser()
	reg := ana.register("Ana", "ana@example.org")
	if !strings.Contains(reg.Body, "This server has no mail relay, so nothing was mailed: the link to confirm ana@example.org was printed on the terminal azuld runs in.") {
		t.Fatalf("the registration page does not say where the link went:\n%s", reg.Body)
	}
	link := consoleLink(t, console, "address confirmation", "ana@example.org")
	if got := addressStatus(t, ana); !strings.HasPrefix(got, "Waiting for confirmation: ana@example.org") {
		t.Fatalf("the account page says %q before the click", got)
	}
	lobby := ana.get("/").must(t, http.StatusOK)
	if !strings.Contains(lobby.Body, "This server has no mail relay: the link to confirm it is printed on the terminal") {
		t.Fatalf("the lobby's banner speaks of a mailed link:\n%s", lobby.Body)
	}

	// The click confirms the address, and the lobby says so.
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	res := useLink(t, ana, u.Path).must(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/?confirmed=1" {
		t.Fatalf("the link leads to %q", loc)
	}
	after := ana.get(res.Header.Get("Location")).must(t, http.StatusOK)
	if !strings.Contains(after.Body, "Your address ana@example.org is confirmed") {
		t.Fatalf("the lobby does not say the address is confirmed:\n%s", after.Body)
	}
	if got := addressStatus(t, ana); !strings.HasPrefix(got, "Address confirmed") {
		t.Fatalf("the account page says %q after the click", got)
	}

	// A sign-in link goes the same way, and a second use of the
	// confirmation link confirms nothing new.
	bob := askLink(t, e, "ana@example.org")
	signin := consoleLink(t, console, "sign-in", "ana@example.org")
	if su, _ := url.Parse(signin); useLink(t, bob, su.Path).must(t, http.StatusSeeOther).Header.Get("Location") != "/" {
		t.Fatal("a sign-in link to a confirmed address says it confirmed it")
	}

	// No link reaches the log.
	for _, l := range []string{link, signin} {
		token := l[strings.LastIndex(l, "/")+1:]
		if strings.Contains(e.logs.String(), token) {
			t.Errorf("the log holds the link %s", l)
		}
	}
	if n := strings.Count(console.String(), "\n"); n != 2 {
		t.Errorf("%d lines on the terminal, want 2:\n%s", n, console.String())
	}

	// Bouncing, then no address at all.
	if _, err := e.pool.Exec(context.Background(), `UPDATE players SET email_undeliverable_at = $1 WHERE email = 'ana@example.org'`, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := addressStatus(t, ana); !strings.HasPrefix(got, "Bouncing: mail to ana@example.org comes back") {
		t.Fatalf("the account page says %q of a bouncing address", got)
	}
	if _, err := e.pool.Exec(context.Background(), `UPDATE players SET email = '', email_undeliverable_at = NULL WHERE email = 'ana@example.org'`); err != nil {
		t.Fatal(err)
	}
	if got := addressStatus(t, ana); !strings.HasPrefix(got, "No address") {
		t.Fatalf("the account page says %q without an address", got)
	}
}
