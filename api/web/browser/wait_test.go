package browser

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// waitTimeout bounds one wait for the page; the machine may be busy.
const waitTimeout = 30 * time.Second

// pagePollInterval is how often a wait looks at the page again. The page
// looks itself, with a timer: no round trip to the test per look.
const pagePollInterval = 15 * time.Millisecond

// pollScript is the JavaScript promise that looks at a boolean
// expression every pagePollInterval until it holds (true) or d has
// passed (false). An expression that throws does not hold yet (the
// element it reads is not drawn). Unlike chromedp.Poll it builds no
// function from a string, which the site's Content-Security-Policy
// forbids.
func pollScript(expr string, d time.Duration) string {
	return fmt.Sprintf(`new Promise((resolve) => {
	const end = performance.now() + %d;
	const look = () => {
		let holds = false;
		try { holds = !!(%s); } catch (e) {}
		if (holds) resolve(true);
		else if (performance.now() >= end) resolve(false);
		else setTimeout(look, %d);
	};
	look();
})`, d.Milliseconds(), expr, pagePollInterval.Milliseconds())
}

// holds waits up to d for a boolean expression to hold in the player's
// page. A navigation ends the page the wait runs in: it goes on in the
// next page. The error is the last one the browser gave, if the wait
// ended without the expression holding.
func (p *player) holds(expr string, d time.Duration) (bool, error) {
	deadline := time.Now().Add(d)
	var last error
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false, last
		}
		// The page's timer ends the wait; the context only guards
		// against a page that stopped answering.
		ctx, cancel := context.WithTimeout(p.ctx, left+5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](pollScript(expr, left), chromedp.EvalAwaitPromise))
		cancel()
		if err == nil {
			return ok, nil
		}
		if p.ctx.Err() != nil {
			return false, err
		}
		last = err
		// Between two pages there is nothing to evaluate in yet.
		select {
		case <-p.ctx.Done():
		case <-time.After(pagePollInterval):
		}
	}
}

// waitJS waits until a boolean expression holds in the page.
func (p *player) waitJS(expr, what string) {
	p.e.t.Helper()
	if ok, err := p.holds(expr, waitTimeout); !ok {
		errText, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.stringify(document.getElementById('app')?.dataset || {}) + ' ' + (document.getElementById('notice')?.textContent || '')`))
		p.e.t.Fatalf("%s: waited %s for %s (err %v; page says %q)", p.name, waitTimeout, what, err, errText)
	}
}

// waitLong waits up to d for a boolean expression to hold in the page,
// such as a job worker's analysis.
func (p *player) waitLong(expr, what string, d time.Duration) {
	p.e.t.Helper()
	if ok, err := p.holds(expr, d); !ok {
		text, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById('analysis')?.innerText || ''`))
		p.e.t.Fatalf("%s: waited %s for %s (err %v; the panel says %q)", p.name, d, what, err, text)
	}
}

// goPollInterval is how often until asks the test's own side again (a
// mailbox, the API): each look is cheap.
const goPollInterval = 10 * time.Millisecond

// until waits up to d for cond, asked every goPollInterval, and fails
// the test with what it waited for, and cond's last word, if it never
// holds.
func until(t testing.TB, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(goPollInterval)
	defer tick.Stop()
	for {
		ok, state := cond()
		if ok {
			return
		}
		select {
		case <-deadline.C:
			t.Fatalf("waited %s for %s: %s", d, what, state)
		case <-tick.C:
		}
	}
}
