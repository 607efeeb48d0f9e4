package main

import (
	"fmt"
	"net/http"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/azuld/azuld/internal/apiclient"
)

// hintCommand is 'azul hint GAME': the strongest bot's suggestion for
// your seat that must act, with its reasons, in an unrated game. The
// server refuses it in a rated game, and when it is not your turn.
func (a *app) hintCommand() *cobra.Command {
	var seat int
	cmd := &cobra.Command{
		Use:               "hint GAME",
		Args:              a.args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, _ []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			params := &apiclient.GameHintParams{}
			if cmd.Flags().Changed("seat") {
				params.Seat = &seat
			}
			res, err := a.api.GameHintWithResponse(cmd.Context(), id, params)
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			h := res.JSON200
			l := a.l
			fmt.Fprintln(a.out, l.T("cli.hint.move", "Seat", h.Seat, "Move", h.Notation))
			reasons := make([]string, len(h.Reasons))
			for i, r := range h.Reasons {
				reasons[i] = r.Text
			}
			if len(reasons) > 0 {
				fmt.Fprintln(a.out, l.T("cli.hint.because", "Reasons", l.List(reasons)))
			}
			fmt.Fprintln(a.out, l.T("cli.hint.play_with", "Game", id, "Move", h.Notation))
			return nil
		}),
	}
	cmd.Flags().IntVar(&seat, "seat", 0, a.l.T("cli.flag.hint_seat"))
	return cmd
}
