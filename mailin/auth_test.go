package mailin_test

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/authcheck"
	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/play"
)

// dnsZone serves real SPF and DMARC records from memory to the checks of
// incoming mail.
type dnsZone map[string][]string

func (z dnsZone) LookupTXT(_ context.Context, name string) ([]string, error) {
	if v, ok := z[strings.TrimSuffix(name, ".")]; ok {
		return v, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func (z dnsZone) LookupNetIP(_ context.Context, _, name string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func (z dnsZone) LookupMX(_ context.Context, name string) ([]*net.MX, error) {
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

// TestMoveByMailRecordsMailAuth: the SMTP listener checks SPF, DKIM and
// DMARC of a reply and the move's meta (the audit log) keeps the verdicts
// and the From domain, no address.
func TestMoveByMailRecordsMailAuth(t *testing.T) {
	t.Parallel()
	zone := dnsZone{
		// The test's SMTP client connects from loopback.
		"example.org":        {"v=spf1 ip4:127.0.0.0/8 -all"},
		"_dmarc.example.org": {"v=DMARC1; p=quarantine"},
	}
	e := newEnvWithInbound(t, 2, func(c *mailin.Config) { c.MailAuth = authcheck.New(zone) })
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	seat := g.ToAct()[0]
	p := map[int]play.Player{0: ana, 1: ben}[seat]
	m := e.TurnMail(g.ID, seat, g.Version)
	if err := e.SendReply(p.Email, mailtest.ReplyTo(t, m), m.Header.Get("Message-Id"), "", "1"); err != nil {
		t.Fatal(err)
	}
	e.WaitVersion(g.ID, g.Version)
	recs, err := e.Svc.Events(context.Background(), g.ID, g.Version, 1)
	if err != nil || len(recs) == 0 {
		t.Fatalf("the move's events: %v", err)
	}
	want := "spf=pass dkim=none dmarc=pass (p=quarantine) from=example.org"
	if got := recs[0].Meta.MailAuth; got != want {
		t.Fatalf("the move's mail_auth is %q; want %q", got, want)
	}
	// A move by the API records none.
	g2, err := e.Svc.Game(context.Background(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	res := e.MoveFirst(g2, ana, ben)
	if res.Events[0].Meta.MailAuth != "" {
		t.Errorf("a move by the API has mail_auth %q", res.Events[0].Meta.MailAuth)
	}
}
