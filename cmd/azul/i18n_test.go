package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// fixedSeed makes a game's deal the same in every run, for golden files.
const fixedSeed = "00000000000000000000000000000000000000000000000000000000000000ab"

// TestAccountLanguageWins: the account's language beats LANG; LANG is
// used while azul does not know the account's; --lang beats both; an
// unknown --lang is refused with the list.
func TestAccountLanguageWins(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana := newUser(t, srv.URL)
	ana.env["LANG"] = "de_DE.UTF-8"
	ana.env["TZ"] = "Europe/Berlin"
	ana.register("Ana")
	// A new account takes the terminal's language and zone.
	var prof struct {
		Language string `json:"language"`
		TimeZone string `json:"time_zone"`
	}
	ana.mustJSON(&prof, "account", "show")
	if prof.Language != "de" || prof.TimeZone != "Europe/Berlin" {
		t.Errorf("registered with LANG=de_DE.UTF-8 and TZ=Europe/Berlin: %+v", prof)
	}
	if out := ana.must("games"); !strings.Contains(out, "Kein Spiel wartet auf dich.") {
		t.Errorf("a German account: %q", out)
	}
	out := ana.must("account", "language", "nl")
	for _, want := range []string{"Taal", "Nederlands (nl)"} {
		if !strings.Contains(out, want) {
			t.Errorf("account language nl printed no %q:\n%s", want, out)
		}
	}
	cfg, err := loadConfig(ana.configFile())
	if err != nil || cfg.Language != "nl" {
		t.Fatalf("the configuration keeps language %q (%v), want nl", cfg.Language, err)
	}
	if out := ana.must("games"); !strings.Contains(out, "Er wacht geen spel op jou.") {
		t.Errorf("a Dutch account with LANG=de_DE.UTF-8: %q", out)
	}
	if out := ana.must("games", "--lang", "it"); !strings.Contains(out, "Nessuna partita ti aspetta.") {
		t.Errorf("--lang it: %q", out)
	}
	if msg := ana.wantCode(exitUsage, "games", "--lang", "fr"); !strings.Contains(msg, "onbekende taal “fr”: kies uit en, nl, de, it") {
		t.Errorf("--lang fr: %q", msg)
	}

	// A token azul has not seen: it asks the server for its language
	// once, and keeps it.
	other := newUser(t, srv.URL)
	other.env["LANG"] = "de_DE.UTF-8"
	other.env["AZUL_TOKEN"] = tokenOf(t, ana)
	if out := other.must("games"); !strings.Contains(out, "Er wacht geen spel op jou.") {
		t.Errorf("AZUL_TOKEN of a Dutch account: %q", out)
	}
	// Without a token, the environment: LC_ALL before LANG; C is English.
	anon := newUser(t, srv.URL)
	anon.env["LANG"] = "it_IT.UTF-8"
	anon.env["LC_ALL"] = "de_DE.UTF-8"
	if msg := anon.wantCode(exitNotAllow, "games"); !strings.Contains(msg, "nicht angemeldet") {
		t.Errorf("LC_ALL=de_DE.UTF-8: %q", msg)
	}
	anon.env["LC_ALL"] = "C"
	if msg := anon.wantCode(exitNotAllow, "games"); !strings.Contains(msg, "not signed in") {
		t.Errorf("LC_ALL=C: %q", msg)
	}
	// The API is asked in the reader's language.
	if msg := ana.wantCode(exitUsage, "account", "zone", "Mars/Olympus"); !strings.Contains(msg, "onbekende tijdzone") {
		t.Errorf("an unknown zone: %q", msg)
	}
	ana.mustJSON(&prof, "account", "show")
	if prof.Language != "nl" || prof.TimeZone != "Europe/Berlin" {
		t.Errorf("refused changes changed the profile: %+v", prof)
	}
	out = ana.must("account", "zone", "Europe/Amsterdam")
	if !strings.Contains(out, "Europe/Amsterdam (CET)") && !strings.Contains(out, "Europe/Amsterdam (CEST)") {
		t.Errorf("account zone printed:\n%s", out)
	}
	// Times are in the account's zone, the zone named.
	if out := ana.must("account"); !regexp.MustCompile(`Sinds +\S+ \d+ \S+ \d{4} \d\d:\d\d CES?T`).MatchString(out) {
		t.Errorf("the account's date is not in its zone:\n%s", out)
	}
}

// dutchGame is a two-player Azul Mini game of a Dutch and a German
// player, with a fixed deal.
func dutchGame(t *testing.T, server string) (ana, bob *user, id string) {
	t.Helper()
	ana, bob = newUser(t, server), newUser(t, server)
	ana.env["LANG"] = "de_DE.UTF-8"
	ana.register("Ana")
	bob.register("Bob")
	ana.must("account", "language", "nl")
	bob.must("account", "language", "de")
	var g state
	ana.mustJSON(&g, "new", "--seat", "me", "--seat", "open", "--seed", fixedSeed)
	bob.must("join", g.ID)
	return ana, bob, g.ID
}

// TestMovesInDutch: the legal moves are listed in the player's words, a
// move in those words is played, an ambiguous one refused with the
// candidates in the player's language.
func TestMovesInDutch(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, id := dutchGame(t, srv.URL)
	words, err := notation.New(i18n.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var lm legal
	ana.mustJSON(&lm, "moves", id)
	list := ana.must("moves", id)
	first := words.Say("nl", "azul-mini", lm.Moves[0].Notation)
	if first == lm.Moves[0].Notation {
		t.Fatalf("the first move %q has no Dutch words", first)
	}
	if !strings.Contains(list, "   1. "+first) || !strings.Contains(list, "Je zetten bij versie") {
		t.Errorf("the list is not in Dutch words (want %q):\n%s", first, list)
	}
	for _, english := range []string{" red ", " blue ", " yellow ", " black ", " white ", " floor"} {
		if strings.Contains(list+" ", english) {
			t.Errorf("the Dutch list has the English word %q:\n%s", english, list)
		}
	}
	out := ana.must("move", id, first)
	if !strings.Contains(out, "Ana speelde "+first) {
		t.Errorf("a move in Dutch words printed:\n%s", out)
	}
	var g state
	ana.mustJSON(&g, "show", id)
	if g.Version != lm.Version+1 {
		t.Fatalf("version %d after the Dutch move, want %d", g.Version, lm.Version+1)
	}

	// Bob plays in German; a German word is read in a Dutch account too
	// (unambiguous in every language).
	bob.mustJSON(&lm, "moves", id)
	german := words.Say("de", "azul-mini", lm.Moves[len(lm.Moves)-2].Notation) // the last is resign
	if out := bob.must("move", id, german); !strings.Contains(out, "Bob spielte "+german) {
		t.Errorf("a move in German words printed:\n%s", out)
	}
	ana.mustJSON(&lm, "moves", id)
	mixed := words.Say("de", "azul-mini", lm.Moves[0].Notation)
	if out := ana.must("move", id, mixed); !strings.Contains(out, "Ana speelde "+words.Say("nl", "azul-mini", lm.Moves[0].Notation)) {
		t.Errorf("German words from a Dutch account printed:\n%s", out)
	}

	// Until the round ends: what the rules did then is said in each
	// player's language, not in the server's English.
	players := map[int]*user{0: ana, 1: bob}
	ended := ""
	for range 60 {
		ana.mustJSON(&g, "show", id)
		if len(g.ToAct) == 0 {
			break
		}
		if out := players[g.ToAct[0]].play(id, 1); strings.Contains(out, "ronde 2 is begonnen") || strings.Contains(out, "Runde 2 hat begonnen") || strings.Contains(out, "Ronde 2 begon") || strings.Contains(out, "Runde 2 begann") {
			ended = out
			break
		}
	}
	if ended == "" {
		t.Fatal("no move ended round 1 in the player's language")
	}
	for _, english := range []string{"tiled", "lost", "round", "floor", "score"} {
		if strings.Contains(ended, english) {
			t.Errorf("the end of the round has the English %q:\n%s", english, ended)
		}
	}
	if !strings.Contains(ended, "Daarna, vanzelf") && !strings.Contains(ended, "Danach, automatisch") {
		t.Errorf("the end of the round is not listed:\n%s", ended)
	}

	// Summer Pavilion: in Dutch, groen and geel share the g.
	var p state
	ana.mustJSON(&p, "new", "--ruleset", "summer-pavilion", "--seat", "me", "--seat", "bot", "--seed", fixedSeed)
	before := p.Version
	msg := ana.wantCode(exitRefused, "move", p.ID, "F1 g")
	if !strings.Contains(msg, "„g“") && !strings.Contains(msg, "“g”") {
		t.Errorf("the refusal does not name the word: %q", msg)
	}
	for _, want := range []string{"groen", "geel", "betekenen"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal of an ambiguous g lacks %q: %q", want, msg)
		}
	}
	ana.mustJSON(&p, "show", p.ID)
	if p.Version != before {
		t.Errorf("the refused move changed the game: version %d, was %d", p.Version, before)
	}
}

// TestPseudoLocaleBypassesNothing: in the pseudo-locale every word azul
// prints comes through the catalogue (the ⟦ ⟧ marks it), but for names,
// ids and notation.
func TestPseudoLocaleBypassesNothing(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob := newUser(t, srv.URL), newUser(t, srv.URL)
	ana.pseudo = true
	ana.register("Ana")
	bob.register("Bob")
	var g state
	ana.mustJSON(&g, "new", "--seat", "me", "--seat", "open", "--seed", fixedSeed)
	bob.must("join", g.ID)
	var lm legal
	ana.mustJSON(&lm, "moves", g.ID)
	allowed := []string{"Ana", "Bob", srv.URL, "UTC", "azul", "ana@example.org", ana.configFile(), "accept", "decline",
		// Each language by its own name, as a language switcher shows it.
		"en English nl Nederlands de Deutsch it Italiano",
		// The token the server named at registration; the help flag.
		"registration", "help"}
	uuid := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	examples := regexp.MustCompile(`(?m)^  azul .*$`)
	for _, args := range [][]string{
		{"games"},
		{"show", g.ID},
		{"moves", g.ID},
		{"move", g.ID, "1"},
		{"show", g.ID},
		{"log", g.ID},
		{"account"},
		{"account", "language"},
		{"account", "tokens"},
		{"help", "move"},
	} {
		o := ana.run(append(args, "--lang", i18n.Pseudo)...)
		if o.code != exitOK {
			t.Fatalf("azul %s: exit %d\n%s%s", strings.Join(args, " "), o.code, o.out, o.errOut)
		}
		text := uuid.ReplaceAllString(examples.ReplaceAllString(o.out+o.errOut, ""), "")
		// Command and flag names are the command's, in every language.
		text = regexp.MustCompile(`(?m)^\s+--?[a-z-]+( string| int| stringArray)?|azul [a-z]+( [A-Z]+)*`).ReplaceAllString(text, "")
		if by := i18n.Bypassed(text, allowed...); len(by) > 0 {
			t.Errorf("azul %s prints words outside the catalogue: %v\n%s", strings.Join(args, " "), by, o.out)
		}
		if !strings.Contains(o.out, i18n.PseudoOpen) {
			t.Errorf("azul %s printed nothing from the catalogue:\n%s", strings.Join(args, " "), o.out)
		}
	}
	// A wrong argument, in the pseudo-locale too.
	o := ana.run("move", "nope", "1", "--lang", i18n.Pseudo)
	if by := i18n.Bypassed(o.errOut, append(allowed, "nope")...); o.code != exitUsage || len(by) > 0 {
		t.Errorf("a bad game id: exit %d, outside the catalogue %v: %s", o.code, by, o.errOut)
	}
}

// TestGoldenOutputs: a few commands in each language, as a person reads
// them (testdata/golden/<lang>/; go test ./cmd/azul -run
// TestGoldenOutputs -update rewrites them). Each language gets a game of
// its own with the same deal.
func TestGoldenOutputs(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob := newUser(t, srv.URL), newUser(t, srv.URL)
	ana.register("Ana")
	bob.register("Bob")
	idPattern := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	for _, lang := range i18n.Languages {
		t.Run(lang, func(t *testing.T) {
			var g state
			ana.mustJSON(&g, "new", "--seat", "me", "--seat", "open", "--seed", fixedSeed)
			bob.must("join", g.ID)
			files := map[string]string{
				"show.txt":    ana.must("show", g.ID, "--lang", lang),
				"moves.txt":   ana.must("moves", g.ID, "--lang", lang),
				"move.txt":    ana.must("move", g.ID, "7", "--lang", lang),
				"after.txt":   ana.must("show", g.ID, "--lang", lang),
				"help.txt":    ana.must("help", "account", "--lang", lang),
				"refusal.txt": ana.wantCode(exitUsage, "account", "language", "fr", "--lang", lang),
			}
			// Summer Pavilion's table too, with a bot's seat.
			var p state
			ana.mustJSON(&p, "new", "--ruleset", "summer-pavilion", "--seat", "me", "--seat", "bot", "--seed", fixedSeed)
			pavilion := strings.ReplaceAll(ana.must("show", p.ID, "--lang", lang), p.ID, "GAME-ID")
			files["pavilion.txt"] = pavilion
			for name, got := range files {
				got = strings.ReplaceAll(got, g.ID, "GAME-ID")
				got = strings.ReplaceAll(got, srv.URL, "SERVER")
				got = idPattern.ReplaceAllString(got, "PLAYER-ID")
				path := filepath.Join("testdata", "golden", lang, name)
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test ./cmd/azul -run TestGoldenOutputs -update writes it)", err)
				}
				if string(want) != got {
					t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", path, got, want)
				}
			}
		})
	}
}

// TestWatchInGerman: a German player's watch draws the table, the last
// moves and its status line in German, moves in German words.
func TestWatchInGerman(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, id := dutchGame(t, srv.URL) // Ana speaks Dutch, Bob German
	ana.play(id, 1)
	term := newTerminal(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	code := term.run(ctx, bob, "watch", id)
	s := term.waitFor("Warte auf Züge (Strg-C beendet).", "Letzte Züge:", "Ana nahm ", "Bob (du) nimmt Fliesen.", "Musterreihen", "Bodenreihe")
	for _, english := range []string{"Watching", "Last moves", "played", "points", "floor"} {
		if strings.Contains(s, english) {
			t.Errorf("the German watch shows the English %q:\n%s", english, s)
		}
	}
	stop()
	wantExit(t, code, exitOK)
}
