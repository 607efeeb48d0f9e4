package browser

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// tableBudget bounds what a table page transfers on its first load,
// compressed: the HTML, the modules, the style sheet, the messages and
// the first API answers (docs/playing.md states the measured figure).
const tableBudget = 100 << 10

// transfer is what a tab fetched over the network, by Chromium's own
// count (encodedDataLength: headers and body as sent, compressed). The
// event stream never finishes loading and is left out.
type transfer struct {
	mu      sync.Mutex
	pending map[network.RequestID]string
	// sent is the bytes of each finished request, by URL; encoding is
	// the Content-Encoding of each answer.
	sent     map[string]float64
	body     map[string]int64
	encoding map[string]string
	fromDisk map[string]bool
}

// watchTransfer starts counting what the player's tab fetches.
func (p *player) watchTransfer() *transfer {
	p.e.t.Helper()
	tr := &transfer{}
	tr.reset()
	err := chromedp.Listen(p.ctx, func(ev any) {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			if !strings.Contains(ev.Request.URL, "/stream") {
				tr.pending[ev.RequestID] = ev.Request.URL
			}
		case *network.EventResponseReceived:
			if url, ok := tr.pending[ev.RequestID]; ok {
				for k, v := range ev.Response.Headers {
					if strings.EqualFold(k, "Content-Encoding") {
						tr.encoding[url], _ = v.(string)
					}
				}
				tr.fromDisk[url] = ev.Response.FromDiskCache
			}
		case *network.EventDataReceived:
			if url, ok := tr.pending[ev.RequestID]; ok {
				tr.body[url] += ev.DataLength
			}
		case *network.EventLoadingFinished:
			if url, ok := tr.pending[ev.RequestID]; ok {
				tr.sent[url] += ev.EncodedDataLength
				delete(tr.pending, ev.RequestID)
			}
		case *network.EventLoadingFailed:
			delete(tr.pending, ev.RequestID)
		}
	})
	if err != nil {
		p.e.t.Fatal(err)
	}
	err = chromedp.Do(p.ctx, chromedp.Action[chromedp.Void](func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
		return chromedp.Void{}, err
	}))
	if err != nil {
		p.e.t.Fatal(err)
	}
	return tr
}

func (tr *transfer) reset() {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.pending, tr.sent, tr.body = map[network.RequestID]string{}, map[string]float64{}, map[string]int64{}
	tr.encoding, tr.fromDisk = map[string]string{}, map[string]bool{}
}

// settled waits until every request the tab began has finished.
func (tr *transfer) settled(t *testing.T) {
	t.Helper()
	until(t, waitTimeout, "every request to finish loading", func() (bool, string) {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		return len(tr.pending) == 0, fmt.Sprintf("%d requests still loading", len(tr.pending))
	})
}

// total is the bytes transferred and the requests made.
func (tr *transfer) total() (float64, int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	sum := 0.0
	for _, n := range tr.sent {
		sum += n
	}
	return sum, len(tr.sent)
}

// TestTablePageWeight: a table page's first load, with an empty cache,
// transfers less than tableBudget, its text compressed; the next load
// takes the messages file from the cache.
func TestTablePageWeight(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	pav := e.newGame("summer-pavilion", nil, seedA, ann, bob)
	for g := e.game(pav); g.Phase != "play" || g.ToAct[0] != 0; g = e.game(pav) {
		e.moveREST(pav, players)
	}
	ann.speak("de", "Europe/Berlin")
	tr := ann.watchTransfer()
	if err := chromedp.Do(ann.ctx, chromedp.Action[chromedp.Void](func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Call(ctx, network.ClearBrowserCache, cdp.Empty{})
		return chromedp.Void{}, err
	})); err != nil {
		t.Fatal(err)
	}
	tr.reset()
	ann.open("/games/" + pav)
	ann.waitJS(`document.querySelector('#app svg .pick')`, "Ann's choices")
	tr.settled(t)
	bytes, requests := tr.total()
	var lines []string
	for url, n := range tr.sent {
		lines = append(lines, fmt.Sprintf("%s: %.0f bytes sent (%s), %d bytes of body", strings.TrimPrefix(url, e.url), n, tr.encoding[url], tr.body[url]))
	}
	sort.Strings(lines)
	t.Logf("the Summer Pavilion table's first load transfers %.0f bytes in %d requests:\n%s", bytes, requests, strings.Join(lines, "\n"))
	if bytes > tableBudget || bytes < 10<<10 {
		t.Errorf("the table page transfers %.0f bytes, want some and at most %d", bytes, tableBudget)
	}
	messages := ""
	for url := range tr.sent {
		path := strings.TrimPrefix(url, e.url)
		if strings.HasPrefix(path, "/static/messages/de.json?v=") {
			messages = url
		}
		// Below a kilobyte, gzip's framing outweighs what it saves.
		if tr.body[url] > 1024 && tr.encoding[url] != "gzip" {
			t.Errorf("%s came uncompressed (%d bytes)", path, tr.body[url])
		}
	}
	if messages == "" {
		t.Fatalf("the page did not fetch the German messages file: %v", lines)
	}

	// Again: the messages (a versioned URL) come from the cache.
	tr.reset()
	ann.open("/games/" + pav)
	ann.waitJS(`document.querySelector('#app svg .pick')`, "Ann's choices again")
	tr.settled(t)
	again, _ := tr.total()
	tr.mu.Lock()
	n, fetched := tr.sent[messages]
	disk := tr.fromDisk[messages]
	tr.mu.Unlock()
	if fetched && n > 0 && !disk {
		t.Errorf("the second load fetched the messages again (%.0f bytes)", n)
	}
	if again >= bytes {
		t.Errorf("the second load transfers %.0f bytes, the first %.0f", again, bytes)
	}
	t.Logf("the second load transfers %.0f bytes", again)
}
