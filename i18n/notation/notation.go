// Package notation translates moves between the engine's canonical
// notation ("F2 red 3", "place blue s0 6 w3") and the words of a player's
// language ("F2 rood 3", "leg blauw ster 0 6 j3"). The engine knows only
// the canonical form; the words come from the catalogue's notation domain
// (i18n/locales/notation.*.toml), so a mail, the CLI and the web all say a
// move the same way, and every parser of moves reads every language.
//
// Reading is token by token: a word of the reader's language is taken
// first; a word that is not one of theirs is taken from another language
// when all languages that know it agree on what it means; single letters
// are initials of the reader's language only (an initial several colours
// share there is refused with the candidates). Anything else is left for
// the engine's parser, which refuses what it cannot read.
package notation

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/azuld/azuld/i18n"
)

// Family is a rule-set family: its colours and move words differ.
type Family string

// The families.
const (
	Azul     Family = "azul"
	Pavilion Family = "pavilion"
)

// FamilyOf is the family of a rule set id.
func FamilyOf(ruleset string) Family {
	if strings.HasPrefix(ruleset, "summer-pavilion") {
		return Pavilion
	}
	return Azul
}

var familyColours = map[Family][]string{
	Azul:     {"blue", "yellow", "red", "black", "white"},
	Pavilion: {"purple", "green", "orange", "yellow", "blue", "red"},
}

// moveWords are the canonical tokens that have words of their own.
var moveWords = []string{"floor", "centre", "take", "place", "keep", "pass", "bonus", "resign", "tile", "line", "to"}

// canonicalToken is what a word means in the canonical notation.
var canonicalToken = map[string]string{"centre": "C"}

// vocab is one language's words for one family.
type vocab struct {
	say      map[string]string   // canonical token → printed word
	read     map[string]string   // lower-case word → canonical token
	initials map[string]string   // letter → colour
	shared   map[string][]string // letter → colours that share it (refused)
	star     string              // printed word or letter before a star number
	wild     string              // printed prefix of a wild count
	starRead map[string]bool
	wildRead map[string]bool
	errAmbig string
	errOr    string
}

// Words holds every language's move words.
type Words struct {
	langs []string
	v     map[string]map[Family]*vocab
}

// New reads the move words of every language from the embedded
// catalogue files.
func New(opts i18n.Options) (*Words, error) {
	all, err := i18n.AllMessages(i18n.LocaleFS())
	if err != nil {
		return nil, err
	}
	return build(all, opts.Pseudo)
}

// FromCatalogue takes the move words from a loaded catalogue, sparing a
// second reading of the files (a process that starts often, such as a
// follower, feels it).
func FromCatalogue(c *i18n.Catalogue) (*Words, error) {
	all := map[string]map[string]map[string]string{}
	for _, lang := range i18n.Languages {
		all[lang] = c.Forms(lang)
	}
	// A catalogue built for tests with the pseudo-locale gets its words.
	return build(all, c.Match(i18n.Pseudo) == i18n.Pseudo)
}

func build(msgsByLang map[string]map[string]map[string]string, pseudo bool) (*Words, error) {
	langs := slices.Clone(i18n.Languages)
	w := &Words{v: map[string]map[Family]*vocab{}}
	if pseudo {
		p := map[string]map[string]string{}
		for id, f := range msgsByLang[i18n.Default] {
			p[id] = map[string]string{"other": pseudoWord(id, f["other"])}
		}
		msgsByLang[i18n.Pseudo] = p
		langs = append(langs, i18n.Pseudo)
	}
	w.langs = langs
	for _, lang := range langs {
		w.v[lang] = map[Family]*vocab{}
		for _, fam := range []Family{Azul, Pavilion} {
			v, err := buildVocab(msgsByLang[lang], fam)
			if err != nil {
				return nil, fmt.Errorf("notation: %s: %w", lang, err)
			}
			w.v[lang][fam] = v
		}
	}
	return w, nil
}

// pseudoWord makes the pseudo-locale's move words: accented, without
// the brackets (a word of a move is one token).
func pseudoWord(id, s string) string {
	if s == "" || s == "-" || strings.HasPrefix(id, "notation.initial_") || id == "notation.centre" || id == "notation.star" && len(s) == 1 || id == "notation.wild" {
		return s
	}
	if strings.HasPrefix(id, "notation.") || strings.HasPrefix(id, "game.colour.") {
		var parts []string
		for _, p := range splitList(s) {
			t := i18n.PseudoText(p)
			parts = append(parts, strings.TrimSuffix(strings.TrimPrefix(t, i18n.PseudoOpen), i18n.PseudoClose))
		}
		return strings.Join(parts, ", ")
	}
	return i18n.PseudoText(s)
}

// msg is a message's text; "-" is the catalogue's way to say none (a
// message may not be empty).
func msg(m map[string]map[string]string, id string) string {
	if s := m[id]["other"]; s != "-" {
		return s
	}
	return ""
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func buildVocab(m map[string]map[string]string, fam Family) (*vocab, error) {
	v := &vocab{
		say: map[string]string{}, read: map[string]string{}, initials: map[string]string{},
		shared: map[string][]string{}, starRead: map[string]bool{}, wildRead: map[string]bool{},
		errAmbig: msg(m, "notation.error.ambiguous"), errOr: msg(m, "notation.error.or"),
	}
	add := func(word, token string) error {
		lw := strings.ToLower(word)
		if prev, ok := v.read[lw]; ok && prev != token {
			return fmt.Errorf("%q means both %s and %s", word, prev, token)
		}
		v.read[lw] = token
		return nil
	}
	for _, c := range familyColours[fam] {
		name := msg(m, "game.colour."+c)
		if name == "" {
			return nil, fmt.Errorf("no word for colour %s", c)
		}
		v.say[c] = strings.ToLower(name)
		for _, word := range append([]string{name}, splitList(msg(m, "notation.colour_also."+c))...) {
			if err := add(word, c); err != nil {
				return nil, err
			}
		}
		if letter := strings.ToLower(msg(m, "notation.initial_"+string(fam)+"."+c)); letter != "" {
			if prev, ok := v.initials[letter]; ok {
				return nil, fmt.Errorf("initial %q is both %s and %s", letter, prev, c)
			}
			v.initials[letter] = c
		}
	}
	// Letters the language's colours share are refused, with the
	// candidates, rather than read as the English initial.
	for _, c := range familyColours[fam] {
		first := string([]rune(strings.ToLower(v.say[c]))[0])
		if _, unique := v.initials[first]; !unique {
			v.shared[first] = append(v.shared[first], c)
		}
	}
	for l, cs := range v.shared {
		if len(cs) < 2 {
			delete(v.shared, l)
		}
	}
	for _, tok := range moveWords {
		canon := tok
		if c, ok := canonicalToken[tok]; ok {
			canon = c
		}
		printed := msg(m, "notation."+tok)
		v.say[canon] = printed
		for _, word := range append([]string{printed}, splitList(msg(m, "notation."+tok+"_also"))...) {
			// A word spelt like its token ("Bonus", "floor") is read too,
			// so that it comes out in the notation's own case.
			if err := add(word, canon); err != nil {
				return nil, err
			}
		}
	}
	v.star = msg(m, "notation.star")
	for _, word := range append([]string{v.star}, splitList(msg(m, "notation.star_also"))...) {
		v.starRead[strings.ToLower(word)] = true
	}
	v.wild = msg(m, "notation.wild")
	for _, word := range append([]string{v.wild}, splitList(msg(m, "notation.wild_also"))...) {
		v.wildRead[strings.ToLower(word)] = true
	}
	return v, nil
}

func (w *Words) vocab(lang string, fam Family) *vocab {
	if l, ok := w.v[lang]; ok {
		return l[fam]
	}
	return w.v[i18n.Default][fam]
}

// Say writes a canonical move in lang's words.
func (w *Words) Say(lang, ruleset, canonical string) string {
	v := w.vocab(lang, FamilyOf(ruleset))
	fields := strings.Fields(canonical)
	out := make([]string, 0, len(fields)+2)
	for _, f := range fields {
		switch {
		case len(f) > 1 && f[0] == 's' && isNumber(f[1:]):
			out = append(out, glue(v.star, f[1:]))
		case len(f) > 1 && f[0] == 'w' && isNumber(f[1:]):
			out = append(out, glue(v.wild, f[1:]))
		default:
			if word, ok := v.say[f]; ok && word != "" {
				out = append(out, word)
			} else {
				out = append(out, f)
			}
		}
	}
	return strings.Join(out, " ")
}

// glue writes a prefix and a number: a one-letter prefix is joined to it
// ("s3", "j3"), a word stands apart ("ster 3").
func glue(prefix, n string) string {
	if len([]rune(prefix)) == 1 {
		return prefix + n
	}
	return prefix + " " + n
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil && s != "" && s[0] != '-' && s[0] != '+'
}

// AmbiguousError is a word of a move that means different things: in
// the reader's language (an initial) or in the languages that know it.
type AmbiguousError struct {
	Word string
	// Candidates are the canonical tokens it may mean.
	Candidates []string
	lang       string
	w          *Words
	fam        Family
}

func (e *AmbiguousError) Error() string {
	return e.Message()
}

// Message says the error in the reader's language, with the candidates
// in their words.
func (e *AmbiguousError) Message() string {
	v := e.w.vocab(e.lang, e.fam)
	words := make([]string, len(e.Candidates))
	for i, c := range e.Candidates {
		words[i] = v.say[c]
		if words[i] == "" {
			words[i] = c
		}
	}
	list := words[0]
	for _, next := range words[1:] {
		list = strings.ReplaceAll(strings.ReplaceAll(v.errOr, "{{.A}}", list), "{{.B}}", next)
	}
	return strings.ReplaceAll(strings.ReplaceAll(v.errAmbig, "{{.Word}}", e.Word), "{{.Candidates}}", list)
}

// Read turns a move written in lang's words (or the canonical notation,
// or unambiguous words of another language) into the canonical notation.
// Words it does not know are passed on unchanged for the engine's parser
// to judge; only an ambiguous word is an error here.
func (w *Words) Read(lang, ruleset, text string) (string, error) {
	fam := FamilyOf(ruleset)
	v := w.vocab(lang, fam)
	fields := strings.Fields(text)
	out := make([]string, 0, len(fields))
	for i := 0; i < len(fields); i++ {
		raw := fields[i]
		word, punct := trimPunct(raw)
		lw := strings.ToLower(word)
		if lw == "" {
			out = append(out, raw)
			continue
		}
		// "ster 3", "j3", "jolly 2": star and wild counts.
		if next, ok := w.prefixed(v, fam, lang, lw, fields, i); ok {
			if next.consumed {
				i++
			}
			out = append(out, next.token+next.punct)
			continue
		}
		if len([]rune(lw)) == 1 {
			if c, ok := v.initials[lw]; ok {
				out = append(out, c+punct)
				continue
			}
			if cs, ok := v.shared[lw]; ok {
				return "", &AmbiguousError{Word: word, Candidates: cs, lang: lang, w: w, fam: fam}
			}
			out = append(out, raw)
			continue
		}
		tok, err := w.lookup(lang, fam, word, lw)
		if err != nil {
			return "", err
		}
		if tok == "" {
			out = append(out, raw)
			continue
		}
		out = append(out, tok+punct)
	}
	return strings.Join(out, " "), nil
}

type prefixedToken struct {
	token, punct string
	consumed     bool
}

// prefixed reads a star or wild count: a prefix glued to its number
// ("j3", "s0") or a word and the number after it ("stella 3").
func (w *Words) prefixed(v *vocab, fam Family, lang, lw string, fields []string, i int) (prefixedToken, bool) {
	if fam != Pavilion {
		return prefixedToken{}, false
	}
	canon := func(word string) string {
		switch {
		case v.starRead[word]:
			return "s"
		case v.wildRead[word]:
			return "w"
		}
		return ""
	}
	// A glued letter and number.
	for n := 1; n < len(lw); n++ {
		if isNumber(lw[n:]) {
			if c := canon(lw[:n]); c != "" && len([]rune(lw[:n])) == 1 {
				_, punct := trimPunct(fields[i])
				return prefixedToken{token: c + lw[n:], punct: punct}, true
			}
			break
		}
	}
	if c := canon(lw); c != "" && len([]rune(lw)) > 1 && i+1 < len(fields) {
		next, punct := trimPunct(fields[i+1])
		if isNumber(next) {
			return prefixedToken{token: c + next, punct: punct, consumed: true}, true
		}
	}
	return prefixedToken{}, false
}

// lookup is a whole word: the reader's language first, then the others
// when they agree.
func (w *Words) lookup(lang string, fam Family, word, lw string) (string, error) {
	if tok, ok := w.vocab(lang, fam).read[lw]; ok {
		return tok, nil
	}
	var found []string
	for _, other := range w.langs {
		if other == lang {
			continue
		}
		if tok, ok := w.v[other][fam].read[lw]; ok && !slices.Contains(found, tok) {
			found = append(found, tok)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	slices.Sort(found)
	return "", &AmbiguousError{Word: word, Candidates: found, lang: lang, w: w, fam: fam}
}

// trimPunct splits trailing punctuation off a word: "rood," → "rood", ",".
func trimPunct(s string) (word, punct string) {
	end := len(s)
	for end > 0 && strings.ContainsRune(",.;:!", rune(s[end-1])) {
		end--
	}
	return s[:end], s[end:]
}

// Vocabulary lists every word lang accepts for a family, by canonical
// token, for the notation pages and `azul help`.
func (w *Words) Vocabulary(lang string, fam Family) map[string][]string {
	v := w.vocab(lang, fam)
	out := map[string][]string{}
	for word, tok := range v.read {
		out[tok] = append(out[tok], word)
	}
	for letter, c := range v.initials {
		out[c] = append(out[c], letter)
	}
	// Star and wild counts are read by prefix ("s3", "ster 3", "j2"), in
	// Summer Pavilion only; they are listed under "s" and "w".
	if fam == Pavilion {
		for word := range v.starRead {
			out["s"] = append(out["s"], word)
		}
		for word := range v.wildRead {
			out["w"] = append(out["w"], word)
		}
	}
	for _, words := range out {
		slices.Sort(words)
	}
	return out
}

// OrNew is w, or when w is nil the words of c (of the embedded files
// when c is nil too).
func OrNew(w *Words, c *i18n.Catalogue) (*Words, error) {
	switch {
	case w != nil:
		return w, nil
	case c != nil:
		return FromCatalogue(c)
	}
	return New(i18n.Options{})
}
