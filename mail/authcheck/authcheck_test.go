package authcheck_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/azuld/azuld/mail/authcheck"
	"github.com/azuld/azuld/mail/dkim"
)

// zone is a DNS served from memory: the real records, by name.
type zone struct {
	txt  map[string][]string
	ip   map[string][]netip.Addr
	mx   map[string][]*net.MX
	down map[string]bool // names whose server fails (a temporary error)
}

func (z zone) fail(name string) error {
	if z.down[name] {
		return &net.DNSError{Err: "server misbehaving", Name: name, IsTemporary: true}
	}
	return &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func (z zone) LookupTXT(_ context.Context, name string) ([]string, error) {
	name = strings.TrimSuffix(name, ".")
	if v, ok := z.txt[name]; ok && !z.down[name] {
		return v, nil
	}
	return nil, z.fail(name)
}

func (z zone) LookupNetIP(_ context.Context, network, name string) ([]netip.Addr, error) {
	name = strings.TrimSuffix(name, ".")
	var out []netip.Addr
	for _, a := range z.ip[name] {
		if network == "ip" || (network == "ip4") == a.Is4() {
			out = append(out, a)
		}
	}
	if len(out) == 0 || z.down[name] {
		return nil, z.fail(name)
	}
	return out, nil
}

func (z zone) LookupMX(_ context.Context, name string) ([]*net.MX, error) {
	if v, ok := z.mx[name]; ok && !z.down[name] {
		return v, nil
	}
	return nil, z.fail(name)
}

const message = "From: Ana <ana@example.org>\r\nTo: play+abc@azul.test\r\nSubject: Re: your turn\r\n" +
	"Date: Wed, 25 Nov 2026 10:00:00 +0000\r\nMessage-ID: <1@example.org>\r\n\r\n3\r\n"

func TestCheck(t *testing.T) {
	_, key, err := dkim.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	signer, err := dkim.New("example.org", "s1", key)
	if err != nil {
		t.Fatal(err)
	}
	record, err := signer.Record()
	if err != nil {
		t.Fatal(err)
	}
	signed, err := signer.Sign([]byte(message))
	if err != nil {
		t.Fatal(err)
	}
	z := zone{
		txt: map[string][]string{
			"example.org":               {"google-site-verification=abc", "v=spf1 ip4:192.0.2.0/24 include:_spf.mailer.test mx:mx.example.org/30 -all"},
			"_spf.mailer.test":          {"v=spf1 ip6:2001:db8::/32 a:out.mailer.test ~all"},
			"s1._domainkey.example.org": {record},
			"_dmarc.example.org":        {"v=DMARC1; p=reject; adkim=s"},
			"sub.example.org":           {"v=spf1 redirect=example.org"},
			"two.test":                  {"v=spf1 -all", "v=spf1 +all"},
			"flaky.test":                {"v=spf1 include:down.test -all"},
			"down.test":                 {"v=spf1 +all"},
		},
		ip: map[string][]netip.Addr{
			"out.mailer.test": {netip.MustParseAddr("198.51.100.7")},
			"mx.example.org":  {netip.MustParseAddr("203.0.113.64")},
		},
		mx:   map[string][]*net.MX{"mx.example.org": {{Host: "mx.example.org.", Pref: 10}}},
		down: map[string]bool{"down.test": true},
	}
	c := authcheck.New(z)
	ctx := context.Background()
	ip := netip.MustParseAddr
	for _, tc := range []struct {
		name     string
		ip       string
		mailFrom string
		raw      string
		want     string
	}{
		{"all pass", "192.0.2.10", "ana@example.org", string(signed), "spf=pass dkim=pass dmarc=pass (p=reject) from=example.org"},
		{"SPF through an include's a", "198.51.100.7", "ana@example.org", message, "spf=pass dkim=none dmarc=pass (p=reject) from=example.org"},
		{"SPF softfail of an include does not match: the record's -all", "203.0.113.9", "ana@example.org", message, "spf=fail dkim=none dmarc=fail (p=reject) from=example.org"},
		{"a forged server, a good signature", "203.0.113.9", "ana@example.org", string(signed), "spf=fail dkim=pass dmarc=pass (p=reject) from=example.org"},
		{"a changed body breaks the signature", "192.0.2.10", "ana@example.org", strings.Replace(string(signed), "\r\n3\r\n", "\r\n4\r\n", 1), "spf=pass dkim=fail dmarc=pass (p=reject) from=example.org"},
		{"mx with a prefix", "203.0.113.66", "ana@example.org", message, "spf=pass dkim=none dmarc=pass (p=reject) from=example.org"},
		{"redirect, aligned only in relaxed mode", "192.0.2.10", "ana@sub.example.org", message, "spf=pass dkim=none dmarc=pass (p=reject) from=example.org"},
		{"two SPF records", "192.0.2.10", "bob@two.test", message, "spf=permerror dkim=none dmarc=fail (p=reject) from=example.org"},
		{"a server that fails", "192.0.2.10", "bob@flaky.test", message, "spf=temperror dkim=none dmarc=fail (p=reject) from=example.org"},
		{"no records anywhere", "192.0.2.10", "carl@nowhere.test", strings.Replace(message, "ana@example.org", "carl@nowhere.test", 1), "spf=none dkim=none dmarc=none from=nowhere.test"},
		{"null sender", "192.0.2.10", "<>", message, "spf=none dkim=none dmarc=fail (p=reject) from=example.org"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := c.Check(ctx, ip(tc.ip), tc.mailFrom, []byte(tc.raw)).String()
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if strings.Contains(got, "ana@") || strings.Contains(got, "bob@") {
				t.Errorf("an address in the record: %s", got)
			}
		})
	}
}

// TestDKIMKeyUnreachable: a signature whose key cannot be fetched for now
// is a temporary error, not a failure.
func TestDKIMKeyUnreachable(t *testing.T) {
	_, key, _ := dkim.GenerateKey()
	signer, _ := dkim.New("example.org", "s1", key)
	signed, err := signer.Sign([]byte(message))
	if err != nil {
		t.Fatal(err)
	}
	z := zone{down: map[string]bool{"s1._domainkey.example.org": true}, txt: map[string][]string{"s1._domainkey.example.org": {"x"}}}
	got := authcheck.New(z).Check(context.Background(), netip.MustParseAddr("192.0.2.1"), "ana@example.org", signed)
	if got.DKIM != authcheck.TempError {
		t.Errorf("dkim=%s; want temperror", got.DKIM)
	}
	var de *net.DNSError
	if !errors.As(z.fail("s1._domainkey.example.org"), &de) || !de.IsTemporary {
		t.Fatal("the fake server does not fail temporarily")
	}
}
