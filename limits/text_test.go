package limits

import (
	"testing"
	"time"

	"github.com/azuld/azuld/i18n"
)

// TestRefusalText: the refusal says what was limited, the limit and the
// wait in the reader's language, with the language's plural forms, and
// nothing outside the catalogue.
func TestRefusalText(t *testing.T) {
	t.Parallel()
	cat, err := i18n.New(i18n.Options{Pseudo: true})
	if err != nil {
		t.Fatal(err)
	}
	refuse := func(name string, n int, period, wait time.Duration) *Refusal {
		return Refuse(Rule{Name: name, Limit: n, Period: period}, Decision{RetryAfter: wait})
	}
	cases := []struct {
		r          *Refusal
		lang, want string
	}{
		{refuse(Moves, 300, time.Minute, time.Second), "en",
			"Too many moves for this account: the limit is 300 per minute. Nothing was done; try again in 1 second."},
		{refuse(Registrations, 5, time.Hour, 754*time.Second), "de",
			"Zu viele Registrierungen von deiner Adresse: Das Limit ist 5 pro Stunde. Es wurde nichts getan; versuche es in 13 Minuten noch einmal."},
		{refuse(Invitations, 50, 24*time.Hour, 45*time.Second), "nl",
			"Te veel plaatsen die dit account aan andere spelers gaf: de limiet is 50 per dag. Er is niets gedaan; probeer het over 45 seconden opnieuw."},
		{refuse(MailFrom, 1, time.Hour, 90*time.Minute), "it",
			"Troppe richieste (mail da questo mittente): il limite è 1 all'ora. Non è stato fatto nulla; riprova tra 1 ora 30 minuti."},
		{refuse(APICalls, 1800, 10*time.Minute, 2*time.Second), "en",
			"Too many API calls for this account: the limit is 1,800 per 10 minutes. Nothing was done; try again in 2 seconds."},
		{refuse("unknown", 2, 30*time.Second, time.Second), "en",
			"Too many requests: the limit is 2 per 30 seconds. Nothing was done; try again in 1 second."},
	}
	for _, c := range cases {
		if got := c.r.Text(cat.Localizer(c.lang, nil)); got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.r.Limit, c.lang, got, c.want)
		}
		if words := i18n.Bypassed(c.r.Text(cat.Localizer(i18n.Pseudo, nil)), c.r.Limit); len(words) > 0 {
			t.Errorf("%s: outside the catalogue: %v", c.r.Limit, words)
		}
	}
	for _, s := range Specs {
		if !cat.Has("api.limit.what." + s.Name) {
			t.Errorf("limit %s has no words in the catalogue", s.Name)
		}
	}
	if m := cat.Missing(); len(m) > 0 {
		t.Errorf("missing messages: %v", m)
	}
}
