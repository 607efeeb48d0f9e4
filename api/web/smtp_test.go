package web_test

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/mail/smtpin"
	"github.com/azuld/azuld/notify"
)

// The sign-in mail travels over real SMTP (loopback, to the server's own
// inbound listener, which takes play+… mailboxes) and its link, read
// from the delivered message as a mail client would, signs in.
func TestSigninLinkBySMTP(t *testing.T) {
	t.Parallel()
	got := make(chan []byte, 4)
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

	e := newEnvWith(t, true, mailer)
	e.browser().register("Ana", "play+ana@players.test")
	b := askLink(t, e, "play+ana@players.test")
	var raw []byte
	select {
	case raw = <-got:
	case <-time.After(30 * time.Second):
		t.Fatalf("no mail arrived; log:\n%s", e.logs.String())
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if to := msg.Header.Get("To"); !strings.Contains(to, "play+ana@players.test") {
		t.Fatalf("To: %s", to)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if !strings.Contains(subject, "sign-in link") {
		t.Fatalf("Subject: %s", subject)
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	var text string
	for {
		part, err := mr.NextPart() // decodes quoted-printable
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(part)
		if strings.HasPrefix(part.Header.Get("Content-Type"), "text/plain") {
			text = string(body)
		}
	}
	link := regexp.MustCompile(`http://azuld\.test/signin/link/[a-z2-7]+`).FindString(text)
	if link == "" {
		t.Fatalf("no link in the mail's text:\n%s", text)
	}
	useLink(t, b, linkPath(t, link)).must(t, 303)
	if !strings.Contains(b.get("/").Body, "Signed in as <strong>Ana</strong>") {
		t.Fatal("the mailed link did not sign in")
	}
}
