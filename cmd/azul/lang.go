package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/internal/apiclient"
)

// The language azul speaks is, first to last: --lang; the account's
// language, kept in the configuration (written when 'azul register',
// 'azul login' or 'azul account' read or change the account); the
// locale of the environment (LC_ALL, LC_MESSAGES, LANG, as POSIX reads
// them); English. Times are shown in the account's time zone, else the
// machine's.

// messages are the catalogue and the move words of every language.
// Loading them parses every catalogue file, most of the time a short
// command takes; a process that runs many commands (the tests) loads
// them once and gives them to every run, which only reads them.
type messages struct {
	cat   *i18n.Catalogue
	words *notation.Words
}

// loadMessages loads the embedded catalogue and move words; pseudo adds
// the pseudo-locale.
func loadMessages(pseudo bool) (*messages, error) {
	cat, err := i18n.New(i18n.Options{Pseudo: pseudo})
	if err != nil {
		return nil, fmt.Errorf("load the messages: %w", err)
	}
	words, err := notation.New(i18n.Options{Pseudo: pseudo})
	if err != nil {
		return nil, fmt.Errorf("load the move words: %w", err)
	}
	return &messages{cat: cat, words: words}, nil
}

// loadLanguage loads the catalogue (unless the run was given it) and
// chooses the reader's language before the commands are built, so that
// their help is in it too. It reads --lang and --config from the
// arguments itself: cobra parses them only after the commands exist.
func (a *app) loadLanguage(args []string) error {
	m := a.messages
	if m == nil {
		var err error
		if m, err = loadMessages(a.pseudo); err != nil {
			return err
		}
	}
	a.cat, a.words = m.cat, m.words
	flagLang, configFlag := earlyFlag(args, "lang"), earlyFlag(args, "config")
	path := configFlag
	if path == "" {
		path, _ = configPath(a.getenv)
	}
	var cfg config
	if path != "" {
		// A configuration that cannot be read is reported by setup, in
		// the language chosen without it.
		cfg, _ = loadConfig(path)
	}
	a.chooseLanguage(flagLang, cfg)
	return nil
}

// earlyFlag is the value of --name VALUE or --name=VALUE among args, ""
// when absent.
func earlyFlag(args []string, name string) string {
	for i, arg := range args {
		if arg == "--" {
			break
		}
		if v, ok := strings.CutPrefix(arg, "--"+name+"="); ok {
			return v
		}
		if arg == "--"+name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// chooseLanguage sets the localizer from --lang, the configuration and
// the environment.
func (a *app) chooseLanguage(flagLang string, cfg config) {
	lang := ""
	switch {
	case flagLang != "" && (i18n.Supported(flagLang) || a.pseudo && flagLang == i18n.Pseudo):
		lang = flagLang
	case cfg.Language != "" && i18n.Supported(cfg.Language):
		lang = cfg.Language
	default:
		lang = a.cat.Match(a.envLocale())
	}
	zone := time.Local
	if cfg.TimeZone != "" {
		if z, err := i18n.LoadZone(cfg.TimeZone); err == nil {
			zone = z
		}
	}
	a.l = a.cat.Localizer(lang, zone)
}

// envLocale is the locale for messages as POSIX chooses it: LC_ALL,
// else LC_MESSAGES, else LANG. "C" and "POSIX" mean no language.
func (a *app) envLocale() string {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := a.getenv(name); v != "" {
			if v == "C" || v == "POSIX" || strings.HasPrefix(v, "C.") {
				return ""
			}
			return v
		}
	}
	return ""
}

// lang is the reader's language code.
func (a *app) lang() string { return a.l.Lang() }

// acceptLanguage is what the API is asked to answer in: the reader's
// language (the pseudo-locale's text is English).
func (a *app) acceptLanguage() string {
	if a.lang() == i18n.Pseudo {
		return i18n.Default
	}
	return a.lang()
}

// checkLangFlag refuses a --lang azul does not speak, with the list.
func (a *app) checkLangFlag() error {
	if a.langFlag == "" || i18n.Supported(a.langFlag) || a.pseudo && a.langFlag == i18n.Pseudo {
		return nil
	}
	return a.usage("cli.error.unknown_language", "Value", a.langFlag, "List", strings.Join(i18n.Languages, ", "))
}

// rememberProfile keeps the account's language and zone in the
// configuration (when they changed) and speaks them from now on.
func (a *app) rememberProfile(lang, zone string) error {
	if a.configFile == "" {
		return nil
	}
	a.cfg.Language, a.cfg.TimeZone = lang, zone
	a.chooseLanguage(a.langFlag, a.cfg)
	saved, err := loadConfig(a.configFile)
	if err != nil {
		return err
	}
	// Only the account of the saved token is the configuration's.
	if saved.Token != a.cfg.Token {
		return nil
	}
	if saved.Language != lang || saved.TimeZone != zone {
		saved.Language, saved.TimeZone = lang, zone
		if err := saveConfig(a.configFile, saved); err != nil {
			return err
		}
	}
	return nil
}

// learnProfile fetches the account's language and zone once, when the
// configuration has a token but does not know them yet (a configuration
// written before azul kept them, or a token given by hand).
func (a *app) learnProfile(ctx context.Context) {
	if a.cfg.Token == "" || a.cfg.Language != "" {
		return
	}
	res, err := a.api.MeWithResponse(ctx)
	if err != nil || res.StatusCode() != http.StatusOK || res.JSON200 == nil {
		// The command itself will say what is wrong with the token.
		return
	}
	// A configuration that cannot be written only costs asking again.
	_ = a.rememberProfile(string(res.JSON200.Language), res.JSON200.TimeZone)
}

// localize sets every command's short help from the catalogue
// (cli.cmd.<path>.short, the path's words joined by "_"), and cobra's
// own words of the help.
func (a *app) localize(cmd *cobra.Command, path string) {
	id := "cli.cmd." + path + ".short"
	if a.cat.Has(id) {
		cmd.Short = a.l.T(id)
	}
	if long := "cli.cmd." + path + ".long"; a.cat.Has(long) {
		cmd.Long = a.l.T(long)
	}
	// The arguments' placeholders (GAME, NAME) in the reader's words, and
	// cobra's "[flags]" too.
	if path != "root" {
		_, rest, _ := strings.Cut(cmd.Use, " ")
		if id := "cli.cmd." + path + ".args"; a.cat.Has(id) {
			rest = a.l.T(id)
		}
		if id := "cli.cmd." + path + ".optional"; a.cat.Has(id) {
			rest = "[" + a.l.T(id) + "]"
		}
		use := cmd.Name()
		if rest != "" {
			use += " " + rest
		}
		cmd.Use = use + " [" + a.l.T("cli.help.flags_word") + "]"
		cmd.DisableFlagsInUseLine = true
	}
	for _, sub := range cmd.Commands() {
		if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
			continue
		}
		p := sub.Name()
		if path != "root" {
			p = path + "_" + p
		}
		a.localize(sub, p)
	}
}

// say is a canonical move in the reader's words.
func (a *app) say(ruleset apiclient.Ruleset, canonical string) string {
	return a.words.Say(a.wordsLang(), string(ruleset), canonical)
}

// wordsLang is the language of move words: the pseudo-locale has its
// own accented words.
func (a *app) wordsLang() string { return a.lang() }

// readMove turns a move in the reader's words into the canonical
// notation; a word that may mean several things is refused (exit 3)
// with the candidates in the reader's language.
func (a *app) readMove(ruleset apiclient.Ruleset, text string) (string, error) {
	canon, err := a.words.Read(a.wordsLang(), string(ruleset), text)
	var amb *notation.AmbiguousError
	if errors.As(err, &amb) {
		return "", &exitError{code: exitRefused, err: errors.New(amb.Message())}
	}
	if err != nil {
		return "", err
	}
	return canon, nil
}

// localizeHelp writes cobra's help in the reader's language: its
// template's headings, the help flag and the help command.
func (a *app) localizeHelp(root *cobra.Command) {
	l := a.l
	root.SetUsageTemplate(l.T("cli.help.usage") + `:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} ` + "[" + l.T("cli.help.command_word") + "]" + `{{end}}{{if gt (len .Aliases) 0}}

` + l.T("cli.help.aliases") + `:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

` + l.T("cli.help.examples") + `:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

` + l.T("cli.help.commands") + `:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

` + l.T("cli.help.flags") + `:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

` + l.T("cli.help.global_flags") + `:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableSubCommands}}

` + l.T("cli.help.more", "Command", "{{.CommandPath}} "+"["+l.T("cli.help.command_word")+"]"+" --help") + `{{end}}
`)
	root.InitDefaultHelpFlag()
	if f := root.Flags().Lookup("help"); f != nil {
		f.Usage = l.T("cli.help.flag")
	}
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			c.Short = l.T("cli.help.command")
			c.Long = l.T("cli.help.command")
		}
	}
	root.CompletionOptions.HiddenDefaultCmd = true
	var helpFlags func(*cobra.Command)
	helpFlags = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		if f := c.Flags().Lookup("help"); f != nil {
			f.Usage = l.T("cli.help.flag")
		}
		for _, sub := range c.Commands() {
			helpFlags(sub)
		}
	}
	helpFlags(root)
}

// sayProblem makes the legal moves a refusal lists speak the reader's
// words.
func (a *app) sayProblem(err error, ruleset apiclient.Ruleset) error {
	var pe *problemError
	if errors.As(err, &pe) {
		pe.say = func(n string) string { return a.say(ruleset, n) }
	}
	return err
}

// cobra's own errors, said again in the reader's language.
var (
	cobraUnknownCommand = regexp.MustCompile(`^unknown command "([^"]*)" for "([^"]*)"`)
	cobraUnknownFlag    = regexp.MustCompile(`^unknown (?:shorthand )?flag: (?:'.' in )?(\S+)`)
	cobraNeedsValue     = regexp.MustCompile(`^flag needs an argument: (?:'.' in )?(\S+)`)
	cobraBadValue       = regexp.MustCompile(`^invalid argument "([^"]*)" for "([^"]*)" flag`)
)

// cobraError is an error cobra made (a usage error), in the reader's
// words where azul knows its kind.
func (a *app) cobraError(err error) error {
	msg := err.Error()
	if m := cobraUnknownCommand.FindStringSubmatch(msg); m != nil {
		return errors.New(a.l.T("cli.error.unknown_command", "Command", m[1], "Parent", m[2]))
	}
	if m := cobraUnknownFlag.FindStringSubmatch(msg); m != nil {
		return errors.New(a.l.T("cli.error.unknown_flag", "Flag", m[1]))
	}
	if m := cobraNeedsValue.FindStringSubmatch(msg); m != nil {
		return errors.New(a.l.T("cli.error.flag_needs_value", "Flag", m[1]))
	}
	if m := cobraBadValue.FindStringSubmatch(msg); m != nil {
		return errors.New(a.l.T("cli.error.bad_flag_value", "Value", m[1], "Flag", m[2]))
	}
	return err
}
