package i18n

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
)

var placeholder = regexp.MustCompile(`{{\s*\.(\w+)\s*}}`)

func placeholders(forms map[string]string) []string {
	set := map[string]bool{}
	for _, s := range forms {
		for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
			set[m[1]] = true
		}
	}
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestEveryLanguageHasEveryMessage: the same ids in every language, the
// same placeholders, and the plural forms CLDR asks for (one and other
// in all four languages).
func TestEveryLanguageHasEveryMessage(t *testing.T) {
	en, err := Messages(LocaleFS(), Default)
	if err != nil {
		t.Fatal(err)
	}
	if len(en) < 100 {
		t.Fatalf("only %d English messages: the catalogue did not load", len(en))
	}
	for _, lang := range Languages[1:] {
		msgs, err := Messages(LocaleFS(), lang)
		if err != nil {
			t.Fatal(err)
		}
		for id, f := range en {
			g, ok := msgs[id]
			if !ok {
				t.Errorf("%s: message %q missing", lang, id)
				continue
			}
			if want, got := placeholders(f), placeholders(g); !slices.Equal(want, got) {
				t.Errorf("%s: %q has placeholders %v, English has %v", lang, id, got, want)
			}
			_, enPlural := f["one"]
			_, plural := g["one"]
			if enPlural != plural {
				t.Errorf("%s: %q plural is %v, English %v", lang, id, plural, enPlural)
			}
			if plural && g["other"] == "" {
				t.Errorf("%s: %q has no 'other' form", lang, id)
			}
		}
		for id := range msgs {
			if _, ok := en[id]; !ok {
				t.Errorf("%s: message %q is not in English", lang, id)
			}
		}
	}
}

// TestMessagesRenderInEveryLanguage executes every message of every
// language with its placeholders filled: a template error (a typo in
// {{.Name}}) shows as the bracketed id.
func TestMessagesRenderInEveryLanguage(t *testing.T) {
	c, err := New(Options{Pseudo: true})
	if err != nil {
		t.Fatal(err)
	}
	en, _ := Messages(LocaleFS(), Default)
	for _, lang := range append(slices.Clone(Languages), Pseudo) {
		l := c.Localizer(lang, time.UTC)
		for _, id := range c.IDs() {
			var pairs []any
			for _, p := range placeholders(en[id]) {
				pairs = append(pairs, p, "X")
			}
			var got string
			if _, plural := en[id]["one"]; plural {
				got = l.N(id, 2, pairs...)
			} else {
				got = l.T(id, pairs...)
			}
			if strings.HasPrefix(got, "[") && strings.HasSuffix(got, "]") || strings.Contains(got, "<no value>") {
				t.Errorf("%s: %q renders as %q", lang, id, got)
			}
		}
	}
	if m := c.Missing(); len(m) != 0 {
		t.Errorf("missing: %v", m)
	}
}

func TestPluralsNumbersAndDates(t *testing.T) {
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ams, err := LoadZone("Europe/Amsterdam")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 26, 22, 0, 0, 0, time.UTC)
	cases := []struct {
		lang      string
		tiles1    string
		tiles3    string
		thousands string
		when      string
		in        string
	}{
		{"en", "1 tile", "3 tiles", "12,345", "Thu 26 Nov 2026 23:00 CET", "in 3 days 2 hours"},
		{"nl", "1 tegel", "3 tegels", "12.345", "do 26 nov 2026 23:00 CET", "over 3 dagen 2 uur"},
		{"de", "1 Fliese", "3 Fliesen", "12.345", "Do., 26. Nov. 2026, 23:00 CET", "in 3 Tagen 2 Stunden"},
		{"it", "1 piastrella", "3 piastrelle", "12.345", "gio 26 nov 2026, 23:00 CET", "tra 3 giorni 2 ore"},
	}
	for _, tc := range cases {
		l := c.Localizer(tc.lang, ams)
		check := func(what, got, want string) {
			if got != want {
				t.Errorf("%s %s: %q, want %q", tc.lang, what, got, want)
			}
		}
		check("one", l.N("game.tiles", 1), tc.tiles1)
		check("other", l.N("game.tiles", 3), tc.tiles3)
		check("number", l.Num(12345), tc.thousands)
		check("time", l.Time(at), tc.when)
		check("in", l.In(74*time.Hour+5*time.Minute), tc.in)
	}
	if got := c.Localizer("de", time.UTC).Ago(49 * time.Hour); got != "vor 2 Tagen 1 Stunde" {
		t.Errorf("de ago: %q", got)
	}
	if got := c.Localizer("it", time.UTC).List([]string{"Ann", "Bob", "Cid"}); got != "Ann, Bob e Cid" {
		t.Errorf("it list: %q", got)
	}
	kolkata, _ := LoadZone("Asia/Kolkata")
	if got := c.Localizer("en", kolkata).Time(at); got != "Fri 27 Nov 2026 03:30 IST" {
		t.Errorf("Kolkata: %q", got)
	}
	tehran, _ := LoadZone("America/Sao_Paulo")
	if got := c.Localizer("en", tehran).Time(at); got != "Thu 26 Nov 2026 19:00 UTC−3" {
		t.Errorf("São Paulo: %q", got)
	}
}

func TestMatch(t *testing.T) {
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"":                        "en",
		"nl-BE,nl;q=0.9,en;q=0.8": "nl",
		"de-CH":                   "de",
		"fr-FR,it;q=0.7,de;q=0.5": "it",
		"fr":                      "en",
		"de_DE.UTF-8":             "de",
		"it_IT@euro":              "it",
		"C":                       "en",
		"en-XA":                   "en",
		"*":                       "en",
		"garbage;;;q=x":           "en",
		"pt-BR, nl;q=0.1":         "nl",
		"EN-gb":                   "en",
	} {
		if got := c.Match(in); got != want {
			t.Errorf("Match(%q) = %q, want %q", in, got, want)
		}
	}
	p, _ := New(Options{Pseudo: true})
	if got := p.Match("en-XA"); got != Pseudo {
		t.Errorf("pseudo catalogue: Match(en-XA) = %q", got)
	}
}

func TestMissingMessageIsVisibleNotFatal(t *testing.T) {
	c, _ := New(Options{})
	l := c.Localizer("nl", nil)
	if got := l.T("no.such.message"); got != "[no.such.message]" {
		t.Errorf("got %q", got)
	}
	if m := c.Missing(); !slices.Equal(m, []string{"no.such.message"}) {
		t.Errorf("Missing = %v", m)
	}
}

func TestBypassed(t *testing.T) {
	c, _ := New(Options{Pseudo: true})
	l := c.Localizer(Pseudo, nil)
	out := "Hello " + l.N("game.tiles", 3) + " Ann F2 " + l.T("game.colour.red")
	got := Bypassed(out, "Ann", "F2")
	if !slices.Equal(got, []string{"Hello"}) {
		t.Errorf("Bypassed = %v (out %q)", got, out)
	}
}

func TestLoadZone(t *testing.T) {
	for _, bad := range []string{"", "Local", "Mars/Olympus", "../../etc/passwd"} {
		if _, err := LoadZone(bad); err == nil {
			t.Errorf("LoadZone(%q) accepted", bad)
		}
	}
	if _, err := LoadZone("Europe/Rome"); err != nil {
		t.Error(err)
	}
}

// TestFastPathAgreesWithGoI18n: the compiled messages render exactly as
// go-i18n's templates do, for every message, language and plural count.
func TestFastPathAgreesWithGoI18n(t *testing.T) {
	c, err := New(Options{Pseudo: true})
	if err != nil {
		t.Fatal(err)
	}
	en, _ := Messages(LocaleFS(), Default)
	for _, lang := range append(slices.Clone(Languages), Pseudo) {
		l := c.Localizer(lang, time.UTC)
		for _, id := range c.IDs() {
			data := map[string]any{}
			var pairs []any
			_, plural := en[id]["one"]
			for _, p := range placeholders(en[id]) {
				if p == "Count" && plural {
					continue
				}
				data[p] = "‹" + p + "›"
				pairs = append(pairs, p, "‹"+p+"›")
			}
			counts := []int{-1}
			if plural {
				counts = []int{0, 1, 2, 5, 21, 1000}
			}
			for _, n := range counts {
				cfg := &goi18n.LocalizeConfig{MessageID: id, TemplateData: data}
				var fast string
				if n >= 0 {
					cfg.PluralCount = n
					data["Count"] = l.Num(n)
					fast = l.N(id, n, pairs...)
				} else {
					fast = l.T(id, pairs...)
				}
				slow, err := l.loc.Localize(cfg)
				if err != nil {
					t.Fatalf("%s %s: %v", lang, id, err)
				}
				if fast != slow {
					t.Errorf("%s %s (%d): fast %q, go-i18n %q", lang, id, n, fast, slow)
				}
			}
		}
	}
}
