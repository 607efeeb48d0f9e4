package authcheck_test

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/azuld/azuld/mail/authcheck"
)

// FuzzCheck feeds any SPF and DMARC records and any message to the
// checks: they never panic, always end (the SPF lookup budget holds even
// when every name answers with the same record, includes and redirects
// pointing back at themselves), and answer only RFC 8601's words.
func FuzzCheck(f *testing.F) {
	f.Add("v=spf1 ip4:192.0.2.0/24 -all", "v=DMARC1; p=reject", message)
	f.Add("v=spf1 include:example.org redirect=example.org", "v=DMARC1; p=none; sp=quarantine", message)
	f.Add("v=spf1 a mx/24 exists:%{i}.x ptr ~all", "v=DMARC1", "From: a@b\r\n\r\n")
	f.Add("v=spf1 ip6:2001:db8::/129 a:/33 mx:example.org//0 ?all", "v=DMARC1; p=bogus", "DKIM-Signature: v=1; d=example.org; s=x; b=;\r\nFrom: x@example.org\r\n\r\nbody")
	f.Fuzz(func(t *testing.T, spf, dmarc, raw string) {
		z := everyName{spf: spf, dmarc: dmarc}
		ip := netip.MustParseAddr("192.0.2.7")
		r := authcheck.New(z).Check(context.Background(), ip, "ana@example.org", []byte(raw))
		words := []string{authcheck.Pass, authcheck.Fail, authcheck.SoftFail, authcheck.Neutral, authcheck.None, authcheck.TempError, authcheck.PermError}
		for _, v := range []string{r.SPF, r.DKIM, r.DMARC} {
			if !slices.Contains(words, v) {
				t.Fatalf("result %q is not one of RFC 8601's words: %+v", v, r)
			}
		}
		if strings.ContainsAny(r.String(), "\r\n@") {
			t.Fatalf("the record %q holds a line break or an address", r.String())
		}
	})
}

// everyName answers every TXT question with the SPF record (DMARC's
// names with the DMARC record) and every address question with one
// address, so include:, redirect=, a and mx loop for ever but for the
// lookup budget.
type everyName struct{ spf, dmarc string }

func (z everyName) LookupTXT(_ context.Context, name string) ([]string, error) {
	if strings.HasPrefix(name, "_dmarc.") {
		return []string{z.dmarc}, nil
	}
	return []string{z.spf}, nil
}

func (z everyName) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("198.51.100.1")}, nil
}

func (z everyName) LookupMX(_ context.Context, name string) ([]*net.MX, error) {
	return []*net.MX{{Host: "mx." + name, Pref: 10}}, nil
}
