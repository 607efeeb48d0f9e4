package main

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/azuld/azuld/internal/apiclient"
)

// sayCommand writes a message to a game's table: azul say GAME text...
// (the words are joined with spaces, so the text needs no quotes).
func (a *app) sayCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "say GAME TEXT...",
		Args:              a.args(2, -1),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			// A retry of the same request after a lost answer says it
			// once.
			key := uuid.NewString()
			text := strings.Join(args[1:], " ")
			res, err := a.api.PostMessageWithResponse(cmd.Context(), id, &apiclient.PostMessageParams{IdempotencyKey: &key},
				apiclient.PostMessageJSONRequestBody{Text: text})
			if err := a.result(res, err, http.StatusCreated); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			fmt.Fprintln(a.out, a.l.T("cli.talk.sent", "Version", res.JSON201.Version))
			return nil
		}),
	}
}

// messagesCommand prints a game's table talk, oldest first: who, when,
// at which version of the game (its place in the replay), and the text.
func (a *app) messagesCommand() *cobra.Command {
	var after int
	cmd := &cobra.Command{
		Use:               "messages GAME",
		Args:              a.args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, _ []string) error {
			params := &apiclient.ListMessagesParams{}
			if after > 0 {
				params.After = &after
			}
			res, err := a.api.ListMessagesWithResponse(cmd.Context(), id, params)
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			a.printMessages(res.JSON200)
			return nil
		}),
	}
	cmd.Flags().IntVar(&after, "after", 0, a.l.T("cli.flag.messages_after"))
	return cmd
}

// printMessages prints a page of table talk.
func (a *app) printMessages(page *apiclient.Messages) {
	if len(page.Messages) == 0 {
		fmt.Fprintln(a.out, a.l.T("cli.talk.none"))
	}
	for _, m := range page.Messages {
		author := m.Author
		if deref(m.Erased) {
			author = a.l.T("talk.former_player")
		}
		// A message may hold newlines: the lines after the first are
		// indented under it.
		text := strings.ReplaceAll(m.Text, "\n", "\n    ")
		fmt.Fprintln(a.out, a.l.T("cli.talk.line", "Author", author, "Time", a.when(m.At),
			"Place", a.l.T("cli.talk.place", "Version", m.Version), "Text", text))
	}
	if page.Muted {
		fmt.Fprintln(a.out, a.l.T("cli.talk.muted_note"))
	}
}

// muteCommand is azul mute GAME (mute true) and azul unmute GAME.
func (a *app) muteCommand(name string, mute bool) *cobra.Command {
	return &cobra.Command{
		Use:               name + " GAME",
		Args:              a.args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, _ []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			res, err := a.api.MuteMessagesWithResponse(cmd.Context(), id, apiclient.MuteMessagesJSONRequestBody{Muted: mute})
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			msg := "cli.talk.unmuted"
			if mute {
				msg = "cli.talk.muted"
			}
			fmt.Fprintln(a.out, a.l.T(msg, "ID", id))
			return nil
		}),
	}
}
