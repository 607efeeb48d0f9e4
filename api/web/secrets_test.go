package web_test

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/smtpin"
	"github.com/azuld/azuld/notify"
)

// inbox is a real SMTP server on loopback that keeps what it receives
// for players.test, and a mailer that relays to it.
func inbox(t *testing.T) (notify.Mailer, <-chan []byte) {
	t.Helper()
	got := make(chan []byte, 16)
	srv, err := smtpin.New(smtpin.Config{Domain: "players.test", Handler: func(_ context.Context, _ smtpin.Envelope, raw []byte) error {
		got <- bytes.Clone(raw)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); _ = srv.Close() })
	mailer, err := notify.NewSMTPMailer("smtp://" + ln.Addr().String() + "?tls=none")
	if err != nil {
		t.Fatal(err)
	}
	return mailer, got
}

// linkToken finds the token of the sign-in link in a mail's text.
var linkToken = regexp.MustCompile(`/signin/link/([a-z2-7]+)`)

// plainText is the decoded text/plain part of a raw mail.
func plainText(t *testing.T, raw []byte) string {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := mr.NextPart() // decodes quoted-printable
		if err == io.EOF {
			t.Fatalf("no text part:\n%s", raw)
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(part.Header.Get("Content-Type"), "text/plain") {
			body, err := io.ReadAll(part)
			if err != nil {
				t.Fatal(err)
			}
			return string(body)
		}
	}
}

// A whole sign-in by mail, over a real relay, with verification and the
// limits on: the link asked for, its page opened, used, refused used
// (410) and refused past the limit (429). No token of any mail of it
// is anywhere in the server's log.
func TestNoTokenInTheLogOfASignin(t *testing.T) {
	t.Parallel()
	mailer, got := inbox(t)
	policy := limits.DefaultPolicy()
	policy[limits.FailedTokens] = limits.Rule{Name: limits.FailedTokens, Limit: 1, Period: time.Hour}
	e := newEnvOpts(t, envOptions{deliver: true, mailer: mailer, limits: policy,
		tune: func(c *notify.Config) { c.VerifyAddresses = true }})
	const to = "play+ana@players.test"
	e.browser().register("Ana", to)

	var tokens []string
	b := askLink(t, e, to)
	// The verification mail and the sign-in mail.
	for len(tokens) < 2 {
		select {
		case raw := <-got:
			m := linkToken.FindStringSubmatch(plainText(t, raw))
			if m == nil {
				t.Fatalf("a mail without a link:\n%s", raw)
			}
			tokens = append(tokens, m[1])
		case <-time.After(30 * time.Second):
			t.Fatalf("%d mails arrived; log:\n%s", len(tokens), e.logs.String())
		}
	}
	path := "/signin/link/" + tokens[len(tokens)-1]
	e.browser().get(path).must(t, http.StatusOK)
	useLink(t, b, path).must(t, http.StatusSeeOther)
	other := e.browser()
	form := other.get(path).must(t, http.StatusOK)
	other.post(path, url.Values{"csrf": {form.csrf(t)}}).must(t, http.StatusGone)
	other.post(path, url.Values{"csrf": {form.csrf(t)}}).must(t, http.StatusTooManyRequests)
	// A link pasted with more after it holds a live token too.
	other.get(path + "/x")

	// Every delivery is logged before the test looks: both were sent.
	deadline := time.Now().Add(30 * time.Second)
	for e.count(`SELECT count(*) FROM deliveries WHERE outcome = 'sent'`) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the deliveries were not logged; log:\n%s", e.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	log := e.logs.String()
	for _, tok := range tokens {
		if strings.Contains(log, tok) {
			t.Errorf("token %s is in the log:\n%s", tok, log)
		}
	}
	if n := strings.Count(log, `"path":"/signin/link/REDACTED"`); n < 5 {
		t.Errorf("%d request lines of the link's page; want 5 or more:\n%s", n, log)
	}
}
