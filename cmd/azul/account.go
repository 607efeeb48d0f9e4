package main

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/oapi-codegen/runtime/types"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/internal/apiclient"
)

func (a *app) registerCommand() *cobra.Command {
	return &cobra.Command{
		Use:  "register NAME [EMAIL]",
		Args: a.args(1, 2),
		RunE: a.wrapRun(func(cmd *cobra.Command, args []string) error {
			reg := apiclient.Registration{Name: args[0]}
			if len(args) == 2 {
				email := types.Email(args[1])
				reg.Email = &email
			}
			res, err := a.api.RegisterPlayerWithResponse(cmd.Context(), reg)
			if err := a.result(res, err, http.StatusCreated); err != nil {
				return err
			}
			p := res.JSON201
			if err := saveConfig(a.configFile, config{Server: a.cfg.Server, Token: p.Token}); err != nil {
				return err
			}
			// The new account's language and zone (chosen by the server
			// from this request's Accept-Language) are kept with it.
			a.cfg = config{Server: a.cfg.Server, Token: p.Token}
			a.learnProfile(cmd.Context())
			a.registrationDefaults(cmd)
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			fmt.Fprintln(a.out, a.l.T("cli.register.done", "Name", p.Name, "ID", p.Id, "Server", a.cfg.Server))
			fmt.Fprintln(a.out, a.l.T("cli.register.kept", "Path", a.configFile))
			if p.EmailStatus != nil && *p.EmailStatus == apiclient.RegisteredPlayerEmailStatusUnverified {
				fmt.Fprintln(a.out, a.l.T("cli.register.confirm", "Email", deref((*string)(p.Email))))
			}
			return nil
		}),
	}
}

func (a *app) loginCommand() *cobra.Command {
	return &cobra.Command{
		Use:  "login [TOKEN]",
		Args: a.args(0, 1),
		RunE: a.wrapRun(func(cmd *cobra.Command, args []string) error {
			token := ""
			if len(args) == 1 {
				token = args[0]
			} else {
				if f, ok := a.in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
					// Typed at a terminal: not echoed, like a password.
					fmt.Fprint(a.err, a.l.T("cli.login.prompt")+" ")
					b, err := term.ReadPassword(int(f.Fd()))
					fmt.Fprintln(a.err)
					if err != nil {
						return a.wrapf(err, "cli.login.read_error")
					}
					token = string(b)
				} else {
					line, err := bufio.NewReader(a.in).ReadString('\n')
					if err != nil && line == "" {
						return a.usage("cli.login.no_token")
					}
					token = line
				}
			}
			token = strings.TrimSpace(token)
			if token == "" {
				return a.usage("cli.login.empty")
			}
			a.cfg.Token = token
			res, err := a.api.MeWithResponse(cmd.Context())
			if err := a.result(res, err, http.StatusOK); err != nil {
				var pe *problemError
				if errors.As(err, &pe) && pe.instead != "" {
					pe.instead = a.l.T("cli.login.unknown", "Server", a.cfg.Server)
				}
				return err
			}
			me := res.JSON200
			if err := saveConfig(a.configFile, config{Server: a.cfg.Server, Token: token, Language: string(me.Language), TimeZone: me.TimeZone}); err != nil {
				return err
			}
			a.cfg.Language, a.cfg.TimeZone = string(me.Language), me.TimeZone
			a.chooseLanguage(a.langFlag, a.cfg)
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			fmt.Fprintln(a.out, a.l.T("cli.login.done", "Name", me.Name, "ID", me.Id, "Server", a.cfg.Server))
			return nil
		}),
	}
}

// registrationDefaults gives a new account the language of the terminal
// (--lang, else LC_ALL, LC_MESSAGES or LANG) and its zone (TZ) when the
// server chose others, as a browser's Accept-Language and zone choose
// them for the web. The request already carried Accept-Language; a
// server that read it changes nothing here.
func (a *app) registrationDefaults(cmd *cobra.Command) {
	var u apiclient.ProfileUpdate
	want := a.langFlag
	if !i18n.Supported(want) {
		if env := a.envLocale(); env != "" {
			want = a.cat.Match(env)
		}
	}
	if i18n.Supported(want) && want != a.cfg.Language {
		l := apiclient.ProfileUpdateLanguage(want)
		u.Language = &l
	}
	if tz := a.getenv("TZ"); tz != "" && tz != a.cfg.TimeZone {
		if _, err := i18n.LoadZone(tz); err == nil {
			u.TimeZone = &tz
		}
	}
	if u.Language == nil && u.TimeZone == nil {
		return
	}
	res, err := a.api.UpdateProfileWithResponse(cmd.Context(), u)
	if err != nil || res.JSON200 == nil {
		// The account keeps the server's choice; 'azul account' changes it.
		return
	}
	_ = a.rememberProfile(string(res.JSON200.Language), res.JSON200.TimeZone)
}
