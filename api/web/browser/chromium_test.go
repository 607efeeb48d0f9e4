package browser

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// chromium is the one headless Chromium a test binary shares: it starts
// on first use, every env opens its players' browser contexts in it
// (cookies, storage and cache apart, each in a window of its own), and
// TestMain stops it. Starting a Chromium costs a second or more of the
// machine; one per env was a good part of the package's time.
type chromium struct {
	once sync.Once
	// first is the browser's first tab; it keeps the browser alive and
	// is the parent of every tab the tests open.
	first  context.Context
	cancel context.CancelFunc
	err    error

	agentOnce sync.Once
	agent     string
	agentErr  error
}

// userAgent is the browser's User-Agent, as its requests send it (the
// device a session started for it is named after).
func (c *chromium) userAgent(t testing.TB) string {
	t.Helper()
	first := c.browser(t)
	c.agentOnce.Do(func() {
		v, err := chromedp.Call(first, cdpbrowser.GetVersion, cdp.Empty{})
		c.agent, c.agentErr = v.UserAgent, err
	})
	if c.agentErr != nil {
		t.Fatalf("the browser's User-Agent: %v", c.agentErr)
	}
	return c.agent
}

// chromiumPath finds Debian's chromium; a machine without it fails the
// tests with what to install.
func chromiumPath() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("the browser tests need Debian's chromium: apt-get install -y chromium")
}

// browser is the shared browser's first tab, started if need be; a
// Chromium that does not start fails t.
func (c *chromium) browser(t testing.TB) context.Context {
	t.Helper()
	c.once.Do(func() { c.first, c.cancel, c.err = startChromium() })
	if c.err != nil {
		t.Fatal(c.err)
	}
	return c.first
}

// startChromium starts a headless Chromium with a user data dir of its
// own (the allocator makes it and removes it).
func startChromium() (context.Context, context.CancelFunc, error) {
	path, err := chromiumPath()
	if err != nil {
		return nil, nil, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("mute-audio", true),
		// Several tests' windows are open at once: none of them may be
		// slowed down as a window in the background.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.WindowSize(1280, 900),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	first, cancelFirst := chromedp.NewContext(alloc)
	if err := chromedp.Do(first); err != nil {
		cancelFirst()
		cancelAlloc()
		return nil, nil, fmt.Errorf("start chromium: %w", err)
	}
	return first, func() {
		cancelFirst()
		cancelAlloc()
	}, nil
}

// close stops the browser, if it was started.
func (c *chromium) close() {
	if c.cancel != nil {
		c.cancel()
	}
}
