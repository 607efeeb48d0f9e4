package i18n

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// A Term is the one word a language uses for one of the game's things,
// and the words it does not use for it. A newcomer who reads "vak" on
// the board, "veld" in a mail and "hokje" in an error takes them for
// three things; so every catalogue value of a language is checked
// against its glossary (TestGlossary), and a rejected word fails it.
type Term struct {
	// Concept names the thing, the same in every language ("bot.search").
	Concept string
	// Use is the term, as the rulebook of the language writes it where
	// it has one.
	Use string
	// Forms are other forms of Use (plurals, declensions). Use and Forms
	// are masked before Reject is looked for, so that a rejected word
	// inside the term itself is not found ("tessere" in "tessere
	// vassoio").
	Forms []string
	// Reject are words that mean the same thing and are not to be shown.
	// They match whole words, in any letter case.
	Reject []string
	// Keys, when set, limit Reject to the message ids these path.Match
	// patterns match: a word that is right in one game and wrong in the
	// other ("Startspielermarker" is Azul Mini's, not Summer Pavilion's).
	Keys []string
}

// A GlossaryException lets one message keep a rejected word, for a
// reason: "veld" in an API error is a JSON field, not a space on a board.
type GlossaryException struct {
	// Key is a path.Match pattern of message ids.
	Key string
	// Word is the rejected word the message may keep.
	Word   string
	Reason string
}

// Glossary is the terms of a language; nil for a language without one.
func Glossary(lang string) []Term {
	switch lang {
	case "en":
		return glossaryEN()
	case "nl":
		return glossaryNL()
	case "de":
		return glossaryDE()
	case "it":
		return glossaryIT()
	}
	return nil
}

// GlossaryExceptions are the messages of a language that may keep a
// rejected word, each with its reason.
func GlossaryExceptions(lang string) []GlossaryException {
	// The move words a reply may use stay accepted (a parser never stops
	// reading a word it read before); only what azuld prints follows the
	// glossary.
	accepted := func(words ...string) []GlossaryException {
		var out []GlossaryException
		for _, w := range words {
			out = append(out, GlossaryException{Key: "notation.*_also*", Word: w, Reason: "a move word replies keep being accepted in"})
		}
		return out
	}
	switch lang {
	case "nl":
		json := "a field of a JSON request, not a space on a board"
		form := "a field of a web form, not a space on a board"
		return append(accepted("rij", "patroonrij"),
			GlossaryException{"api.detail.invalid", "velden", json},
			GlossaryException{"api.detail.json_field_type", "veld", json},
			GlossaryException{"api.detail.json_unknown_field", "veld", json},
			GlossaryException{"api.detail.move_not_object", "veld", json},
			GlossaryException{"api.detail.notation_fields", "velden", json},
			GlossaryException{"api.detail.notation_not_string", "veld", json},
			GlossaryException{"web.account.error.not_saved", "velden", form},
			GlossaryException{"web.newgame.error.not_created", "velden", form},
			GlossaryException{"web.newgame.error.field.wild_order", "veld", form},
		)
	case "de":
		return nil
	case "it":
		blank := "a blank between characters, not a space on a board"
		return append(accepted(),
			GlossaryException{"api.detail.idempotency_key_chars", "spazi", blank},
			GlossaryException{"api.input.talk_text_empty", "spazi", blank},
			GlossaryException{"cli.cmd.replay.long", "spazio", "the space bar"},
			GlossaryException{"profile.board.intro", "mano", "the idiom man mano (little by little), not the tiles beside a board"},
		)
	}
	return nil
}

// A Checker finds the words a glossary rejects in text.
type Checker struct {
	forms  []string // of every term, quoted
	mask   *regexp.Regexp
	checks []check
	scoped []Term // the terms with Keys
}

type check struct {
	word string
	// folded is word in caseFold's form: a text whose folded form does
	// not contain it cannot match re, which is then not run.
	folded string
	re     *regexp.Regexp
	term   Term
}

// NewChecker compiles a glossary's words once, for many texts.
func NewChecker(terms []Term) *Checker {
	c := &Checker{}
	for _, t := range terms {
		c.forms = append(c.forms, t.Use)
		c.forms = append(c.forms, t.Forms...)
		if len(t.Keys) > 0 {
			c.scoped = append(c.scoped, t)
		}
		for _, w := range t.Reject {
			c.checks = append(c.checks, check{word: w, folded: caseFold(w), re: wordRE(w), term: t})
		}
	}
	c.mask = maskRE(c.forms, nil)
	return c
}

// maskRE matches any of forms as a whole word, except those in unless.
func maskRE(forms, unless []string) *regexp.Regexp {
	var alt []string
	for _, f := range forms {
		if !slices.ContainsFunc(unless, func(u string) bool { return strings.EqualFold(u, f) }) {
			alt = append(alt, regexp.QuoteMeta(f))
		}
	}
	return regexp.MustCompile(`(?i)(^|[^\p{L}\p{N}])(?:` + strings.Join(alt, "|") + `)($|[^\p{L}\p{N}])`)
}

// Rejected reports the rejected words found in the text of message key,
// ignoring placeholders ({{.Seed}} is not the word "seed") and the terms
// themselves.
func (c *Checker) Rejected(key, text string) []Rejection {
	text = placeholderRE.ReplaceAllString(text, " ")
	// A word one game's term and the other's rejected stays unmasked in
	// the other game's messages.
	mask := c.mask
	var unless []string
	for _, t := range c.scoped {
		if keyMatches(t.Keys, key) {
			unless = append(unless, t.Reject...)
		}
	}
	if len(unless) > 0 {
		mask = maskRE(c.forms, unless)
	}
	// Again until nothing changes: a match takes the boundary after it,
	// which the term right after needs.
	for masked := mask.ReplaceAllString(text, "$1 $2"); masked != text; masked = mask.ReplaceAllString(text, "$1 $2") {
		text = masked
	}
	var found []Rejection
	folded := caseFold(text)
	for _, ch := range c.checks {
		if strings.Contains(folded, ch.folded) && keyMatches(ch.term.Keys, key) && ch.re.MatchString(text) {
			found = append(found, Rejection{Word: ch.word, Term: ch.term})
		}
	}
	return found
}

// A Rejection is a rejected word found, and the term it stands for.
type Rejection struct {
	Word string
	Term Term
}

var placeholderRE = regexp.MustCompile(`{{[^}]*}}`)

// caseFold maps every rune of s to the smallest rune that a
// case-insensitive regexp treats as equal to it (its simple case folding
// orbit's least member): a word matches (?i) in a text only if the text's
// caseFold contains the word's. Running a regexp for each rejected word
// over every message costs far more than this one pass and a substring
// search.
func caseFold(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}

// wordRE matches w as a whole word: Go's \b knows only ASCII letters, and
// the words here have ë, ü and à.
func wordRE(w string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[^\p{L}\p{N}])` + regexp.QuoteMeta(w) + `($|[^\p{L}\p{N}])`)
}

// keyMatches: no patterns match every key.
func keyMatches(patterns []string, key string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if ok, _ := path.Match(p, key); ok {
			return true
		}
	}
	return false
}

// Excepted reports whether an exception lets key keep word.
func Excepted(exceptions []GlossaryException, key, word string) bool {
	for _, e := range exceptions {
		if ok, _ := path.Match(e.Key, key); ok && strings.EqualFold(e.Word, word) {
			return true
		}
	}
	return false
}

// pavilionKeys are the messages only Summer Pavilion shows.
var pavilionKeys = []string{"*pavilion*", "rule.pavilion.*", "tell.pavilion.*"}

func glossaryEN() []Term {
	return []Term{
		{Concept: "bot.random", Use: "random bot", Reject: []string{"random-bot", "random player"}},
		{Concept: "bot.greedy", Use: "greedy bot", Reject: []string{"greedy-bot", "greedy player"}},
		{Concept: "bot.search", Use: "search bot", Reject: []string{"search-bot", "searching bot", "searcher"}},
		{Concept: "seed", Use: "seed", Reject: []string{"random seed", "start value", "starting number"}},
		{Concept: "centre_star", Use: "centre star", Reject: []string{"middle star", "central star"}},
	}
}

func glossaryNL() []Term {
	return []Term{
		{Concept: "bot.random", Use: "willekeurige bot", Reject: []string{"random bot", "random-bot", "willekeurig:"}},
		{Concept: "bot.greedy", Use: "gulzige bot", Reject: []string{"greedy bot", "greedy-bot", "gulzig"}},
		{Concept: "bot.search", Use: "zoekbot", Reject: []string{"zoekend", "zoekende", "zoekende bot", "search bot", "search-bot"}},
		{Concept: "seed", Use: "seed", Reject: []string{"startgetal", "startwaarde", "geheime startwaarde", "zaadje"}},
		{Concept: "start_marker", Use: "startspelertegel", Reject: []string{"startspelerfiche", "startfiche", "startmarker", "startspelermarker"}},
		{Concept: "factory", Use: "fabrieksschijf", Reject: []string{"fabriek", "fabrieken", "fabrieksplaat"}},
		{Concept: "centre", Use: "midden van de tafel", Reject: []string{"tafelmidden", "centrum"}},
		{Concept: "pattern_line", Use: "patroonlijn", Reject: []string{"patroonrij", "patroonrijen"}},
		{Concept: "wall", Use: "muur", Reject: []string{"wand"}},
		{Concept: "floor_line", Use: "vloerlijn", Reject: []string{"vloerrij", "strafrij"}},
		{Concept: "space", Use: "vak", Reject: []string{"veld", "velden", "muurveld", "muurvelden", "hokje"}},
		{Concept: "player_board", Use: "spelersbord", Reject: []string{"spelerbord", "speelbord"}},
		{Concept: "hand", Use: "naast het spelersbord", Forms: []string{"naast je spelersbord", "naast jouw spelersbord"}, Reject: []string{"hand", "in je hand", "in de hand"}},
		{Concept: "star", Use: "ster (blauwe ster, rode ster, …)", Reject: []string{"sterfiguur"}},
		{Concept: "centre_star", Use: "ster in het midden", Reject: []string{"middelste ster", "middenster", "centrale ster"}},
		{Concept: "supply", Use: "voorraadbord", Reject: []string{"reservebord"}},
		{Concept: "tower", Use: "opslagruimte", Reject: []string{"toren"}},
		{Concept: "lid", Use: "doos", Reject: []string{"deksel"}},
		{Concept: "kept", Use: "vakken in de hoeken", Reject: []string{"hoekvakken", "hoekvelden", "hoekjes"}},
		{Concept: "complete_row", Use: "complete horizontale lijn", Reject: []string{"rij", "rijen", "horizontale rij", "volle rij", "volledige rij", "volledige rijen"}},
		{Concept: "complete_column", Use: "complete verticale lijn", Reject: []string{"kolom", "kolommen", "verticale rij", "volledige kolom", "volledige kolommen"}},
		{Concept: "wall_side.coloured", Use: "zijde met de gekleurde muur", Reject: []string{"gekleurde kant"}},
		{Concept: "wall_side.grey", Use: "grijze zijde", Reject: []string{"grijze kant"}},
		{Concept: "board_side", Use: "zijde van het spelersbord", Reject: []string{"kant van het spelersbord", "kant van de plank"}},
		{Concept: "board_side.coloured", Use: "zijde met de gekleurde sterren", Reject: []string{"veelkleurige kant", "veelkleurige zijde", "gekleurde kant"}},
		{Concept: "board_side.monochrome", Use: "zijde met de sepiakleurige sterren", Reject: []string{"eenkleurige kant", "eenkleurige zijde", "sepiakleurige kant"}},
		{Concept: "bonus", Use: "bonustegels", Reject: []string{"extra tegels"}},
		{Concept: "wild", Use: "joker (jokertegel, jokerkleur)", Reject: []string{"wildcard", "wild"}},
		{Concept: "pass", Use: "passen", Reject: []string{"overslaan"}},
	}
}

func glossaryDE() []Term {
	return []Term{
		{Concept: "bot.random", Use: "Zufalls-Bot", Reject: []string{"Zufallsbot", "Random-Bot", "Zufall:"}},
		{Concept: "bot.greedy", Use: "gieriger Bot", Reject: []string{"Greedy-Bot", "gierig", "gierig:"}},
		{Concept: "bot.search", Use: "Such-Bot", Reject: []string{"Suchbot", "Search-Bot", "Suche:"}},
		{Concept: "seed", Use: "Seed", Reject: []string{"Startwert", "Startwerts", "Zufallswert", "geheimer Startwert"}},
		{Concept: "start_marker.azul", Use: "Startspielermarker", Reject: []string{"Startspielerstein", "Startmarker", "Startspieler-Marker"}},
		{Concept: "start_marker.pavilion", Use: "Startspieler-Stein", Reject: []string{"Startspielermarker", "Startspielerstein"}, Keys: pavilionKeys},
		{Concept: "factory", Use: "Manufakturplättchen", Reject: []string{"Fabrik", "Fabriken", "Manufaktur"}},
		{Concept: "centre", Use: "Tischmitte", Reject: []string{"Zentrum"}},
		{Concept: "pattern_line", Use: "Musterreihe", Reject: []string{"Musterzeile", "Musterzeilen"}},
		{Concept: "wall", Use: "Wand", Reject: []string{"Mauer"}},
		{Concept: "floor_line", Use: "Bodenreihe", Reject: []string{"Bodenleiste", "Strafreihe"}},
		{Concept: "space", Use: "Feld", Reject: []string{"Kästchen", "Platz an der Wand"}},
		{Concept: "player_board", Use: "Spielerablage", Reject: []string{"Spielertafel", "Spielertableau"}},
		{Concept: "hand", Use: "neben der Spielerablage", Forms: []string{"neben deiner Spielerablage"}, Reject: []string{"Hand", "auf der Hand", "in der Hand"}},
		{Concept: "star", Use: "Stern (blauer Stern, roter Stern, …)", Reject: []string{"Sternfeld"}},
		{Concept: "centre_star", Use: "Stern in der Mitte", Reject: []string{"mittlerer Stern", "mittleren Stern", "mittlere Stern", "Mittelstern"}},
		{Concept: "supply", Use: "Vorrat (die Vorrats-Felder des Spielplans)", Reject: []string{"Auslage"}},
		{Concept: "tower", Use: "Turm", Reject: []string{"Ablagestapel"}},
		{Concept: "lid", Use: "Schachtelboden", Reject: []string{"Schachtel", "Schachteldeckel", "Deckel"}},
		{Concept: "kept", Use: "Felder in den Ecken", Reject: []string{"Eckfelder", "Eckfeld"}},
		{Concept: "complete_row", Use: "vollständige horizontale Reihe", Reject: []string{"waagrechte Reihe", "waagrechte Reihen", "waagerechte Reihe", "volle Reihen", "Zeile der Wand"}},
		{Concept: "complete_column", Use: "vollständige vertikale Reihe", Reject: []string{"Spalte", "Spalten", "senkrechte Reihe", "senkrechte Reihen"}},
		{Concept: "wall_side.coloured", Use: "Seite mit der farbigen Wand", Reject: []string{"bunte Wand"}},
		{Concept: "wall_side.grey", Use: "Seite mit der grauen Wand", Reject: []string{"graue Seite"}},
		{Concept: "board_side.coloured", Use: "Seite mit den farbigen Sternen", Reject: []string{"mehrfarbige Seite", "farbige Seite"}},
		{Concept: "board_side.monochrome", Use: "Seite mit den gleichfarbigen Sternen", Reject: []string{"einfarbige Seite", "gleichfarbige Seite"}},
		{Concept: "bonus", Use: "Bonus (zusätzliche Fliesen)", Reject: []string{"Extrafliesen"}},
		{Concept: "wild", Use: "Joker (Joker-Fliese, Jokerfarbe)", Reject: []string{"Wildcard", "Jokerfliese"}},
		{Concept: "pass", Use: "passen", Reject: []string{"aussetzen"}},
	}
}

func glossaryIT() []Term {
	return []Term{
		{Concept: "bot.random", Use: "bot casuale", Reject: []string{"random bot", "casuale:"}},
		{Concept: "bot.greedy", Use: "bot goloso", Reject: []string{"avido", "bot avido", "greedy bot"}},
		{Concept: "bot.search", Use: "bot di ricerca", Reject: []string{"search bot", "ricerca:"}},
		{Concept: "seed", Use: "seed", Reject: []string{"seme", "semi", "valore iniziale"}},
		{Concept: "start_marker", Use: "segnalino primo giocatore", Reject: []string{"segnalino del primo giocatore", "gettone primo giocatore"}},
		{Concept: "factory", Use: "tessera vassoio", Forms: []string{"tessere vassoio"}, Reject: []string{"espositore", "espositori", "fabbrica", "fabbriche"}},
		{Concept: "centre", Use: "centro del tavolo", Reject: []string{"centro tavola"}},
		{Concept: "pattern_line", Use: "riga modello", Reject: []string{"linea modello", "linee modello"}},
		{Concept: "wall", Use: "muro", Reject: []string{"parete"}},
		{Concept: "floor_line", Use: "riga del pavimento", Reject: []string{"linea del pavimento"}},
		{Concept: "space", Use: "casella", Reject: []string{"spazio", "spazi"}},
		{Concept: "player_board", Use: "plancia del giocatore", Reject: []string{"tabellone del giocatore"}},
		{Concept: "hand", Use: "accanto alla plancia", Forms: []string{"accanto alla tua plancia", "accanto alla plancia del giocatore"}, Reject: []string{"mano", "in mano"}},
		{Concept: "star", Use: "stella (stella blu, stella rossa, …)", Reject: []string{"figura a stella"}},
		{Concept: "centre_star", Use: "stella al centro", Reject: []string{"stella centrale", "stella di mezzo"}},
		{Concept: "supply", Use: "plancia di rifornimento (caselle di rifornimento)", Reject: []string{"plancia della riserva"}},
		{Concept: "tower", Use: "deposito", Reject: []string{"torre"}},
		{Concept: "lid", Use: "scatola", Reject: []string{"coperchio", "coperchio della scatola"}},
		{Concept: "kept", Use: "caselle agli angoli", Reject: []string{"caselle d'angolo", "angoli della plancia"}},
		{Concept: "complete_row", Use: "riga orizzontale completa", Reject: []string{"fila", "file orizzontali"}},
		{Concept: "complete_column", Use: "colonna completa", Reject: []string{"riga verticale", "righe verticali"}},
		{Concept: "wall_side.coloured", Use: "lato con il muro colorato", Reject: []string{"lato multicolore"}},
		{Concept: "wall_side.grey", Use: "lato con il muro grigio", Reject: []string{"muro grigiastro"}},
		{Concept: "board_side.coloured", Use: "lato con le stelle colorate", Reject: []string{"lato colorato"}},
		{Concept: "board_side.monochrome", Use: "lato con le stelle grigie", Reject: []string{"lato monocromatico", "lato monocromo", "lato monocolore"}},
		{Concept: "star_single_coloured", Use: "stella monocolora", Reject: []string{"monocromatica", "monocromatico", "monocromatiche"}},
		{Concept: "bonus", Use: "piastrelle bonus", Reject: []string{"tessere bonus"}},
		{Concept: "wild", Use: "jolly (piastrella jolly, colore jolly)", Reject: []string{"wildcard", "matta"}},
		{Concept: "pass", Use: "passare", Reject: []string{"saltare il turno"}},
		{Concept: "tile", Use: "piastrella", Reject: []string{"tessera", "tessere"}},
	}
}
