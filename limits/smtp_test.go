package limits_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/smtpin"
)

// The SMTP listener's admission check: per sender address (bounces per
// sending server), per seat address; a refusal is a temporary 450 4.7.1
// that says when to try again.
func TestAdmitMail(t *testing.T) {
	t.Parallel()
	l := limits.New(pg.NewPool(t), limits.Options{})
	p, err := limits.ParsePolicy(func(name string) string {
		return map[string]string{limits.MailFrom: "1/h", limits.MailTo: "1/h"}[name]
	})
	if err != nil {
		t.Fatal(err)
	}
	admit := limits.MailAdmission(limits.NewChecker(l, p, nil), nil)
	ctx := context.Background()
	mx := func(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 25} }
	refused := func(err error) {
		t.Helper()
		var rej *smtpin.Reject
		if !errors.As(err, &rej) || rej.Code != 450 || !strings.HasPrefix(rej.Message, "4.7.1 Too many mails") || !strings.Contains(rej.Message, "try again in") {
			t.Fatalf("%v, want a 450 4.7.1 saying when", err)
		}
	}
	if err := admit(ctx, mx("192.0.2.1"), "Ann@Example.net", ""); err != nil {
		t.Fatal(err)
	}
	refused(admit(ctx, mx("192.0.2.2"), "ann@example.net", ""))
	if err := admit(ctx, mx("192.0.2.1"), "ben@example.net", ""); err != nil {
		t.Fatalf("another sender: %v", err)
	}
	// Bounces have no sender: counted per sending server.
	if err := admit(ctx, mx("192.0.2.1"), "<>", ""); err != nil {
		t.Fatal(err)
	}
	refused(admit(ctx, mx("192.0.2.1"), "<>", ""))
	if err := admit(ctx, mx("192.0.2.9"), "<>", ""); err != nil {
		t.Fatalf("a bounce from another server: %v", err)
	}
	// Seat addresses, whatever their case.
	if err := admit(ctx, mx("192.0.2.1"), "ann@example.net", "play+abc@azul.example.org"); err != nil {
		t.Fatal(err)
	}
	refused(admit(ctx, mx("192.0.2.3"), "cy@example.net", "PLAY+ABC@azul.example.org"))
	// Off: nothing refused.
	off := limits.MailAdmission(nil, nil)
	for range 3 {
		if err := off(ctx, mx("192.0.2.1"), "ann@example.net", "play+abc@azul.example.org"); err != nil {
			t.Fatal(err)
		}
	}
}
