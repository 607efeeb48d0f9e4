// Package i18n is azuld's message catalogue: every word a player reads,
// in English, Dutch, German and Italian, with CLDR plurals, numbers and
// dates in the reader's language and times in the reader's zone.
//
// Messages live in one TOML file per language and domain under locales/
// (common, game, notation, web, mail, api, cli), loaded with
// nicksnyder/go-i18n: its files are plain data a translator can edit, its
// plural forms are CLDR's, and its Go-template placeholders ({{.Name}})
// are named, so a test can check that every language has the same ones.
// The game's terms come from the printed rulebooks of each language
// (docs/rules.md names them): patroonlijn, Musterreihe, tessera vassoio, …
//
// A Catalogue is built once at start and shared; a Localizer is one
// reader's view of it (language and time zone). Nothing here is global.
package i18n

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	// Zones must be known on a machine without /usr/share/zoneinfo (the
	// static image has none).
	_ "time/tzdata"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// Languages are the languages a player may choose, the default first.
var Languages = []string{"en", "nl", "de", "it"}

// Default is the language of a reader azuld knows nothing about.
const Default = "en"

// Pseudo is the pseudo-locale: English with every letter of every
// catalogue message accented and wrapped in ⟦ ⟧, so a test can find text
// that bypassed the catalogue. It is chosen only when a Catalogue is
// built with Options.Pseudo, and never offered to players.
const Pseudo = "en-XA"

//go:embed locales/*.toml
var localeFS embed.FS

// Options change how a Catalogue is built.
type Options struct {
	// Pseudo makes the pseudo-locale available (tests).
	Pseudo bool
}

// Catalogue holds every message of every language.
type Catalogue struct {
	bundle  *goi18n.Bundle
	matcher language.Matcher
	langs   []string // what Match may answer
	// ids are every message id of the default language, sorted.
	ids []string
	// compiled holds every message of every language split into text and
	// placeholders, so that rendering is a map lookup and a copy.
	compiled map[string]map[string]*compiled
	// forms are the parsed messages by language, for the move words
	// (notation.FromCatalogue) to share rather than parse again.
	forms map[string]map[string]map[string]string

	mu         sync.Mutex
	localizers map[localizerKey]*Localizer
	// missing records ids that were asked for and not found, so that a
	// test that renders every page can say which.
	missing map[string]struct{}
}

type localizerKey struct {
	lang string
	zone string
}

// New loads the embedded catalogue.
func New(opts Options) (*Catalogue, error) {
	return load(localeFS, opts)
}

func load(fsys fs.FS, opts Options) (*Catalogue, error) {
	bundle := goi18n.NewBundle(language.English)
	bundle.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	all, parsed, err := parseAll(fsys)
	if err != nil {
		return nil, err
	}
	for lang, msgs := range parsed {
		if err := bundle.AddMessages(language.Make(lang), msgs...); err != nil {
			return nil, fmt.Errorf("i18n: add %s: %w", lang, err)
		}
	}
	c := &Catalogue{
		bundle:     bundle,
		langs:      slices.Clone(Languages),
		localizers: map[localizerKey]*Localizer{},
		missing:    map[string]struct{}{},
		compiled:   map[string]map[string]*compiled{},
		forms:      all,
	}
	en := all[Default]
	for id := range en {
		c.ids = append(c.ids, id)
	}
	sort.Strings(c.ids)
	for _, lang := range Languages {
		c.compiled[lang] = compileAll(all[lang])
	}
	if opts.Pseudo {
		pseudo := pseudoMessages(en)
		if err := bundle.AddMessages(language.Make(Pseudo), pseudo...); err != nil {
			return nil, fmt.Errorf("i18n: pseudo-locale: %w", err)
		}
		msgs := map[string]map[string]string{}
		for _, m := range pseudo {
			msgs[m.ID] = forms(m)
		}
		c.compiled[Pseudo] = compileAll(msgs)
		c.langs = append(c.langs, Pseudo)
	}
	tags := make([]language.Tag, len(c.langs))
	for i, l := range c.langs {
		tags[i] = language.Make(l)
	}
	c.matcher = language.NewMatcher(tags)
	return c, nil
}

// Forms are the messages of a language as the catalogue files write them
// (id to plural form to text); the caller must not change them. The
// pseudo-locale has none.
func (c *Catalogue) Forms(lang string) map[string]map[string]string { return c.forms[lang] }

// IDs are the ids of every message, sorted.
func (c *Catalogue) IDs() []string { return slices.Clone(c.ids) }

// Has reports whether id is a message.
func (c *Catalogue) Has(id string) bool {
	_, ok := slices.BinarySearch(c.ids, id)
	return ok
}

// Missing are the ids asked for since the catalogue was built that no
// language has, sorted. A test that renders every surface asserts it is
// empty.
func (c *Catalogue) Missing() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.missing))
	for id := range c.missing {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func (c *Catalogue) noteMissing(id string) {
	c.mu.Lock()
	c.missing[id] = struct{}{}
	c.mu.Unlock()
}

// Supported reports whether lang is a language players may choose.
func Supported(lang string) bool { return slices.Contains(Languages, lang) }

// Match is the best of the catalogue's languages for an Accept-Language
// header (or a LANG value such as "de_DE.UTF-8"), Default when none fits.
func (c *Catalogue) Match(accept string) string {
	accept = strings.TrimSpace(accept)
	if accept == "" {
		return Default
	}
	tags, _, err := language.ParseAcceptLanguage(accept)
	if err != nil || len(tags) == 0 {
		// A POSIX locale: de_DE.UTF-8, nl_BE@euro, C.
		name := accept
		if i := strings.IndexAny(name, ".@"); i >= 0 {
			name = name[:i]
		}
		t, err := language.Parse(strings.ReplaceAll(name, "_", "-"))
		if err != nil {
			return Default
		}
		tags = []language.Tag{t}
	}
	_, i, conf := c.matcher.Match(tags...)
	if conf == language.No {
		return Default
	}
	return c.langs[i]
}

// Localizer is one reader's view of the catalogue: their language and
// time zone. It is safe for concurrent use.
func (c *Catalogue) Localizer(lang string, zone *time.Location) *Localizer {
	if !slices.Contains(c.langs, lang) {
		lang = Default
	}
	if zone == nil {
		zone = time.UTC
	}
	key := localizerKey{lang, zone.String()}
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.localizers[key]; ok {
		return l
	}
	l := newLocalizer(c, lang, zone)
	c.localizers[key] = l
	return l
}

// For is the Localizer for a language and an IANA zone name as stored
// with a player; an unknown zone reads as UTC.
func (c *Catalogue) For(lang, zone string) *Localizer {
	loc, err := LoadZone(zone)
	if err != nil {
		loc = time.UTC
	}
	return c.Localizer(lang, loc)
}

// LocaleFile is one catalogue file: locales/<domain>.<lang>.toml.
type LocaleFile struct {
	Path, Domain, Lang string
}

// LocaleFiles lists the catalogue's files.
func LocaleFiles(fsys fs.FS) ([]LocaleFile, error) {
	names, err := fs.Glob(fsys, "locales/*.toml")
	if err != nil {
		return nil, fmt.Errorf("i18n: list locales: %w", err)
	}
	var out []LocaleFile
	for _, name := range names {
		parts := strings.Split(strings.TrimSuffix(path.Base(name), ".toml"), ".")
		if len(parts) != 2 || !Supported(parts[1]) {
			return nil, fmt.Errorf("i18n: %s: want locales/<domain>.<%s>.toml", name, strings.Join(Languages, "|"))
		}
		out = append(out, LocaleFile{Path: name, Domain: parts[0], Lang: parts[1]})
	}
	return out, nil
}

// Messages reads every message of one language: id to its forms (plural
// form name, or "other" for a plain message, to text).
func Messages(fsys fs.FS, lang string) (map[string]map[string]string, error) {
	all, err := AllMessages(fsys)
	if err != nil {
		return nil, err
	}
	return all[lang], nil
}

// AllMessages reads every message of every language, each file once.
func AllMessages(fsys fs.FS) (map[string]map[string]map[string]string, error) {
	all, _, err := parseAll(fsys)
	return all, err
}

// parseAll parses every catalogue file once: the forms of each message
// by language, and go-i18n's messages for its bundle.
func parseAll(fsys fs.FS) (map[string]map[string]map[string]string, map[string][]*goi18n.Message, error) {
	files, err := LocaleFiles(fsys)
	if err != nil {
		return nil, nil, err
	}
	all := map[string]map[string]map[string]string{}
	parsed := map[string][]*goi18n.Message{}
	for _, lang := range Languages {
		all[lang] = map[string]map[string]string{}
	}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f.Path)
		if err != nil {
			return nil, nil, fmt.Errorf("i18n: read %s: %w", f.Path, err)
		}
		msgs, err := goi18n.ParseMessageFileBytes(data, f.Path, map[string]goi18n.UnmarshalFunc{"toml": toml.Unmarshal})
		if err != nil {
			return nil, nil, fmt.Errorf("i18n: parse %s: %w", f.Path, err)
		}
		out := all[f.Lang]
		for _, m := range msgs.Messages {
			if _, dup := out[m.ID]; dup {
				return nil, nil, fmt.Errorf("i18n: %s: message %q defined twice", f.Path, m.ID)
			}
			out[m.ID] = forms(m)
		}
		parsed[f.Lang] = append(parsed[f.Lang], msgs.Messages...)
	}
	return all, parsed, nil
}

// LocaleFS is the embedded catalogue files, for tests that read them.
func LocaleFS() fs.FS { return localeFS }

func forms(m *goi18n.Message) map[string]string {
	f := map[string]string{}
	for name, s := range map[string]string{"zero": m.Zero, "one": m.One, "two": m.Two, "few": m.Few, "many": m.Many, "other": m.Other} {
		if s != "" {
			f[name] = s
		}
	}
	return f
}
