package notify_test

import (
	"context"
	"errors"
	"net"
	"net/textproto"
	"strings"
	"testing"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/notify"
)

// TestSMTPMailerAuthenticates: the relay URL's user and password are used
// with AUTH; wrong ones fail the delivery.
func TestSMTPMailerAuthenticates(t *testing.T) {
	t.Parallel()
	r := mailtest.StartRelay(t)
	r.RequireAuth("azuld", "s3cret pass")
	msg := []byte("From: azuld@mail.test\r\nTo: ana@example.org\r\nSubject: hi\r\nMessage-ID: <auth@mail.test>\r\n\r\nhello\r\n")

	good, err := notify.NewSMTPMailer("smtp://azuld:s3cret%20pass@" + r.Addr + "?tls=none&auth=plain")
	if err != nil {
		t.Fatal(err)
	}
	if err := good.Send(context.Background(), "azuld@mail.test", []string{"ana@example.org"}, msg); err != nil {
		t.Fatalf("send with the right password: %v", err)
	}
	if got := r.All(); len(got) != 1 || !strings.Contains(string(got[0].Raw), "hello") {
		t.Fatalf("relay got %d mails", len(got))
	}

	bad, err := notify.NewSMTPMailer("smtp://azuld:wrong@" + r.Addr + "?tls=none&auth=plain")
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Send(context.Background(), "azuld@mail.test", []string{"ana@example.org"}, msg); err == nil {
		t.Fatal("a wrong password delivered")
	}
	anonymous, err := notify.NewSMTPMailer("smtp://" + r.Addr + "?tls=none")
	if err != nil {
		t.Fatal(err)
	}
	if err := anonymous.Send(context.Background(), "azuld@mail.test", []string{"ana@example.org"}, msg); !errors.Is(err, notify.ErrPermanent) {
		t.Fatalf("without AUTH: %v, want a permanent failure (530)", err)
	}
	if len(r.All()) != 1 {
		t.Fatal("a refused delivery was kept")
	}
}

func TestNewSMTPMailerRejectsBadURLs(t *testing.T) {
	t.Parallel()
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

// TestSMTPMailerBracketsThePaths: MAIL FROM and RCPT TO carry their
// addresses in angle brackets, as RFC 5321 wants and strict servers (such
// as mailpit, which answers a bare address with 501) require. The server
// here speaks SMTP over loopback and refuses bare paths the same way.
func TestSMTPMailerBracketsThePaths(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lines := make(chan string, 16)
	go func() {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		tp := textproto.NewConn(conn)
		_ = tp.PrintfLine("220 strict.test ESMTP")
		for {
			line, err := tp.ReadLine()
			if err != nil {
				return
			}
			verb := strings.ToUpper(strings.SplitN(line, ":", 2)[0])
			switch {
			case strings.HasPrefix(verb, "EHLO"), strings.HasPrefix(verb, "HELO"):
				_ = tp.PrintfLine("250 strict.test")
			case verb == "MAIL FROM" || verb == "RCPT TO":
				lines <- line
				if !strings.Contains(line, ":<") || !strings.HasSuffix(line, ">") {
					_ = tp.PrintfLine("501 5.5.4 Syntax error in parameters or arguments")
					continue
				}
				_ = tp.PrintfLine("250 OK")
			case verb == "DATA":
				_ = tp.PrintfLine("354 go ahead")
				if _, err := tp.ReadDotBytes(); err != nil {
					return
				}
				_ = tp.PrintfLine("250 queued")
			case verb == "QUIT":
				_ = tp.PrintfLine("221 bye")
				return
			default:
				_ = tp.PrintfLine("250 OK")
			}
		}
	}()
	m, err := notify.NewSMTPMailer("smtp://" + l.Addr().String() + "?tls=none")
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("From: azuld@localhost\r\nTo: ana@example.org\r\nSubject: hi\r\n\r\nhello\r\n")
	if err := m.Send(context.Background(), "azuld@localhost", []string{"ana@example.org"}, msg); err != nil {
		t.Fatalf("send to a strict server: %v", err)
	}
	if got := <-lines; got != "MAIL FROM:<azuld@localhost>" {
		t.Errorf("sent %q", got)
	}
	if got := <-lines; got != "RCPT TO:<ana@example.org>" {
		t.Errorf("sent %q", got)
	}
}
