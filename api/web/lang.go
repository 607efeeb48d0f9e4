package web

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/account"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
)

// langCookie holds the language a visitor chose with the switcher. It
// changes no account: a signed-in player's pages follow the account.
const langCookie = "azuld_lang"

// langCookieAge is how long the visitor's choice is remembered.
const langCookieAge = 365 * 24 * 60 * 60

// langNames are the switcher's entries, each language in its own name
// (common's language.self).
type langName struct{ Code, Name string }

// pageLangs are the languages the catalogue serves pages in: the
// players' four, and the pseudo-locale when the catalogue has it (tests).
func pageLangs(cat *i18n.Catalogue) []string {
	langs := slices.Clone(i18n.Languages)
	if cat.Match(i18n.Pseudo) == i18n.Pseudo {
		langs = append(langs, i18n.Pseudo)
	}
	return langs
}

// knownLang reports whether lang is one the pages are written in.
func (w *Web) knownLang(lang string) bool {
	return lang != "" && slices.Contains(w.langs, lang)
}

// localizer is the reader of a request: a signed-in player's language
// and zone from the account; a visitor's switcher cookie, else the best
// match of Accept-Language, in UTC (a visitor's pages show no times that
// are theirs).
func (w *Web) localizer(c echo.Context, s *session) *i18n.Localizer {
	r := c.Request()
	// The pseudo-locale exists only in a catalogue built for tests; asked
	// for, it wins even over an account's language, so that a test can
	// read a signed-in player's pages in it.
	if w.pseudo && w.cat.Match(r.Header.Get("Accept-Language")) == i18n.Pseudo {
		if s != nil {
			return w.cat.Localizer(i18n.Pseudo, w.zone(s.TimeZone))
		}
		return w.cat.Localizer(i18n.Pseudo, time.UTC)
	}
	if s != nil && w.knownLang(s.Language) {
		return w.cat.Localizer(s.Language, w.zone(s.TimeZone))
	}
	if ck, err := r.Cookie(langCookie); err == nil && w.knownLang(ck.Value) {
		return w.cat.Localizer(ck.Value, time.UTC)
	}
	return w.cat.Localizer(w.cat.Match(r.Header.Get("Accept-Language")), time.UTC)
}

// zone is an IANA zone as stored with a player (UTC when unknown).
// time.LoadLocation reads and parses the zone's data on every call, so
// the zones the players name are kept once read.
func (w *Web) zone(name string) *time.Location {
	if loc, ok := w.zones.Load(name); ok {
		return loc.(*time.Location)
	}
	loc, err := i18n.LoadZone(name)
	if err != nil {
		return time.UTC
	}
	w.zones.Store(name, loc)
	return loc
}

// localPath is next when it is a path of this site, else "/": the
// switcher never sends a browser elsewhere.
func localPath(next string) string {
	if next == "" || len(next) > 512 || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.HasPrefix(next, `/\`) || strings.ContainsAny(next, "\r\n\t\\") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		return "/"
	}
	// An escaped slash could be decoded into "//host" by a proxy.
	if p, err := url.PathUnescape(u.EscapedPath()); err != nil || strings.HasPrefix(p, "//") || strings.HasPrefix(p, `/\`) {
		return "/"
	}
	return u.RequestURI()
}

// chooseLanguage is GET /language?lang=nl&next=/path: the visitor's
// switcher. It only sets the visitor's cookie (no account, nothing
// stored on the server), so it is a plain link; a signed-in player's
// switcher posts to /account/language instead.
func (w *Web) chooseLanguage(c echo.Context) error {
	lang := c.QueryParam("lang")
	if !w.knownLang(lang) {
		s, err := w.session(c)
		if err != nil {
			return w.fail(c, nil, err)
		}
		return w.failMessage(c, s, http.StatusBadRequest, w.localizer(c, s).T("web.error.language", "Lang", truncate(lang, 16), "Supported", w.supportedList()))
	}
	w.setCookie(c, langCookie, lang, langCookieAge)
	return c.Redirect(http.StatusSeeOther, localPath(c.QueryParam("next")))
}

// accountLanguage is POST /account/language: the signed-in player's
// switcher sets the account's language (CSRF-checked, like every form).
func (w *Web) accountLanguage(c echo.Context) error {
	s, ok, err := w.formSession(c)
	if !ok {
		return err
	}
	if s == nil {
		return c.Redirect(http.StatusSeeOther, "/signin")
	}
	lang := c.FormValue("language")
	if !i18n.Supported(lang) {
		return w.failMessage(c, s, http.StatusBadRequest, w.localizer(c, s).T("web.error.language", "Lang", truncate(lang, 16), "Supported", w.supportedList()))
	}
	// Through the account service, which owns the profile, when there
	// is one.
	if w.accounts != nil {
		if _, err := w.accounts.Update(c.Request().Context(), s.Player.ID, account.Update{Language: &lang}); err != nil {
			return w.fail(c, s, err)
		}
	} else if _, err := w.pool.Exec(c.Request().Context(), `UPDATE players SET language = $2 WHERE id = $1`, s.Player.ID, lang); err != nil {
		return w.fail(c, s, fmt.Errorf("set the account's language: %w", err))
	}
	return c.Redirect(http.StatusSeeOther, localPath(c.FormValue("next")))
}

// supportedList names the languages a player may choose: "en (English),
// nl (Nederlands), …".
func (w *Web) supportedList() string {
	parts := make([]string, 0, len(i18n.Languages))
	for _, l := range i18n.Languages {
		parts = append(parts, l+" ("+w.cat.Localizer(l, time.UTC).T("language.self")+")")
	}
	return strings.Join(parts, ", ")
}

// switcherNames are the switcher's entries.
func (w *Web) switcherNames() []langName {
	out := make([]langName, 0, len(i18n.Languages))
	for _, l := range i18n.Languages {
		out = append(out, langName{Code: l, Name: w.cat.Localizer(l, time.UTC).T("language.self")})
	}
	return out
}

// jsMessages is the JSON file a page's scripts read their words from:
// every web.js.* message, the game's colours, rule set names and terms,
// and the move words, for one language. Plural messages are objects of
// their CLDR forms; the script chooses with Intl.PluralRules.
//
// The messages are the catalogue's, parsed once when it was loaded: a
// parse of every file per language made most of a server's start-up.
func jsMessages(cat *i18n.Catalogue, lang string, words *notation.Words) (template.JS, error) {
	src := lang
	if lang == i18n.Pseudo {
		src = i18n.Default
	}
	all := cat.Forms(src)
	out := map[string]any{}
	ids := make([]string, 0, len(all))
	for id := range all {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if !jsWants(id) {
			continue
		}
		forms := all[id]
		if lang == i18n.Pseudo {
			conv := map[string]string{}
			for k, v := range forms {
				conv[k] = i18n.PseudoText(v)
			}
			forms = conv
		}
		if len(forms) == 1 && forms["other"] != "" {
			out[id] = forms["other"]
			continue
		}
		out[id] = forms
	}
	// The move words: canonical token to the reader's word, per family.
	wordMaps := map[string]map[string]string{}
	for fam, ruleset := range map[string]string{"azul": "azul-mini", "pavilion": "summer-pavilion"} {
		m := map[string]string{}
		say := func(tok string) string {
			word := words.Say(lang, ruleset, tok)
			if lang == i18n.Pseudo {
				word = i18n.PseudoText(word)
			}
			return word
		}
		for _, tok := range []string{"blue", "yellow", "red", "black", "white", "purple", "green", "orange",
			"floor", "C", "take", "place", "keep", "pass", "bonus", "resign", "tile", "line", "to"} {
			m[tok] = say(tok)
		}
		m["$star"] = strings.TrimSuffix(words.Say(lang, ruleset, "s9"), "9")
		m["$wild"] = strings.TrimSuffix(words.Say(lang, ruleset, "w9"), "9")
		if lang == i18n.Pseudo {
			m["$star"], m["$wild"] = i18n.PseudoText(m["$star"]), i18n.PseudoText(m["$wild"])
		}
		wordMaps[fam] = m
	}
	out["_words"] = wordMaps
	b, err := json.Marshal(out)
	if err != nil {
		return "", fmt.Errorf("web: the scripts' messages: %w", err)
	}
	// "<\/" keeps the file safe to inline in a <script> element too.
	return template.JS(strings.ReplaceAll(string(b), "</", `<\/`)), nil
}

// jsWants lists the catalogue ids the scripts use.
func jsWants(id string) bool {
	for _, p := range []string{"web.js.", "game.colour.", "game.ruleset.", "game.term.", "rule.", "web.error.status.", "talk.web.", "talk.former_player"} {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	switch id {
	case "notation.floor", "notation.centre", "notation.star", "notation.wild", "notation.keep", "notation.pass",
		"notation.place", "notation.take", "notation.bonus", "notation.resign", "notation.tile", "notation.line", "notation.to":
		return true
	}
	return false
}

// colourWords maps every language's colour words (game.colour.*, lower
// case) to the canonical colour names, from the catalogue's messages.
func colourWords(cat *i18n.Catalogue) map[string]string {
	out := map[string]string{}
	for _, lang := range i18n.Languages {
		for id, forms := range cat.Forms(lang) {
			if c, ok := strings.CutPrefix(id, "game.colour."); ok {
				out[strings.ToLower(forms["other"])] = c
			}
		}
	}
	return out
}
