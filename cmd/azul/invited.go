package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/azuld/azuld/internal/apiclient"
)

// answerInvitation accepts (joins) or declines the seats an open game
// keeps for the caller: what azul accept or decline does for a game that
// asks no take-back. A game that keeps no seat for the caller answers
// with the server's problem.
func (a *app) answerInvitation(ctx context.Context, id uuid.UUID, verb string) error {
	if verb == "accept" {
		res, err := a.api.JoinGameWithResponse(ctx, id, &apiclient.JoinGameParams{}, apiclient.JoinGameJSONRequestBody{})
		if err := a.result(res, err, http.StatusOK); err != nil {
			return err
		}
		return a.printJoined(res.Body, res.JSON200)
	}
	res, err := a.api.DeclineRematchWithResponse(ctx, id)
	if err := a.result(res, err, http.StatusOK); err != nil {
		return err
	}
	if a.jsonOut {
		return a.printJSON(res.Body)
	}
	fmt.Fprintln(a.out, a.l.T("cli.invited.declined", "ID", id))
	return nil
}
