package limits_test

import (
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/limits"
)

func TestParseRule(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in     string
		limit  int
		period time.Duration
	}{
		{"5/h", 5, time.Hour}, {"120/min", 120, time.Minute}, {" 50/D ", 50, 24 * time.Hour},
		{"30/10m", 30, 10 * time.Minute}, {"2/s", 2, time.Second}, {"1/day", 1, 24 * time.Hour},
	} {
		r, on, err := limits.ParseRule("moves", c.in)
		if err != nil || !on || r.Limit != c.limit || r.Period != c.period || r.Name != "moves" {
			t.Errorf("%q: %+v on=%v err=%v, want %d per %s", c.in, r, on, err, c.limit, c.period)
		}
	}
	if _, on, err := limits.ParseRule("moves", "OFF"); err != nil || on {
		t.Errorf("off: on=%v err=%v", on, err)
	}
	for _, in := range []string{"", "5", "5/", "/h", "0/h", "-1/h", "5/week", "5/h/2", "five/h", "5/0s", "5/100d", "999999999/1s", "5 /h", "1e3/h"} {
		if _, _, err := limits.ParseRule("moves", in); err == nil || !strings.Contains(err.Error(), "moves") {
			t.Errorf("%q accepted (or the error does not name the limit): %v", in, err)
		}
	}
}

func TestPolicy(t *testing.T) {
	t.Parallel()
	p := limits.DefaultPolicy()
	if len(p) != len(limits.Specs) {
		t.Fatalf("%d rules by default, want every one of %d", len(p), len(limits.Specs))
	}
	if r, _ := p.Rule(limits.Moves); !r.Fast || r.Limit != 300 || r.Period != time.Minute {
		t.Errorf("moves by default: %+v", r)
	}
	if r, _ := p.Rule(limits.Registrations); r.Fast {
		t.Errorf("registrations are an exact rule: %+v", r)
	}
	p, err := limits.ParsePolicy(func(name string) string {
		return map[string]string{limits.Moves: "off", limits.Registrations: "2/h"}[name]
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, on := p.Rule(limits.Moves); on {
		t.Error("moves=off is still limited")
	}
	if r, _ := p.Rule(limits.Registrations); r.Limit != 2 {
		t.Errorf("registrations=2/h read as %+v", r)
	}
	if _, err := limits.ParsePolicy(func(name string) string { return "lots" }); err == nil {
		t.Error("a bad value was accepted")
	}
	if got := limits.EnvName(limits.SigninLinksTo); got != "AZUL_LIMIT_SIGNIN_LINKS_TO" {
		t.Errorf("EnvName = %s", got)
	}
}

func TestAddressKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"198.51.100.7":         "198.51.100.7",
		"::ffff:198.51.100.7":  "198.51.100.7",
		"2001:db8:1:2:3:4:5:6": "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1": "2001:db8:1:2::/64",
		"2001:db8:1:3::1":      "2001:db8:1:3::/64",
		"fe80::1%eth0":         "fe80::/64",
		"not an address":       "not an address",
	} {
		if got := limits.AddressKey(in); got != want {
			t.Errorf("AddressKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRefusalSaysWhatAndWhen(t *testing.T) {
	t.Parallel()
	r := limits.Refuse(limits.Rule{Name: limits.Registrations, Limit: 5, Period: time.Hour}, limits.Decision{RetryAfter: 11*time.Minute + 30*time.Second})
	want := "Too many registrations from your address: the limit is 5 per hour. Nothing was done; try again in 12 minutes."
	if r.Error() != want || r.RetryAfter != 690 || r.Limit != limits.Registrations {
		t.Errorf("refusal %+v, want %q after 690 s", r, want)
	}
	for secs, want := range map[int]string{1: "1 second", 89: "89 seconds", 90: "2 minutes", 3600: "60 minutes", 5400: "1 hour 30 minutes", 5401: "1 hour 31 minutes", 7199: "2 hours", 86400: "24 hours"} {
		r := limits.Refuse(limits.Rule{Name: "x", Limit: 1, Period: time.Second}, limits.Decision{RetryAfter: time.Duration(secs) * time.Second})
		if !strings.HasSuffix(r.Message, "try again in "+want+".") {
			t.Errorf("%d s: %q, want it to end in %q", secs, r.Message, want)
		}
	}
}

// FuzzParseRule: any value is either refused with an error, or off, or a
// rule that allows at least one event per a positive period.
func FuzzParseRule(f *testing.F) {
	for _, v := range []string{"5/h", "120/min", "50/d", "30/10m", "off", "0/h", "-1/h", "1/0s", "9999999999999/ns", "5/", "/h", " 5 / h ", "5/1.5h"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, value string) {
		r, on, err := limits.ParseRule("registrations", value)
		if err != nil || !on {
			return
		}
		if r.Limit < 1 || r.Period <= 0 {
			t.Fatalf("ParseRule(%q) = %+v: a limit must allow an event per a positive period", value, r)
		}
	})
}
