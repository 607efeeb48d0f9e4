package main

import (
	"fmt"
	"net/http"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/azuld/azuld/internal/apiclient"
)

// rematchCommand asks for the rematch of a finished game (or, with
// --decline, declines the seat a rematch keeps for the caller). Accepting
// is joining: azul join NEW.
func (a *app) rematchCommand() *cobra.Command {
	var decline bool
	cmd := &cobra.Command{
		Use:               "rematch GAME",
		Args:              a.args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, _ []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			if decline {
				res, err := a.api.DeclineRematchWithResponse(cmd.Context(), id)
				if err := a.result(res, err, http.StatusOK); err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(res.Body)
				}
				fmt.Fprintln(a.out, a.l.T("cli.rematch.declined", "ID", id))
				return nil
			}
			res, err := a.api.RematchWithResponse(cmd.Context(), id)
			want := http.StatusCreated
			if err == nil && res.StatusCode() == http.StatusOK {
				want = http.StatusOK
			}
			if err := a.result(res, err, want); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			g := res.JSON201
			if want == http.StatusOK {
				g = res.JSON200
			}
			a.printRematch(g, want == http.StatusCreated)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&decline, "decline", false, a.l.T("cli.flag.rematch_decline"))
	return cmd
}

// printRematch says which game the rematch is and whose acceptance it
// waits for.
func (a *app) printRematch(g *apiclient.GameResponse, created bool) {
	head := "cli.rematch.found"
	if created {
		head = "cli.rematch.created"
	}
	fmt.Fprintln(a.out, a.l.T(head, "ID", g.Id))
	var waiting []string
	for _, s := range g.Seats {
		if deref(s.PlayerId) == "" && deref(s.Reserved) != "" {
			name := deref(s.Name)
			if name == "" {
				name = deref(s.Reserved)
			}
			waiting = append(waiting, name)
		}
	}
	switch {
	case len(waiting) > 0:
		fmt.Fprintln(a.out, a.l.N("cli.rematch.waiting", len(waiting), "Names", a.l.List(waiting)))
	case string(g.Status) == "open":
		fmt.Fprintln(a.out, a.l.T("cli.rematch.open"))
	default:
		fmt.Fprintln(a.out, a.l.T("cli.rematch.started"))
	}
	fmt.Fprintln(a.out, a.l.T("cli.rematch.show_with", "Command", "azul show "+g.Id.String()))
}
