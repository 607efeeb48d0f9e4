package compose

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/pavilion"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/tell"
)

// zones are the readers' zones of the language tests: each mail names
// its deadline in the reader's zone.
var zones = map[string]string{"en": "Europe/London", "nl": "Europe/Amsterdam", "de": "Europe/Berlin", "it": "Europe/Rome", i18n.Pseudo: "UTC"}

// kindsIn renders every kind of mail for a reader of lang: an Azul Mini
// game with news (a move, a round's scoring), a Summer Pavilion game in
// its placing phase, the result, the answers to replies and the link
// mails.
func kindsIn(t testing.TB, lang string) map[string]Mail {
	t.Helper()
	zone, err := i18n.LoadZone(zones[lang])
	if err != nil {
		t.Fatal(err)
	}
	l := testCat.Localizer(lang, zone)
	r := Recipient{Name: "Ann", Address: "ann@example.net", Confirmed: true, Seat: 0, SeatToken: token, Thread: firstMail, Lang: lang, Zone: zone}
	s := table(t, "azul-mini", 2)
	g := info(s, "Ann", "Bob")
	g.Players[0].Score, g.Players[1].Score = 7, 0
	tbl := tell.Table{Names: []string{"Ann", "Bob"}}
	line := func(ev engine.Event) string { return tell.Line(l, tbl, ev) }
	item := func(ev engine.Event) string { return tell.Item(l, tbl, ev) }
	g.News = []NewsItem{
		{Text: line(azul.Event{Kind: azul.EvTilesTaken, Seat: 1, Source: 1, Colour: azul.Red, Count: 3, Line: 2, ToLine: 2, ToFloor: 1})},
		{Scoring: &RoundScoring{Round: 1, Seats: []SeatScoring{
			{Seat: 0, Items: []string{
				item(azul.Event{Kind: azul.EvWallTiled, Seat: 0, Line: 1, Colour: azul.Blue, Points: 1}),
				item(azul.Event{Kind: azul.EvWallTiled, Seat: 0, Line: 3, Colour: azul.Yellow, Points: 2}),
				item(azul.Event{Kind: azul.EvFloorScored, Seat: 0, FloorLen: 1, Points: 1, Penalty: 1}),
			}, Gained: 2, Score: 7},
			{Seat: 1, Items: []string{
				item(azul.Event{Kind: azul.EvWallTiled, Seat: 1, Line: 2, Colour: azul.Red, Points: 1}),
				item(azul.Event{Kind: azul.EvFloorScored, Seat: 1, FloorLen: 3, Points: 2, Penalty: 4}),
			}, Gained: -1, Score: 0},
		}}},
		{Text: line(azul.Event{Kind: azul.EvFactoriesFilled, Seat: 1, Round: 2})},
		{Text: line(azul.Event{Kind: azul.EvTilesTaken, Seat: 1, Source: azul.Center, Colour: azul.Black, Count: 1, Line: 4, ToLine: 1, Marker: true})},
		{Text: line(azul.Event{Kind: azul.EvTilesTaken, Seat: 1, Source: 4, Colour: azul.White, Count: 2, Line: 5, ToLine: 2})},
		{Text: tell.TakenBack(l, 12)},
	}
	moves := s.LegalMoves(0)

	pav := play(t.(*testing.T), "summer-pavilion", func(s engine.State) bool { v := s.View(); return v.Phase == "play" && v.Round >= 2 })
	pg := info(pav, "Ann", "Bob")
	ptbl := tell.Table{Names: []string{"Ann", "Bob"}}
	pg.News = []NewsItem{
		{Text: tell.Line(l, ptbl, &pavilion.Event{Kind: pavilion.EvTilesTaken, Seat: 1, Source: pavilion.Center, Colour: pavilion.Orange, Count: 2, WildTaken: 1, Token: true, Lost: 2})},
		{Text: tell.Line(l, ptbl, &pavilion.Event{Kind: pavilion.EvAcquisitionEnded, Seat: 1})},
		{Text: tell.Line(l, ptbl, &pavilion.Event{Kind: pavilion.EvTilePlaced, Seat: 1, Star: 3, Space: 4, Colour: pavilion.Red, Points: 5, Features: 1})},
		{Text: tell.Line(l, ptbl, &pavilion.Event{Kind: pavilion.EvPassed, Seat: 1, Tiles: pavilion.Tiles{pavilion.Blue: 2}, Discarded: pavilion.Tiles{pavilion.Red: 1}, Lost: 1})},
	}
	pseat := pav.ToAct()[0]
	pr := r
	pr.Seat = pseat

	final := &engine.Final{Reason: "row_completed", Winners: []int{1}, Players: []engine.FinalPlayer{
		{Seat: 0, Score: 41, Rank: 2, Breakdown: []engine.ScoreItem{{Item: "play", Count: 17, Points: 25}, {Item: "rows", Count: 2, Points: 4}, {Item: "columns", Count: 1, Points: 7}, {Item: "colours", Count: 0, Points: 0}}},
		{Seat: 1, Score: 57, Rank: 1, Breakdown: []engine.ScoreItem{{Item: "play", Count: 20, Points: 37}, {Item: "colours", Count: 2, Points: 20}}},
	}}
	pfinal := &engine.Final{Reason: "rounds_played", Winners: []int{0, 1}, Players: []engine.FinalPlayer{
		{Seat: 0, Score: 88, Rank: 1, Breakdown: []engine.ScoreItem{{Item: "star_0_multicoloured", Count: 1, Points: 12}, {Item: "star_3_red", Count: 1, Points: 14}, {Item: "all_1s", Count: 1, Points: 4}, {Item: "kept_tiles", Count: 3, Points: -3}}},
		{Seat: 1, Score: 88, Rank: 1, Resigned: false, Breakdown: []engine.ScoreItem{{Item: "star_5_yellow", Count: 1, Points: 16}}},
	}}
	g2 := g
	g2.Started = true
	stopped := r
	stopped.Stopped = true
	notYours := r
	notYours.Seat = 1
	// Table talk: Bob's messages, one of two lines, and one of a player
	// whose account is gone.
	tg := g
	tg.Version = 23
	tg.Talk = []TalkItem{
		{Author: "Bob", At: now.Add(-50 * time.Minute), Text: "Good luck!"},
		{Author: "Bob", At: now.Add(-3 * time.Minute), Text: "That red line was mine.\nWell played."},
	}
	tgMany := tg
	tgMany.Talk = append(append([]TalkItem(nil), tg.Talk...), TalkItem{Author: "", At: now.Add(-time.Minute), Text: "Hello"})
	tgMany.TalkEarlier = 4
	return map[string]Mail{
		"talk":             Talk(sender, r, tg, now),
		"talk-many":        Talk(sender, notYours, tgMany, now),
		"turn-talk":        Turn(sender, r, tg, moves, nil, now),
		"talk-posted":      TalkPosted(sender, r, g, moves, now),
		"refused-talked":   RefusedTalked(sender, r, g, l.T("mail.refusal.no_such_number", "Number", "120", "Max", "97"), moves, true, now),
		"refused-limited":  RefusedTalked(sender, r, g, l.T("mail.refusal.no_such_number", "Number", "120", "Max", "97"), moves, false, now),
		"refused-talk":     Refused(sender, r, g, l.T("talkmail.refusal.limited"), moves, now),
		"turn":             Turn(sender, r, g, moves, &deadline, now),
		"turn-new":         Turn(sender, Recipient{Name: "Ann", Address: "ann@example.net", SeatToken: token, Inviter: "Bob", Lang: lang, Zone: zone}, g2, moves, nil, now),
		"turn-pavilion":    Turn(sender, pr, pg, pav.LegalMoves(pseat), &deadline, now),
		"reminder":         Reminder(sender, r, g, moves, deadline, now),
		"invitation":       Invitation(sender, r, g, "Bob", now),
		"started":          Started(sender, notYours, g, now),
		"over":             GameOver(sender, r, g, final, now),
		"over-pavilion":    GameOver(sender, r, pg, pfinal, now),
		"accepted":         Accepted(sender, notYours, g, "F2 red floor", now),
		"timedout":         TimedOut(sender, r, g, "F1 black 3", now),
		"timedout-resign":  TimedOut(sender, stopped, g, "resign", now),
		"refused":          Refused(sender, r, g, l.T("mail.refusal.no_such_number", "Number", "120", "Max", "97"), moves, now),
		"refused-rule":     Refused(sender, r, g, l.T("mail.refusal.rule", "Rule", l.T("rule.azul.line-holds-other-colour")), moves, now),
		"refused-waiting":  Refused(sender, notYours, g, l.T("mail.refusal.not_your_turn"), nil, now),
		"takeback":         TakebackRequested(sender, r, g, "Bob", 2, 15, now),
		"unreachable":      Unreachable(sender, r, g, 1, now),
		"rematch":          RematchInvitation(sender, r, g2, "Bob", now),
		"rematch-declined": RematchDeclined(sender, r, g2, "Bob", now),
		"rematch-created":  RematchCreated(sender, r, g2, []string{"Bob"}, now),
		"signin":           Signin(sender, r, "https://azul.example.org/signin/link/abcdefghijklmnopqrstuvwxyz234567", 15*time.Minute, now),
		"verify":           Verification(sender, r, "https://azul.example.org/signin/link/abcdefghijklmnopqrstuvwxyz234567", 48*time.Hour, now),
	}
}

// TestGoldenLanguages keeps the text part of every kind of mail in every
// language on file (testdata/golden/<kind>.<lang>.txt, with the subject
// on top), and the HTML part of one mail per language, for a person to
// read: run with -update and review the diff.
func TestGoldenLanguages(t *testing.T) {
	dir := filepath.Join("testdata", "golden")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	check := func(name, got string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update once)", err)
		}
		if got != string(want) {
			t.Errorf("%s differs (run go test -update and review the diff)", path)
		}
	}
	for _, lang := range i18n.Languages {
		mails := kindsIn(t, lang)
		for kind, m := range mails {
			check(kind+"."+lang+".txt", "Subject: "+m.Subject+"\n\n"+m.Text)
		}
		check("turn."+lang+".html", mails["turn"].HTML)
		check("talk-many."+lang+".html", mails["talk-many"].HTML)
	}
}

// The same mail differs from language to language, and a Dutch reader
// meets the rulebook's words and a time in their zone.
func TestLanguagesDiffer(t *testing.T) {
	byLang := map[string]map[string]Mail{}
	for _, lang := range i18n.Languages {
		byLang[lang] = kindsIn(t, lang)
	}
	for kind := range byLang["en"] {
		for _, lang := range i18n.Languages[1:] {
			if byLang[lang][kind].Text == byLang["en"][kind].Text || byLang[lang][kind].Subject == byLang["en"][kind].Subject {
				t.Errorf("%s in %s reads as in English", kind, lang)
			}
		}
	}
	nl := byLang["nl"]
	for _, want := range []string{
		"Bob nam 3 rode tegels van F2: 2 naar patroonlijn 2, 1 naar de vloerlijn.",
		"Je bent aan de beurt in Azul Mini (spel 01935f3c-7b2a).",
		"vr 27 nov 2026 00:00 CET", // the deadline, 23:00 UTC
		"vloerlijn",
		"K zwart",
		"F1 blauw 1",
	} {
		if !strings.Contains(flat(nl["turn"].Text), want) {
			t.Errorf("the Dutch turn mail lacks %q:\n%s", want, nl["turn"].Text)
		}
	}
	if !strings.Contains(nl["turn"].HTML, `<html lang="nl">`) {
		t.Error("the Dutch HTML part does not say its language")
	}
}

// htmlTags are the markup of the HTML part, which is no reader's text.
var htmlTags = regexp.MustCompile(`<[^>]*>|&[a-z#0-9]+;`)

// TestPseudoLocaleEveryMail renders every kind of mail in the
// pseudo-locale: every word a reader reads must come from the catalogue
// (names, links, ids, tile letters and notation tokens aside), and no
// message id may be missing.
func TestPseudoLocaleEveryMail(t *testing.T) {
	allowed := []string{"Ann", "Bob", "ann@example.net", gameID, token, "https://azul.example.org/games/", "https://azul.example.org/v1/mail/stop?token=",
		"https://azul.example.org/signin/link/abcdefghijklmnopqrstuvwxyz234567", "01935f3c",
		// The players' own words at the table.
		"Good luck!", "That red line was mine.", "Well played.", "Hello"}
	for kind, m := range kindsIn(t, i18n.Pseudo) {
		for part, text := range map[string]string{"subject": m.Subject, "text": m.Text, "html": htmlTags.ReplaceAllString(m.HTML, " ")} {
			if found := i18n.Bypassed(text, allowed...); len(found) > 0 {
				t.Errorf("%s %s: words outside the catalogue: %q\n%s", kind, part, found, text)
			}
		}
	}
	// The check finds English where there is some: the same mails in
	// English are full of it.
	if found := i18n.Bypassed(kindsIn(t, "en")["turn"].Text, allowed...); len(found) < 20 {
		t.Errorf("the check finds only %q in an English mail", found)
	}
	if missing := testCat.Missing(); len(missing) > 0 {
		sort.Strings(missing)
		t.Errorf("messages asked for and missing: %q", missing)
	}
}

// BenchmarkTurnMailLanguages composes the same turn mail (news, table,
// legal moves in the reader's words) in English and in Dutch, side by
// side.
func BenchmarkTurnMailLanguages(b *testing.B) {
	for _, lang := range []string{"en", "nl"} {
		b.Run(lang, func(b *testing.B) {
			s := table(b, "summer-pavilion", 4)
			g := info(s, "Ann", "Bob", "Cy", "Di")
			zone, _ := i18n.LoadZone(zones[lang])
			r := Recipient{Name: "Ann", Address: "ann@example.net", SeatToken: token, Lang: lang, Zone: zone}
			moves := s.LegalMoves(0)
			for b.Loop() {
				m := Turn(sender, r, g, moves, &deadline, now)
				if _, err := m.Bytes(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
