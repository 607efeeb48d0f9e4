package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/azuld/azuld/internal/apiclient"
)

// accountCommand is 'azul account': the player's profile, API tokens and
// signed-in browsers.
func (a *app) accountCommand() *cobra.Command {
	acc := &cobra.Command{
		Use:   "account",
		Short: "Your profile, API tokens and signed-in browsers",
		Args:  args(0, 0),
		RunE:  wrapRun(func(cmd *cobra.Command, _ []string) error { return a.showAccount(cmd) }),
	}
	show := &cobra.Command{
		Use:   "show",
		Short: "Show your name, address, language and time zone",
		Args:  args(0, 0),
		RunE:  wrapRun(func(cmd *cobra.Command, _ []string) error { return a.showAccount(cmd) }),
	}
	acc.AddCommand(show, a.accountSetCommand(), a.tokensCommand(), a.tokenCommand(), a.sessionsCommand(), a.confirmAddressCommand(), a.deleteAccountCommand())
	return acc
}

// when writes a time for a listing, in the terminal's zone.
func when(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }

func (a *app) showAccount(cmd *cobra.Command) error {
	if err := a.needToken(); err != nil {
		return err
	}
	res, err := a.api.MeWithResponse(cmd.Context())
	if err := a.result(res, err, http.StatusOK); err != nil {
		return err
	}
	if a.jsonOut {
		return a.printJSON(res.Body)
	}
	a.printProfile(res.JSON200)
	return nil
}

func (a *app) printProfile(p *apiclient.Profile) {
	email := deref(p.Email)
	switch {
	case email == "":
		email = "(none: no mail)"
	case p.EmailStatus != nil && *p.EmailStatus == apiclient.ProfileEmailStatusUnverified:
		email += " (not confirmed yet: follow the link mailed to it, or ask for another with 'azul account verify'; no game mail goes there until then)"
	case p.EmailStatus != nil && *p.EmailStatus == apiclient.ProfileEmailStatusUndeliverable:
		email += " (undeliverable: mail to it came back; fix it with 'azul account set --email', or 'azul account verify' once it takes mail again)"
	}
	tw := tabwriter.NewWriter(a.out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Name\t%s\nPlayer\t%s\nEmail\t%s\nLanguage\t%s\nTime zone\t%s\nSince\t%s\n",
		p.Name, p.Id, email, p.Language, p.TimeZone, when(p.CreatedAt))
	_ = tw.Flush()
}

func (a *app) accountSetCommand() *cobra.Command {
	var name, email, language, zone string
	cmd := &cobra.Command{
		Use:   "set [--name NAME] [--email EMAIL] [--language en|nl|de|it] [--time-zone ZONE]",
		Short: "Change your name, address (a link to confirm it is mailed to it), language or time zone",
		Args:  args(0, 0),
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error {
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
				l := apiclient.ProfileUpdateLanguage(language)
				u.Language = &l
			}
			if f.Changed("time-zone") {
				u.TimeZone = &zone
			}
			if u.Name == nil && u.Email == nil && u.Language == nil && u.TimeZone == nil {
				return usagef("set: nothing to change: give --name, --email, --language or --time-zone")
			}
			res, err := a.api.UpdateProfileWithResponse(cmd.Context(), u)
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			a.printProfile(res.JSON200)
			if u.Email != nil && email != "" {
				fmt.Fprintf(a.out, "A link to confirm %s is on its way to that address.\n", email)
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&name, "name", "", "your name as other players see it (1 to 64 characters)")
	cmd.Flags().StringVar(&email, "email", "", "your address (empty: no mail)")
	cmd.Flags().StringVar(&language, "language", "", "en, nl, de or it")
	cmd.Flags().StringVar(&zone, "time-zone", "", "an IANA time zone such as Europe/Amsterdam or UTC")
	return cmd
}

func (a *app) tokensCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "tokens",
		Short: "List your API tokens (never their secrets)",
		Args:  args(0, 0),
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error {
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
			tw := tabwriter.NewWriter(a.out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tCREATED\tLAST USED")
			for _, t := range res.JSON200.Tokens {
				used := "never"
				if t.LastUsedAt != nil {
					used = when(*t.LastUsedAt)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Id, t.Name, when(t.CreatedAt), used)
			}
			_ = tw.Flush()
			fmt.Fprintf(a.out, "%d of at most %d tokens.\n", len(res.JSON200.Tokens), res.JSON200.Limit)
			return nil
		}),
	}
}

// accountID checks an id argument of a token or session.
func accountID(kind, arg string) (uuid.UUID, error) {
	id, err := uuid.Parse(arg)
	if err != nil || len(arg) != 36 {
		return uuid.UUID{}, usagef("%q is not a %s id (a UUID, as 'azul account %ss' lists them)", arg, kind, kind)
	}
	return id, nil
}

func (a *app) tokenCommand() *cobra.Command {
	token := &cobra.Command{
		Use:   "token",
		Short: "Create or revoke an API token",
		Args:  args(1, -1),
		RunE: wrapRun(func(cmd *cobra.Command, args []string) error {
			return usagef("token: unknown command %q: use 'azul account token create NAME' or 'azul account token revoke ID'", args[0])
		}),
	}
	create := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a named token; it is printed this once",
		Args:  args(1, 1),
		RunE: wrapRun(func(cmd *cobra.Command, args []string) error {
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
			fmt.Fprintf(a.err, "Token %q (%s) created. It is shown only this once: keep it like a password.\n", t.Name, t.Id)
			return nil
		}),
	}
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a token: it stops working at once",
		Args:  args(1, 1),
		RunE: wrapRun(func(cmd *cobra.Command, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			id, err := accountID("token", args[0])
			if err != nil {
				return err
			}
			res, err := a.api.RevokeTokenWithResponse(cmd.Context(), id)
			if err := a.result(res, err, http.StatusNoContent); err != nil {
				return err
			}
			if !a.jsonOut {
				fmt.Fprintf(a.out, "Token %s revoked.\n", id)
			}
			return nil
		}),
	}
	token.AddCommand(create, revoke)
	return token
}

func (a *app) sessionsCommand() *cobra.Command {
	sessions := &cobra.Command{
		Use:   "sessions",
		Short: "List the browsers signed in to your account ('sessions end ID' signs one out)",
		Args:  args(0, 0),
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error {
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
				fmt.Fprintln(a.out, "No browser is signed in.")
				return nil
			}
			tw := tabwriter.NewWriter(a.out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tBROWSER\tSIGNED IN\tLAST SEEN")
			for _, s := range res.JSON200.Sessions {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Id, s.Device, when(s.CreatedAt), when(s.LastSeenAt))
			}
			_ = tw.Flush()
			return nil
		}),
	}
	end := &cobra.Command{
		Use:   "end ID",
		Short: "Sign one browser out",
		Args:  args(1, 1),
		RunE: wrapRun(func(cmd *cobra.Command, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			id, err := accountID("session", args[0])
			if err != nil {
				return err
			}
			res, err := a.api.EndSessionWithResponse(cmd.Context(), id)
			if err := a.result(res, err, http.StatusNoContent); err != nil {
				return err
			}
			if !a.jsonOut {
				fmt.Fprintf(a.out, "Session %s ended.\n", id)
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
		Use:   "delete [--yes]",
		Short: "Delete your account for good (asks you to type its name, unless --yes)",
		Args:  args(0, 0),
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			me, err := a.api.MeWithResponse(cmd.Context())
			if err := a.result(me, err, http.StatusOK); err != nil {
				return err
			}
			name := me.JSON200.Name
			if !yes {
				fmt.Fprintf(a.err, "This deletes the account %q on %s for good: your name and address are erased and your tokens stop working.\nType the account's name to confirm: ", name, a.cfg.Server)
				line, err := bufio.NewReader(a.in).ReadString('\n')
				if err != nil && !errors.Is(err, io.EOF) {
					return fmt.Errorf("read the confirmation: %w", err)
				}
				if strings.TrimSpace(line) != name {
					return usagef("delete: the name typed is not %q: nothing was deleted", name)
				}
			}
			return a.deleteAccount(cmd, name)
		}),
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "do not ask for the account's name")
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
	fmt.Fprintf(a.out, "The account %q is deleted.\n", name)
	return nil
}

// confirmAddressCommand is azul account verify.
func (a *app) confirmAddressCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Mail a new link that confirms your address (at most one more a day)",
		Args:  args(0, 0),
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error {
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
			fmt.Fprintln(a.out, "A new link is on its way to your address: follow it to confirm the address.")
			return nil
		}),
	}
}
