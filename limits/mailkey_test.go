package limits_test

import (
	"context"
	"testing"
	"time"

	"github.com/azuld/azuld/limits"
)

func TestMailboxKey(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"victim@example.org", "victim@example.org"},
		{"Victim+1@Example.org", "victim@example.org"},
		{"victim+10@example.org", "victim@example.org"},
		{"vic.tim@example.org", "vic.tim@example.org"}, // dots count elsewhere
		{"Vic.Tim+x@gmail.com", "victim@gmail.com"},
		{"v.i.c.t.i.m@googlemail.com", "victim@gmail.com"},
		{"+tag@example.org", "+tag@example.org"}, // no mailbox before the tag
		{"not an address", "not an address"},
	} {
		if got := limits.MailboxKey(c.in); got != c.want {
			t.Errorf("MailboxKey(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// victim+1…10@ is one mailbox: a limit of three per address stops the
// fourth variant, and Gmail's dotted forms with it.
func TestMailboxVariantsShareALimit(t *testing.T) {
	t.Parallel()
	l := limits.New(newPool(t), limits.Options{})
	rule := limits.Rule{Name: limits.SigninLinksTo, Limit: 3, Period: time.Hour}
	allowed := 0
	for _, addr := range []string{"victim+1@example.org", "VICTIM+2@example.org", "victim@example.org", "victim+4@example.org", "victim+5@example.org"} {
		d, err := l.Allow(context.Background(), rule, limits.MailboxKey(addr))
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			allowed++
		}
	}
	if allowed != 3 {
		t.Fatalf("%d of five variants of one address allowed, want 3", allowed)
	}
	for i, addr := range []string{"v.ictim@gmail.com", "victim+a@googlemail.com", "Vic.Tim@gmail.com", "victim@gmail.com"} {
		d, err := l.Allow(context.Background(), rule, limits.MailboxKey(addr))
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed != (i < 3) {
			t.Fatalf("%s: allowed %v", addr, d.Allowed)
		}
	}
}
