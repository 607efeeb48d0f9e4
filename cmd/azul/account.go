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

	"github.com/azuld/azuld/internal/apiclient"
)

func (a *app) registerCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "register NAME [EMAIL]",
		Short: "Create a player on the server (with an email address to play by mail) and keep its token in the configuration",
		Args:  args(1, 2),
		RunE: wrapRun(func(cmd *cobra.Command, args []string) error {
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
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			fmt.Fprintf(a.out, "Registered %s (player %s) on %s.\nThe token is kept in %s.\n", p.Name, p.Id, a.cfg.Server, a.configFile)
			if p.EmailStatus != nil && *p.EmailStatus == apiclient.RegisteredPlayerEmailStatusUnverified {
				fmt.Fprintf(a.out, "A link to confirm %s is on its way: until you follow it, no game mail goes there.\n", deref((*string)(p.Email)))
			}
			return nil
		}),
	}
}

func (a *app) loginCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "login [TOKEN]",
		Short: "Check a token with the server and keep it in the configuration (read from stdin without TOKEN)",
		Args:  args(0, 1),
		RunE: wrapRun(func(cmd *cobra.Command, args []string) error {
			token := ""
			if len(args) == 1 {
				token = args[0]
			} else {
				if f, ok := a.in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
					// Typed at a terminal: not echoed, like a password.
					fmt.Fprint(a.err, "Token: ")
					b, err := term.ReadPassword(int(f.Fd()))
					fmt.Fprintln(a.err)
					if err != nil {
						return fmt.Errorf("read the token: %w", err)
					}
					token = string(b)
				} else {
					line, err := bufio.NewReader(a.in).ReadString('\n')
					if err != nil && line == "" {
						return usagef("login: give the token as argument or on standard input")
					}
					token = line
				}
			}
			token = strings.TrimSpace(token)
			if token == "" {
				return usagef("login: the token is empty")
			}
			a.cfg.Token = token
			res, err := a.api.MeWithResponse(cmd.Context())
			if err := a.result(res, err, http.StatusOK); err != nil {
				var pe *problemError
				if errors.As(err, &pe) && pe.instead != "" {
					pe.instead = fmt.Sprintf("the server %s does not know this token: check it, or run 'azul register NAME [EMAIL]' to create a player", a.cfg.Server)
				}
				return err
			}
			if err := saveConfig(a.configFile, config{Server: a.cfg.Server, Token: token}); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			fmt.Fprintf(a.out, "Signed in as %s (player %s) on %s.\n", res.JSON200.Name, res.JSON200.Id, a.cfg.Server)
			return nil
		}),
	}
}
