// Package authcheck checks where an incoming mail comes from: SPF of the
// sending server for the envelope sender's domain (RFC 7208), the DKIM
// signatures of the message (go-msgauth's verifier, RFC 6376), and DMARC
// of the From domain (RFC 7489: the domain's policy and whether a passing
// SPF or DKIM result is aligned with it).
//
// azuld does not refuse mail on these results (the reply token and the
// sender's address decide); it records them with a move made by mail, so
// the audit log shows how far the mail can be trusted. The verdicts and
// the From domain are recorded, never an address.
//
// All DNS goes through a Resolver (net.DefaultResolver in production), so
// tests serve the real records from memory. The SPF evaluator covers the
// mechanisms domains use (all, ip4, ip6, a, mx, include, exists without
// macros, redirect) with the limit of ten DNS lookups; a term with a
// macro (%{...}) or ptr never matches, which can only turn a pass into a
// weaker result, never a fail into a pass. The organizational domain of
// DMARC is taken as the last two labels (no public suffix list): a
// policy published at the From domain itself, as almost all are, is read
// exactly.
package authcheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/netip"
	"strings"

	msgdkim "github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-msgauth/dmarc"
)

// Resolver is the DNS the checks use; *net.Resolver is one.
type Resolver interface {
	LookupTXT(ctx context.Context, name string) ([]string, error)
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	LookupMX(ctx context.Context, name string) ([]*net.MX, error)
}

// Results of a check (RFC 8601's words).
const (
	Pass      = "pass"
	Fail      = "fail"
	SoftFail  = "softfail"
	Neutral   = "neutral"
	None      = "none"
	TempError = "temperror"
	PermError = "permerror"
)

// Result is what the checks found of one mail.
type Result struct {
	SPF, DKIM, DMARC string
	// FromDomain is the domain of the From header ("" when unreadable).
	FromDomain string
	// Policy is the From domain's DMARC policy (none, quarantine,
	// reject), "" without one.
	Policy string
}

// String is the record kept with a move: "spf=pass dkim=pass dmarc=pass
// (p=reject) from=example.org".
func (r Result) String() string {
	s := "spf=" + r.SPF + " dkim=" + r.DKIM + " dmarc=" + r.DMARC
	if r.Policy != "" {
		s += " (p=" + r.Policy + ")"
	}
	if r.FromDomain != "" {
		s += " from=" + r.FromDomain
	}
	return s
}

// Checker runs the checks.
type Checker struct{ dns Resolver }

// New returns a checker on r (nil: net.DefaultResolver).
func New(r Resolver) *Checker {
	if r == nil {
		r = net.DefaultResolver
	}
	return &Checker{dns: r}
}

// Check checks a mail that came from ip with the envelope sender
// mailFrom ("" or "<>" for the null sender). It never fails: a lookup
// that fails is a temperror in the result.
func (c *Checker) Check(ctx context.Context, ip netip.Addr, mailFrom string, raw []byte) Result {
	r := Result{SPF: None, DKIM: None, DMARC: None}
	spfDomain := domainOf(strings.Trim(mailFrom, "<>"))
	if spfDomain != "" && ip.IsValid() {
		budget := maxLookups
		r.SPF = c.spf(ctx, ip.Unmap(), spfDomain, &budget, 0)
	}
	dkimDomains, dkimResult := c.dkim(ctx, raw)
	r.DKIM = dkimResult
	if msg, err := mail.ReadMessage(bytes.NewReader(raw)); err == nil {
		if list, err := mail.ParseAddressList(msg.Header.Get("From")); err == nil && len(list) == 1 {
			r.FromDomain = domainOf(list[0].Address)
		}
	}
	if r.FromDomain != "" {
		r.DMARC, r.Policy = c.dmarc(ctx, r.FromDomain, spfDomain, r.SPF, dkimDomains)
	}
	return r
}

func domainOf(addr string) string {
	i := strings.LastIndexByte(addr, '@')
	if i < 0 || i == len(addr)-1 {
		return ""
	}
	d := strings.ToLower(strings.TrimSuffix(addr[i+1:], "."))
	if len(d) > 253 || strings.ContainsAny(d, " <>\"\\") {
		return ""
	}
	return d
}

// dnsResult sorts a lookup error: no such name (or no records) is
// "nothing there", anything else temporary.
func notFound(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound
}

// dkim verifies the signatures; it returns the domains (d=) of the ones
// that pass, and the result: pass when one passes, temperror when none
// passes and a key could not be fetched, fail when signatures are there
// and all fail, none without any.
func (c *Checker) dkim(ctx context.Context, raw []byte) ([]string, string) {
	verifs, err := msgdkim.VerifyWithOptions(bytes.NewReader(raw), &msgdkim.VerifyOptions{
		LookupTXT:        func(name string) ([]string, error) { return c.dns.LookupTXT(ctx, name) },
		MaxVerifications: 5,
	})
	if err != nil {
		return nil, PermError
	}
	if len(verifs) == 0 {
		return nil, None
	}
	var passed []string
	temp := false
	for _, v := range verifs {
		switch {
		case v.Err == nil:
			passed = append(passed, strings.ToLower(v.Domain))
		case msgdkim.IsTempFail(v.Err):
			temp = true
		}
	}
	switch {
	case len(passed) > 0:
		return passed, Pass
	case temp:
		return nil, TempError
	}
	return nil, Fail
}

// dmarc evaluates the From domain's policy: pass when SPF passed for an
// aligned envelope domain or DKIM passed for an aligned signing domain.
func (c *Checker) dmarc(ctx context.Context, from, spfDomain, spf string, dkimDomains []string) (result, policy string) {
	lookup := &dmarc.LookupOptions{LookupTXT: func(name string) ([]string, error) { return c.dns.LookupTXT(ctx, name) }}
	rec, err := dmarc.LookupWithOptions(from, lookup)
	if errors.Is(err, dmarc.ErrNoPolicy) && orgDomain(from) != from {
		rec, err = dmarc.LookupWithOptions(orgDomain(from), lookup)
	}
	switch {
	case errors.Is(err, dmarc.ErrNoPolicy):
		return None, ""
	case dmarc.IsTempFail(err):
		return TempError, ""
	case err != nil:
		return PermError, ""
	}
	aligned := func(d string, mode dmarc.AlignmentMode) bool {
		if mode == dmarc.AlignmentStrict {
			return d == from
		}
		return orgDomain(d) == orgDomain(from)
	}
	if spf == Pass && aligned(spfDomain, rec.SPFAlignment) {
		return Pass, string(rec.Policy)
	}
	for _, d := range dkimDomains {
		if aligned(d, rec.DKIMAlignment) {
			return Pass, string(rec.Policy)
		}
	}
	return Fail, string(rec.Policy)
}

// orgDomain is the last two labels of a domain (see the package comment).
func orgDomain(d string) string {
	labels := strings.Split(d, ".")
	if len(labels) <= 2 {
		return d
	}
	return strings.Join(labels[len(labels)-2:], ".")
}

// maxLookups is SPF's limit on the terms that cause DNS lookups (RFC
// 7208 §4.6.4); maxDepth bounds include and redirect chains.
const (
	maxLookups = 10
	maxDepth   = 10
)

// spf evaluates the SPF record of domain for ip (RFC 7208 §4).
func (c *Checker) spf(ctx context.Context, ip netip.Addr, domain string, budget *int, depth int) string {
	if depth > maxDepth {
		return PermError
	}
	txts, err := c.dns.LookupTXT(ctx, domain)
	if err != nil {
		if notFound(err) {
			return None
		}
		return TempError
	}
	var record string
	found := 0
	for _, t := range txts {
		if l := strings.ToLower(t); l == "v=spf1" || strings.HasPrefix(l, "v=spf1 ") {
			record, found = t, found+1
		}
	}
	switch found {
	case 0:
		return None
	case 1:
	default:
		return PermError
	}
	var redirect string
	for _, term := range strings.Fields(record)[1:] {
		name, value, isModifier := strings.Cut(term, "=")
		if isModifier && !strings.ContainsAny(name, ":/") {
			if strings.EqualFold(name, "redirect") {
				redirect = value
			}
			continue // exp= and unknown modifiers are ignored
		}
		qualifier := Pass
		switch term[0] {
		case '+':
			term = term[1:]
		case '-':
			qualifier, term = Fail, term[1:]
		case '~':
			qualifier, term = SoftFail, term[1:]
		case '?':
			qualifier, term = Neutral, term[1:]
		}
		match, errResult := c.mechanism(ctx, ip, domain, term, budget, depth)
		if errResult != "" {
			return errResult
		}
		if match {
			return qualifier
		}
	}
	if redirect != "" {
		if *budget--; *budget < 0 {
			return PermError
		}
		if strings.Contains(redirect, "%") {
			return PermError
		}
		r := c.spf(ctx, ip, strings.ToLower(redirect), budget, depth+1)
		if r == None {
			return PermError
		}
		return r
	}
	return Neutral
}

// mechanism tells whether one mechanism matches ip; errResult, when not
// empty, ends the evaluation with that result.
func (c *Checker) mechanism(ctx context.Context, ip netip.Addr, domain, term string, budget *int, depth int) (match bool, errResult string) {
	name, arg, _ := strings.Cut(term, ":")
	// a and mx take an optional /cidr after the name or the domain.
	var cidr string
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name, cidr = name[:i], name[i:]
	} else if i := strings.IndexByte(arg, '/'); i >= 0 {
		arg, cidr = arg[:i], arg[i:]
	}
	name = strings.ToLower(name)
	target := domain
	if arg != "" {
		target = strings.ToLower(arg)
	}
	if strings.Contains(target, "%") {
		return false, "" // macros are not expanded: never a match
	}
	lookup := func() bool { *budget--; return *budget >= 0 }
	switch name {
	case "all":
		return true, ""
	case "ip4", "ip6":
		p, err := netip.ParsePrefix(arg + cidr)
		if err != nil {
			a, aerr := netip.ParseAddr(arg)
			if aerr != nil {
				return false, PermError
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		return p.Contains(ip), ""
	case "a", "mx":
		if !lookup() {
			return false, PermError
		}
		hosts := []string{target}
		if name == "mx" {
			mxs, err := c.dns.LookupMX(ctx, target)
			if err != nil && !notFound(err) {
				return false, TempError
			}
			hosts = hosts[:0]
			for i, mx := range mxs {
				if i == 10 {
					return false, PermError
				}
				hosts = append(hosts, strings.TrimSuffix(mx.Host, "."))
			}
		}
		for _, h := range hosts {
			addrs, err := c.dns.LookupNetIP(ctx, "ip", h)
			if err != nil && !notFound(err) {
				return false, TempError
			}
			for _, a := range addrs {
				if inCIDR(a.Unmap(), ip, cidr) {
					return true, ""
				}
			}
		}
		return false, ""
	case "exists":
		if !lookup() {
			return false, PermError
		}
		addrs, err := c.dns.LookupNetIP(ctx, "ip4", target)
		if err != nil && !notFound(err) {
			return false, TempError
		}
		return len(addrs) > 0, ""
	case "include":
		if !lookup() {
			return false, PermError
		}
		switch r := c.spf(ctx, ip, target, budget, depth+1); r {
		case Pass:
			return true, ""
		case Fail, SoftFail, Neutral:
			return false, ""
		case TempError:
			return false, TempError
		default:
			return false, PermError
		}
	case "ptr":
		// Deprecated (RFC 7208 §5.5) and slow: treated as no match.
		if !lookup() {
			return false, PermError
		}
		return false, ""
	}
	return false, PermError
}

// inCIDR: host a and ip are within the record's prefix ("/24", "//64" or
// "/24//64"; none: equal).
func inCIDR(a, ip netip.Addr, cidr string) bool {
	if a.Is4() != ip.Is4() {
		return false
	}
	bits := a.BitLen()
	if cidr != "" {
		v4, v6, _ := strings.Cut(strings.TrimPrefix(cidr, "/"), "//")
		if strings.HasPrefix(cidr, "//") {
			v4, v6 = "", strings.TrimPrefix(cidr, "//")
		}
		pick := v4
		if !a.Is4() {
			pick = v6
		}
		if pick != "" {
			var n int
			if _, err := fmt.Sscanf(pick, "%d", &n); err != nil || n < 0 || n > bits {
				return false
			}
			bits = n
		}
	}
	p, err := a.Prefix(bits)
	return err == nil && p.Contains(ip)
}
