package browser

import (
	"fmt"
	"strings"
	"sync"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// console collects what a page writes to the browser's console as an
// error: uncaught exceptions, console.error and the browser's own error
// entries (a failed request: "net::ERR_CACHE_MISS", a 4xx answer).
type console struct {
	mu     sync.Mutex
	errors []string
}

// watchConsole starts collecting the console errors of the player's tab.
func (p *player) watchConsole() {
	p.e.t.Helper()
	c := &console{}
	err := chromedp.Listen(p.ctx, func(ev any) {
		var msg string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				msg += " " + ev.ExceptionDetails.Exception.Description
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert {
				return
			}
			var parts []string
			for _, a := range ev.Args {
				parts = append(parts, string(a.Value)+a.Description)
			}
			msg = "console." + string(ev.Type) + ": " + strings.Join(parts, " ")
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level != cdplog.EntryLevelError {
				return
			}
			msg = fmt.Sprintf("%s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
		default:
			return
		}
		c.mu.Lock()
		c.errors = append(c.errors, msg)
		c.mu.Unlock()
	})
	if err != nil {
		p.e.t.Fatalf("%s: listen to the console: %v", p.name, err)
	}
	p.console = c
}

// noConsoleErrors fails the test when the page wrote an error to the
// console since the last check (or since watchConsole).
func (p *player) noConsoleErrors(when string) {
	p.e.t.Helper()
	// A round trip to the page: the events sent before it have arrived.
	_ = eval[bool](p, `true`)
	p.console.mu.Lock()
	var got []string
	for _, e := range p.console.errors {
		// Chromium drops the requests under way when the machine's
		// network interfaces change, as Docker's do while the compose
		// tests run beside these: the page's error, not the page's fault.
		if !strings.Contains(e, "net::ERR_NETWORK_CHANGED") {
			got = append(got, e)
		}
	}
	p.console.errors = nil
	p.console.mu.Unlock()
	if len(got) > 0 {
		p.e.t.Fatalf("%s: the console has %d errors %s:\n%s", p.name, len(got), when, strings.Join(got, "\n"))
	}
}

// fmtXY writes a point as JavaScript arguments "x, y".
func fmtXY(xy []float64) string {
	return fmt.Sprintf("%f, %f", xy[0], xy[1])
}
