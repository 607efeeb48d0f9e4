package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/internal/apiclient"
	"github.com/azuld/azuld/mail/compose"
)

// accountCommand is 'azul account': the player's profile, API tokens and
// signed-in browsers.
func (a *app) accountCommand() *cobra.Command {
	acc := &cobra.Command{
		Use:  "account",
		Args: a.args(0, 0),
		RunE: a.wrapRun(func(cmd *cobra.Command, _ []string) error { return a.showAccount(cmd) }),
	}
	show := &cobra.Command{
		Use:  "show",
		Args: a.args(0, 0),
		RunE: a.wrapRun(func(cmd *cobra.Command, _ []string) error { return a.showAccount(cmd) }),
	}
	acc.AddCommand(show, a.accountLanguageCommand(), a.accountZoneCommand(), a.accountSetCommand(), a.tokensCommand(), a.tokenCommand(), a.sessionsCommand(), a.confirmAddressCommand(), a.deleteAccountCommand())
	return acc
}

// when writes a time for a listing, in the reader's zone, the zone
// named.
func (a *app) when(t time.Time) string { return a.l.Time(t) }

func (a *app) showAccount(cmd *cobra.Command) error {
	if err := a.needToken(); err != nil {
		return err
	}
	res, err := a.api.MeWithResponse(cmd.Context())
	if err := a.result(res, err, http.StatusOK); err != nil {
		return err
	}
	p := res.JSON200
	if err := a.rememberProfile(string(p.Language), p.TimeZone); err != nil {
		return err
	}
	if a.jsonOut {
		return a.printJSON(res.Body)
	}
	a.printProfile(p)
	return nil
}

func (a *app) printProfile(p *apiclient.Profile) {
	l := a.l
	email := deref(p.Email)
	switch {
	case email == "":
		email = l.T("cli.account.no_email")
	case p.EmailStatus != nil && *p.EmailStatus == apiclient.ProfileEmailStatusUnverified:
		email += " " + l.T("cli.account.unverified")
	case p.EmailStatus != nil && *p.EmailStatus == apiclient.ProfileEmailStatusUndeliverable:
		email += " " + l.T("cli.account.undeliverable")
	}
	lang := string(p.Language)
	// Each language by its own name, as a switcher shows them.
	langName := a.cat.Localizer(lang, nil).T("language.self")
	zone := p.TimeZone
	if z, err := i18n.LoadZone(zone); err == nil {
		zone += " (" + time.Now().In(z).Format("MST") + ")"
	}
	fmt.Fprint(a.out, compose.Table([][]string{
		{l.T("cli.account.name"), p.Name},
		{l.T("cli.account.player"), p.Id.String()},
		{l.T("cli.account.email"), email},
		{l.T("cli.account.language"), langName + " (" + lang + ")"},
		{l.T("cli.account.zone"), zone},
		{l.T("cli.account.since"), a.when(p.CreatedAt)},
	}))
}

// checkLanguage refuses a language azul does not speak, with the list.
func (a *app) checkLanguage(lang string) error {
	if i18n.Supported(lang) {
		return nil
	}
	return a.usage("cli.error.unknown_language", "Value", lang, "List", strings.Join(i18n.Languages, ", "))
}

// checkZone refuses a time zone that is no IANA name.
func (a *app) checkZone(zone string) error {
	if _, err := i18n.LoadZone(zone); err == nil && zone != "" && zone != "Local" {
		return nil
	}
	return a.usage("cli.error.unknown_zone", "Value", zone)
}

// updateProfile sends a change of the profile, keeps the language and
// zone it leaves, and shows it.
func (a *app) updateProfile(cmd *cobra.Command, u apiclient.ProfileUpdate) (*apiclient.Profile, error) {
	res, err := a.api.UpdateProfileWithResponse(cmd.Context(), u)
	if err := a.result(res, err, http.StatusOK); err != nil {
		return nil, err
	}
	p := res.JSON200
	if err := a.rememberProfile(string(p.Language), p.TimeZone); err != nil {
		return nil, err
	}
	if a.jsonOut {
		return p, a.printJSON(res.Body)
	}
	a.printProfile(p)
	return p, nil
}

// accountLanguageCommand is 'azul account language [LANG]': shows the
// account's language and the others, or sets it.
func (a *app) accountLanguageCommand() *cobra.Command {
	return &cobra.Command{
		Use:       "language [en|nl|de|it]",
		Args:      a.args(0, 1),
		ValidArgs: i18n.Languages,
		RunE: a.wrapRun(func(cmd *cobra.Command, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			if len(args) == 0 {
				return a.showLanguages(cmd)
			}
			if err := a.checkLanguage(args[0]); err != nil {
				return err
			}
			l := apiclient.ProfileUpdateLanguage(args[0])
			_, err := a.updateProfile(cmd, apiclient.ProfileUpdate{Language: &l})
			return err
		}),
	}
}

// showLanguages lists the languages, the account's marked.
func (a *app) showLanguages(cmd *cobra.Command) error {
	res, err := a.api.MeWithResponse(cmd.Context())
	if err := a.result(res, err, http.StatusOK); err != nil {
		return err
	}
	p := res.JSON200
	if err := a.rememberProfile(string(p.Language), p.TimeZone); err != nil {
		return err
	}
	if a.jsonOut {
		return a.printJSON(res.Body)
	}
	for _, lang := range i18n.Languages {
		mark := " "
		if lang == string(p.Language) {
			mark = "*"
		}
		fmt.Fprintf(a.out, "%s %s  %s\n", mark, lang, a.cat.Localizer(lang, nil).T("language.self"))
	}
	fmt.Fprintln(a.out, a.l.T("cli.account.language_hint"))
	return nil
}

// accountZoneCommand is 'azul account zone [ZONE]'.
func (a *app) accountZoneCommand() *cobra.Command {
	return &cobra.Command{
		Use:  "zone [ZONE]",
		Args: a.args(0, 1),
		RunE: a.wrapRun(func(cmd *cobra.Command, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			if len(args) == 0 {
				return a.showAccount(cmd)
			}
			if err := a.checkZone(args[0]); err != nil {
				return err
			}
			_, err := a.updateProfile(cmd, apiclient.ProfileUpdate{TimeZone: &args[0]})
			return err
		}),
	}
}

func (a *app) accountSetCommand() *cobra.Command {
	var name, email, language, zone string
	var hideGames bool
	cmd := &cobra.Command{
		Use:  "set [--name NAME] [--email EMAIL] [--language en|nl|de|it] [--time-zone ZONE] [--hide-games=true|false]",
		Args: a.args(0, 0),
		RunE: a.wrapRun(func(cmd *cobra.Command, _ []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			var u apiclient.ProfileUpdate
			f := cmd.Flags()
			if f.Changed("name") {
				u.Name = &name
			}
			if f.Changed("email") {
				u.Email = &email
			}
			if f.Changed("language") {
				if err := a.checkLanguage(language); err != nil {
					return err
				}
				l := apiclient.ProfileUpdateLanguage(language)
				u.Language = &l
			}
			if f.Changed("time-zone") {
				if err := a.checkZone(zone); err != nil {
					return err
				}
				u.TimeZone = &zone
			}
			if f.Changed("hide-games") {
				u.HideGames = &hideGames
			}
			if u.Name == nil && u.Email == nil && u.Language == nil && u.TimeZone == nil && u.HideGames == nil {
				return a.usage("cli.account.nothing_to_change")
			}
			if _, err := a.updateProfile(cmd, u); err != nil {
				return err
			}
			if u.Email != nil && email != "" && !a.jsonOut {
				fmt.Fprintln(a.out, a.l.T("cli.account.confirm_sent", "Email", email))
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&name, "name", "", a.l.T("cli.flag.name"))
	cmd.Flags().StringVar(&email, "email", "", a.l.T("cli.flag.email"))
	cmd.Flags().StringVar(&language, "language", "", a.l.T("cli.flag.language"))
	cmd.Flags().StringVar(&zone, "time-zone", "", a.l.T("cli.flag.time_zone"))
	cmd.Flags().BoolVar(&hideGames, "hide-games", false, a.l.T("profile.cli.flag.hide_games"))
	return cmd
}

func (a *app) tokensCommand() *cobra.Command {
	return &cobra.Command{
		Use:  "tokens",
		Args: a.args(0, 0),
		RunE: a.wrapRun(func(cmd *cobra.Command, _ []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			res, err := a.api.ListTokensWithResponse(cmd.Context())
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			rows := [][]string{strings.Split(a.l.T("cli.tokens.header"), "\t")}
			for _, t := range res.JSON200.Tokens {
				used := a.l.T("cli.tokens.never")
				if t.LastUsedAt != nil {
					used = a.when(*t.LastUsedAt)
				}
				rows = append(rows, []string{t.Id.String(), t.Name, a.when(t.CreatedAt), used})
			}
			fmt.Fprint(a.out, compose.Table(rows))
			fmt.Fprintln(a.out, a.l.N("cli.tokens.count", res.JSON200.Limit, "N", len(res.JSON200.Tokens)))
			return nil
		}),
	}
}

// accountID checks an id argument of a token or session.
func (a *app) accountID(kind, arg string) (uuid.UUID, error) {
	id, err := uuid.Parse(arg)
	if err != nil || len(arg) != 36 {
		return uuid.UUID{}, a.usage("cli.error.bad_"+kind+"_id", "Value", arg)
	}
	return id, nil
}

func (a *app) tokenCommand() *cobra.Command {
	token := &cobra.Command{
		Use:  "token",
		Args: a.args(1, -1),
		RunE: a.wrapRun(func(cmd *cobra.Command, args []string) error {
			return a.usage("cli.tokens.unknown_command", "Value", args[0])
		}),
	}
	create := &cobra.Command{
		Use:  "create NAME",
		Args: a.args(1, 1),
		RunE: a.wrapRun(func(cmd *cobra.Command, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			res, err := a.api.CreateTokenWithResponse(cmd.Context(), apiclient.CreateTokenJSONRequestBody{Name: args[0]})
			if err := a.result(res, err, http.StatusCreated); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			t := res.JSON201
			fmt.Fprintf(a.out, "%s\n", t.Token)
			fmt.Fprintln(a.err, a.l.T("cli.tokens.created", "Name", t.Name, "ID", t.Id))
			return nil
		}),
	}
	revoke := &cobra.Command{
		Use:  "revoke ID",
		Args: a.args(1, 1),
		RunE: a.wrapRun(func(cmd *cobra.Command, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			id, err := a.accountID("token", args[0])
			if err != nil {
				return err
			}
			res, err := a.api.RevokeTokenWithResponse(cmd.Context(), id)
			if err := a.result(res, err, http.StatusNoContent); err != nil {
				return err
			}
			if !a.jsonOut {
				fmt.Fprintln(a.out, a.l.T("cli.tokens.revoked", "ID", id))
			}
			return nil
		}),
	}
	token.AddCommand(create, revoke)
	return token
}

func (a *app) sessionsCommand() *cobra.Command {
	sessions := &cobra.Command{
		Use:  "sessions",
		Args: a.args(0, 0),
		RunE: a.wrapRun(func(cmd *cobra.Command, _ []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			res, err := a.api.ListSessionsWithResponse(cmd.Context())
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			if len(res.JSON200.Sessions) == 0 {
				fmt.Fprintln(a.out, a.l.T("cli.sessions.none"))
				return nil
			}
			rows := [][]string{strings.Split(a.l.T("cli.sessions.header"), "\t")}
			for _, s := range res.JSON200.Sessions {
				rows = append(rows, []string{s.Id.String(), s.Device, a.when(s.CreatedAt), a.when(s.LastSeenAt)})
			}
			fmt.Fprint(a.out, compose.Table(rows))
			return nil
		}),
	}
	end := &cobra.Command{
		Use:  "end ID",
		Args: a.args(1, 1),
		RunE: a.wrapRun(func(cmd *cobra.Command, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			id, err := a.accountID("session", args[0])
			if err != nil {
				return err
			}
			res, err := a.api.EndSessionWithResponse(cmd.Context(), id)
			if err := a.result(res, err, http.StatusNoContent); err != nil {
				return err
			}
			if !a.jsonOut {
				fmt.Fprintln(a.out, a.l.T("cli.sessions.ended", "ID", id))
			}
			return nil
		}),
	}
	sessions.AddCommand(end)
	return sessions
}

func (a *app) deleteAccountCommand() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:  "delete [--yes]",
		Args: a.args(0, 0),
		RunE: a.wrapRun(func(cmd *cobra.Command, _ []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			me, err := a.api.MeWithResponse(cmd.Context())
			if err := a.result(me, err, http.StatusOK); err != nil {
				return err
			}
			name := me.JSON200.Name
			if !yes {
				fmt.Fprint(a.err, a.l.T("cli.delete.warning", "Name", name, "Server", a.cfg.Server)+"\n"+a.l.T("cli.delete.prompt")+" ")
				line, err := bufio.NewReader(a.in).ReadString('\n')
				if err != nil && !errors.Is(err, io.EOF) {
					return a.wrapf(err, "cli.delete.read_error")
				}
				if strings.TrimSpace(line) != name {
					return a.usage("cli.delete.mismatch", "Name", name)
				}
			}
			return a.deleteAccount(cmd, name)
		}),
	}
	cmd.Flags().BoolVar(&yes, "yes", false, a.l.T("cli.flag.yes"))
	return cmd
}

// deleteAccount calls DELETE /v1/me.
func (a *app) deleteAccount(cmd *cobra.Command, name string) error {
	res, err := a.api.DeleteMeWithResponse(cmd.Context())
	if err := a.result(res, err, http.StatusNoContent); err != nil {
		return err
	}
	// The saved token died with the account.
	if a.cfg.Token != "" {
		if saved, err := loadConfig(a.configFile); err == nil && saved.Token == a.cfg.Token {
			saved.Token = ""
			if err := saveConfig(a.configFile, saved); err != nil {
				return err
			}
		}
	}
	if a.jsonOut {
		return a.printJSON([]byte(`{"deleted":true}`))
	}
	fmt.Fprintln(a.out, a.l.T("cli.delete.done", "Name", name))
	return nil
}

// confirmAddressCommand is azul account verify.
func (a *app) confirmAddressCommand() *cobra.Command {
	return &cobra.Command{
		Use:  "verify",
		Args: a.args(0, 0),
		RunE: a.wrapRun(func(cmd *cobra.Command, _ []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			res, err := a.api.ResendVerificationWithResponse(cmd.Context())
			if err := a.result(res, err, http.StatusAccepted); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			fmt.Fprintln(a.out, a.l.T("cli.account.verify_sent"))
			return nil
		}),
	}
}
