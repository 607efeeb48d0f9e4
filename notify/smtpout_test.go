package notify_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/azuld/azuld/notify"
)

// TestSMTPMailerAuthenticates: the relay URL's user and password are used
// with AUTH; wrong ones fail the delivery.
func TestSMTPMailerAuthenticates(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	r.user, r.pass = "azuld", "s3cret pass"
	msg := []byte("From: azuld@mail.test\r\nTo: ana@example.org\r\nSubject: hi\r\nMessage-ID: <auth@mail.test>\r\n\r\nhello\r\n")

	good, err := notify.NewSMTPMailer("smtp://azuld:s3cret%20pass@" + r.addr + "?tls=none&auth=plain")
	if err != nil {
		t.Fatal(err)
	}
	if err := good.Send(context.Background(), "azuld@mail.test", []string{"ana@example.org"}, msg); err != nil {
		t.Fatalf("send with the right password: %v", err)
	}
	if got := r.all(); len(got) != 1 || !strings.Contains(string(got[0].raw), "hello") {
		t.Fatalf("relay got %d mails", len(got))
	}

	bad, err := notify.NewSMTPMailer("smtp://azuld:wrong@" + r.addr + "?tls=none&auth=plain")
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Send(context.Background(), "azuld@mail.test", []string{"ana@example.org"}, msg); err == nil {
		t.Fatal("a wrong password delivered")
	}
	anonymous, err := notify.NewSMTPMailer("smtp://" + r.addr + "?tls=none")
	if err != nil {
		t.Fatal(err)
	}
	if err := anonymous.Send(context.Background(), "azuld@mail.test", []string{"ana@example.org"}, msg); !errors.Is(err, notify.ErrPermanent) {
		t.Fatalf("without AUTH: %v, want a permanent failure (530)", err)
	}
	if len(r.all()) != 1 {
		t.Fatal("a refused delivery was kept")
	}
}

func TestNewSMTPMailerRejectsBadURLs(t *testing.T) {
	for _, u := range []string{"", "http://x", "smtp://", "smtp://h:99999", "smtp://h?tls=maybe", "smtp://u:p@h?auth=magic", "smtps://:1", "%zz"} {
		if _, err := notify.NewSMTPMailer(u); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
	for _, u := range []string{"smtp://h", "smtp://u:p@h:587?tls=starttls", "smtps://u:p@h", "smtp://h:25?tls=none", "smtp://h?tls=opportunistic"} {
		if _, err := notify.NewSMTPMailer(u); err != nil {
			t.Errorf("%q: %v", u, err)
		}
	}
}
