package limits

import (
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/azuld/azuld/i18n"
)

// Names of azuld's limits. Each is configured by AZUL_LIMIT_<NAME> (upper
// case), e.g. AZUL_LIMIT_REGISTRATIONS=5/h.
const (
	Registrations = "registrations"
	SigninLinks   = "signin_links"
	SigninLinksTo = "signin_links_to"
	FailedTokens  = "failed_tokens"
	APICalls      = "api_calls"
	Moves         = "moves"
	Games         = "games"
	Invitations   = "invitations"
	MailFrom      = "mail_from"
	MailTo        = "mail_to"
	// MailClients counts every mail the SMTP listener is offered per
	// sending server's address, whatever its sender and recipients
	// (postmaster and the return paths included).
	MailClients  = "mail_clients"
	ProfileReads = "profile_reads"
	// Table talk: messages written per player in one game (keyed by
	// game and player), and per player in all games.
	MessagesGame = "messages_game"
	Messages     = "messages"
	// Hints: each costs a bounded search (bots.HintPlayouts).
	Hints = "hints"
)

// Spec describes one of azuld's limits: what it counts, per what key, its
// default and whether it is a fast rule.
type Spec struct {
	Name string
	// Default is the value when none is configured ("5/h").
	Default string
	// Fast: decided in memory, synchronised in the background (the
	// frequent, generous limits on the path of play).
	Fast bool
	// Counts says what is counted, per what, for people ("registrations
	// per client address").
	Counts string
	// Refused is what a limited request is told was limited, completing
	// "Too many …".
	Refused string
}

// Specs are azuld's limits, in the order the documentation lists them.
// The defaults are generous for honest play: a bot moving as fast as the
// server answers in several games at once is not slowed; what only a
// stranger would do many times (registering, asking for links, guessing
// tokens) is strict.
var Specs = []Spec{
	{Name: Registrations, Default: "5/h", Counts: "registrations per client address", Refused: "registrations from your address"},
	{Name: SigninLinks, Default: "10/h", Counts: "sign-in links asked for per client address", Refused: "sign-in links asked for from your address"},
	{Name: SigninLinksTo, Default: "3/h", Counts: "sign-in links asked for per mailbox (registered or not; case, +tag and Gmail's dots ignored)", Refused: "sign-in links asked for this address"},
	{Name: FailedTokens, Default: "20/h", Counts: "failed token attempts (API tokens, sign-in links) per client address", Refused: "wrong tokens from your address"},
	{Name: APICalls, Default: "1800/min", Fast: true, Counts: "authenticated API calls per account", Refused: "API calls for this account"},
	{Name: Moves, Default: "300/min", Fast: true, Counts: "moves per account", Refused: "moves for this account"},
	{Name: Games, Default: "60/h", Fast: true, Counts: "games created per account", Refused: "games created by this account"},
	{Name: Invitations, Default: "50/d", Counts: "seats given to other players per account", Refused: "seats given to other players by this account"},
	{Name: MailFrom, Default: "60/h", Counts: "mails received by the SMTP listener per sender address", Refused: "mails from this sender"},
	{Name: MailTo, Default: "60/h", Counts: "mails received by the SMTP listener per seat address", Refused: "mails to this seat address"},
	// A provider's outbound servers carry many players' replies: generous,
	// but 200 mails from 200 made-up senders in a second is no player.
	{Name: MailClients, Default: "300/h", Counts: "mails received by the SMTP listener per sending server's address", Refused: "mails from your server's address"},
	// Anonymous reads that cost a few queries each: a person browsing
	// the leaderboard, profiles and the watch list reads far fewer than
	// one a second.
	{Name: ProfileReads, Default: "120/min", Fast: true, Counts: "leaderboard, profile and watch-list reads (API and pages) per client address", Refused: "leaderboard, profile and watch-list reads from your address"},
	// Table talk is a side of play: a few lines a minute at one table
	// is a lively game; more is flooding the other players' mail.
	{Name: MessagesGame, Default: "10/10m", Counts: "table-talk messages per player per game", Refused: "messages to this table"},
	{Name: Messages, Default: "100/d", Counts: "table-talk messages per account, in all games", Refused: "messages from this account"},
	// A hint is a search of about 100 ms: one a turn in a few unrated
	// games at once is honest; thousands an hour would make the server
	// search for free.
	{Name: Hints, Default: "120/h", Fast: true, Counts: "hints asked for per account", Refused: "hints for this account"},
}

// SpecOf is the spec of a limit name (ok false for an unknown name).
func SpecOf(name string) (Spec, bool) {
	for _, s := range Specs {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// EnvName is the environment variable that configures a limit.
func EnvName(name string) string { return "AZUL_LIMIT_" + strings.ToUpper(name) }

// Policy is the configured rule of each limit; a limit missing from it is
// off.
type Policy map[string]Rule

// Rule returns the rule of a limit, ok false when it is off.
func (p Policy) Rule(name string) (Rule, bool) {
	r, ok := p[name]
	return r, ok
}

// DefaultPolicy is every limit at its default.
func DefaultPolicy() Policy {
	p, err := ParsePolicy(func(string) string { return "" })
	if err != nil {
		panic(err) // the defaults are constants, checked by the tests
	}
	return p
}

// ParsePolicy reads every limit's value through get (by limit name; ""
// is the default).
func ParsePolicy(get func(name string) string) (Policy, error) {
	p := Policy{}
	for _, s := range Specs {
		v := strings.TrimSpace(get(s.Name))
		if v == "" {
			v = s.Default
		}
		r, on, err := ParseRule(s.Name, v)
		if err != nil {
			return nil, err
		}
		if on {
			r.Fast = s.Fast
			p[s.Name] = r
		}
	}
	return p, nil
}

// rateSyntax is "<count>/<period>", the period a unit or a Go duration.
var rateSyntax = regexp.MustCompile(`^([0-9]{1,9})/([0-9a-z.]+)$`)

// ParseRule reads a limit's value: "5/h", "120/min", "50/d", "30/10m"
// (a count per a unit or a Go duration), or "off" (on is then false).
// Anything else is an error saying what is expected.
func ParseRule(name, value string) (r Rule, on bool, err error) {
	v := strings.ToLower(strings.TrimSpace(value))
	if v == "off" {
		return Rule{}, false, nil
	}
	bad := fmt.Errorf("limit %s: %q is not a rate: write a count per period, like 5/h, 120/min, 50/d or 30/10m, or off", name, value)
	m := rateSyntax.FindStringSubmatch(v)
	if m == nil {
		return Rule{}, false, bad
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 {
		return Rule{}, false, fmt.Errorf("limit %s: %q: the count must be at least 1 (or write off)", name, value)
	}
	var period time.Duration
	switch m[2] {
	case "s", "sec", "second":
		period = time.Second
	case "m", "min", "minute":
		period = time.Minute
	case "h", "hour":
		period = time.Hour
	case "d", "day":
		period = 24 * time.Hour
	default:
		if period, err = time.ParseDuration(m[2]); err != nil {
			return Rule{}, false, bad
		}
	}
	if period < time.Second || period > 31*24*time.Hour {
		return Rule{}, false, fmt.Errorf("limit %s: %q: the period must be from 1s to 31d", name, value)
	}
	r = Rule{Name: name, Limit: n, Period: period}
	// The database keeps times in microseconds: one event must use at
	// least one.
	if err := r.valid(); err != nil || r.interval() < time.Microsecond {
		return Rule{}, false, fmt.Errorf("limit %s: %q: too many events for the period", name, value)
	}
	return r, true, nil
}

// AddressKey is the key of a client address: the address itself for IPv4,
// its /64 for IPv6 (one subscriber usually holds a whole /64, so single
// addresses would be a limit per request). An unparsable address is used
// as given.
func AddressKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}

// Refusal is the error of a request a limit refused. Its message says
// what was limited, the limit and when to try again, for people; the
// HTTP layer answers 429 with Retry-After, the SMTP listener 450.
type Refusal struct {
	// Limit is the limit's name.
	Limit string
	// RetryAfter is in whole seconds, at least 1.
	RetryAfter int
	// Count and Period are the limit's rule: Count events per Period.
	Count  int
	Period time.Duration
	// Message is the refusal in English, for logs; people read Text.
	Message string
}

func (r *Refusal) Error() string { return r.Message }

// Text says the refusal in a reader's language: what was limited, the
// limit (its number and period, with the language's plural forms) and
// when to try again. The messages are api.limit.* in the catalogue.
func (r *Refusal) Text(l *i18n.Localizer) string {
	what := l.T("api.limit.what.unknown")
	if _, ok := SpecOf(r.Limit); ok {
		what = l.T("api.limit.what." + r.Limit)
	}
	return l.T("api.limit.refused", "What", what, "Rate", rateText(l, r.Count, r.Period), "Wait", waitText(l, r.RetryAfter))
}

// rateText is "5 per hour" in the reader's words.
func rateText(l *i18n.Localizer, n int, period time.Duration) string {
	switch period {
	case time.Second:
		return l.N("api.limit.per_second", n)
	case time.Minute:
		return l.N("api.limit.per_minute", n)
	case time.Hour:
		return l.N("api.limit.per_hour", n)
	case 24 * time.Hour:
		return l.N("api.limit.per_day", n)
	}
	if period < time.Minute {
		return l.N("api.limit.per_seconds", n, "Seconds", l.Num(int(period/time.Second)))
	}
	return l.N("api.limit.per_span", n, "Span", l.Span(period))
}

// waitText is "in 45 seconds", "in 3 hours 5 minutes" in the reader's
// words.
func waitText(l *i18n.Localizer, secs int) string {
	if secs < 60 {
		return l.N("api.limit.in_seconds", secs)
	}
	// Rounded up to the minute: trying a little late is harmless, a
	// little early is refused again.
	return l.In(time.Duration((secs+59)/60) * time.Minute)
}

// Refuse builds the refusal of a decision that did not allow.
func Refuse(rule Rule, d Decision) *Refusal {
	what := rule.Name
	if s, ok := SpecOf(rule.Name); ok {
		what = s.Refused
	}
	secs := d.RetryAfterSeconds()
	return &Refusal{
		Limit:      rule.Name,
		RetryAfter: secs,
		Count:      rule.Limit,
		Period:     rule.Period,
		Message: fmt.Sprintf("Too many %s: the limit is %s. Nothing was done; try again in %s.",
			what, RatePhrase(rule), waitPhrase(secs)),
	}
}

// RatePhrase says a rule's rate for people ("5 per hour", "30 per 10m0s").
func RatePhrase(r Rule) string {
	switch r.Period {
	case time.Second:
		return fmt.Sprintf("%d per second", r.Limit)
	case time.Minute:
		return fmt.Sprintf("%d per minute", r.Limit)
	case time.Hour:
		return fmt.Sprintf("%d per hour", r.Limit)
	case 24 * time.Hour:
		return fmt.Sprintf("%d per day", r.Limit)
	}
	return fmt.Sprintf("%d per %s", r.Limit, r.Period)
}

// waitPhrase says a wait in seconds roughly ("45 seconds", "12 minutes",
// "3 hours 5 minutes").
func waitPhrase(secs int) string {
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return strconv.Itoa(n) + " " + unit + "s"
	}
	switch {
	case secs < 90:
		return plural(secs, "second")
	case secs < 90*60:
		return plural((secs+59)/60, "minute")
	}
	h, m := secs/3600, (secs%3600+59)/60
	if m == 60 {
		h, m = h+1, 0
	}
	if m == 0 {
		return plural(h, "hour")
	}
	return plural(h, "hour") + " " + plural(m, "minute")
}
