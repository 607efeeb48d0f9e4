package browser

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/azuld/azuld/mail/compose"
)

// mailbox is the notifier's mailer in the browser tests: it keeps every
// mail it is given.
type mailbox struct {
	mu   sync.Mutex
	msgs []*mail.Message
	raws [][]byte
}

func (b *mailbox) Send(_ context.Context, _ string, _ []string, raw []byte) error {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.msgs = append(b.msgs, m)
	b.raws = append(b.raws, raw)
	return nil
}

// wait returns the first mail to addr whose Message-ID names kind.
func (b *mailbox) wait(t testing.TB, addr, kind string) *mail.Message {
	t.Helper()
	var found *mail.Message
	until(t, waitTimeout, fmt.Sprintf("a %s mail to %s", kind, addr), func() (bool, string) {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, m := range b.msgs {
			if strings.Contains(m.Header.Get("To"), addr) && strings.Contains(m.Header.Get("Message-Id"), "."+kind+"@") {
				found = m
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d other mails", len(b.msgs))
	})
	return found
}

// sendMail posts a reply to azuld as a mail provider's inbound webhook
// does (POST /v1/inbound/email), and returns the outcome.
func (e *env) sendMail(to, raw string) string {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.url+"/v1/inbound/email?to="+url.QueryEscape(to), strings.NewReader(raw))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+inboundSecret)
	res, err := e.http.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		e.t.Fatalf("inbound mail: %d %s", res.StatusCode, body)
	}
	return string(body)
}

// TestTalkByMailInTheReplay: a player answers their turn mail with a move
// and a few words below it; the replay shows the move, and the words at
// their place after it: not at the move's version, at the next one.
func TestTalkByMailInTheReplay(t *testing.T) {
	parallel(t)
	e := newEnvWorkers(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	id := e.newGame("azul-mini", nil, strings.Repeat("ab", 32), ann, bob)
	g := e.game(id)
	mover := []*player{ann, bob}[g.ToAct[0]]
	addr := strings.ToLower(mover.name) + "@example.org"
	turn := e.mails.wait(t, addr, compose.KindTurn)
	replyTo, err := mail.ParseAddress(turn.Header.Get("Reply-To"))
	if err != nil {
		t.Fatal(err)
	}
	raw := fmt.Sprintf("From: %s <%s>\r\nTo: %s\r\nSubject: Re: %s\r\nMessage-ID: <replay-talk@example.org>\r\nIn-Reply-To: %s\r\n"+
		"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"+
		"1\r\n\r\nWell played so far, Bob & co.\r\n\r\n-- \r\n%s\r\n\r\nOn Mon, 23 Nov 2026 at 10:00, azuld <azuld@mail.test> wrote:\r\n> It is your turn.\r\n",
		mover.name, addr, replyTo.Address, turn.Header.Get("Subject"), turn.Header.Get("Message-Id"), mover.name)
	if out := e.sendMail(replyTo.Address, raw); !strings.Contains(out, `"applied"`) {
		t.Fatalf("outcome %s", out)
	}
	until(t, waitTimeout, fmt.Sprintf("the move and the message after version %d", g.Version), func() (bool, string) {
		v := e.game(id).Version
		return v >= g.Version+2, fmt.Sprintf("the game is at version %d", v)
	})
	move, message := g.Version+1, g.Version+2

	// The replay's step at the message's version is the message, by its
	// author, sent by mail; the step before is the move.
	p := []*player{ann, bob}[1-g.ToAct[0]]
	step := func(v int64) (typ, desc, meta string) {
		p.open(fmt.Sprintf("/games/%s/replay?version=%d", id, v))
		sel := fmt.Sprintf(`#step .event[data-version="%d"]`, v)
		p.waitJS(`document.querySelector('`+sel+`')`, fmt.Sprintf("the replay's step at version %d", v))
		return eval[string](p, `document.querySelector('`+sel+`').dataset.type`),
			eval[string](p, `document.querySelector('`+sel+` .desc').textContent`),
			eval[string](p, `document.querySelector('`+sel+` .meta').textContent`)
	}
	typ, desc, meta := step(message)
	if typ != "game.message" || !strings.Contains(desc, "Well played so far, Bob & co.") || !strings.Contains(desc, mover.name) ||
		strings.Contains(desc, "On Mon") || !strings.Contains(meta, "mail") {
		t.Fatalf("the replay's step at version %d: %s %q (%q)", message, typ, desc, meta)
	}
	// The replay's table talk lists it, marked as the step shown.
	cur := fmt.Sprintf(`#talk .talk-message.current[data-version="%d"]`, message)
	p.waitJS(`document.querySelector('`+cur+`')`, "the message in the replay's table talk")
	if text := eval[string](p, `document.querySelector('`+cur+` .talk-text').textContent`); text != "Well played so far, Bob & co." {
		t.Fatalf("the replay's table talk shows %q", text)
	}
	p.shot("talk-by-mail-replay")
	if typ, desc, _ := step(move); typ == "game.message" || strings.Contains(desc, "Well played") {
		t.Fatalf("the replay's step at the move's version %d: %s %q", move, typ, desc)
	}
	// At the move, the message is still to come.
	p.waitJS(`document.querySelector('#talk h3')`, "the replay's table talk at the move")
	if n := eval[int](p, `document.querySelectorAll('#talk .talk-message').length`); n != 0 {
		t.Fatalf("the replay at the move's version %d lists %d messages", move, n)
	}
}
