package play

import (
	"regexp"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// A player's name is shown to the other players and printed in mails,
// also to addresses whose owners never asked for them: a name that is a
// link or an address would make azuld carry a stranger's advert
// ("Hello Claim prize at evil.example/win"). Such names are refused.

// dots are the characters a reader takes for a full stop in a host name.
var dots = strings.NewReplacer("\u3002", ".", "\uFF0E", ".", "\uFF61", ".", "\u2024", ".", "\uFE52", ".")

var (
	// mailLike is local@domain.tld.
	mailLike = regexp.MustCompile(`[^\s@]+@[^\s@]+\.[^\s@]+`)
	// hostLike is a dotted host name, with what follows it.
	hostLike = regexp.MustCompile(`(?i)([\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+)([/:]?)`)
)

// linkInName tells whether a name holds a URL, a host name or an
// address.
func linkInName(name string) bool {
	n := strings.ToLower(dots.Replace(name))
	if strings.Contains(n, "://") || strings.Contains(n, "www.") || mailLike.MatchString(n) {
		return true
	}
	for _, m := range hostLike.FindAllStringSubmatch(n, -1) {
		host, after := m[1], m[2]
		if after != "" {
			// example.org/… and example.org:8080 are links whatever the
			// top-level domain (.example, a new one).
			return true
		}
		labels := strings.Split(host, ".")
		tld := labels[len(labels)-1]
		if len(tld) < 2 || strings.Trim(tld, "0123456789") == "" {
			continue // J.R.R., 3.5
		}
		if _, icann := publicsuffix.PublicSuffix(host); icann {
			return true
		}
	}
	return false
}

// reservedMail is the server's own mail domain and sender address,
// which no player may give as theirs: mail to them comes back to azuld
// (postmaster@, bounce+…@, a seat's play+…@).
type reservedMail struct {
	domain string
	from   string
}

// ReserveMailDomain makes the server's own mail domain (and its
// subdomains) and its sender address unusable as a player's address.
// The notifier calls it when it is attached, before the service serves.
func (s *Service) ReserveMailDomain(domain, from string) {
	s.ownMail.Store(&reservedMail{domain: strings.ToLower(strings.TrimSuffix(domain, ".")), from: strings.ToLower(from)})
}

// CheckAddress refuses an address that is the server's own: the error
// is an *InputError with code email_reserved. "" is no address, allowed.
func (s *Service) CheckAddress(email string) error {
	r := s.ownMail.Load()
	if r == nil || email == "" {
		return nil
	}
	e := strings.ToLower(strings.TrimSpace(email))
	_, domain, _ := strings.Cut(e, "@")
	domain = strings.TrimSuffix(domain, ".")
	if e == r.from || (r.domain != "" && (domain == r.domain || strings.HasSuffix(domain, "."+r.domain))) {
		return Invalid(ErrInvalid, "email_reserved", "email is one of this server's own addresses: give your own")
	}
	return nil
}
