package main

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/azuld/azuld/mail/compose"
)

// botsCommand is 'azul bots': the bot kinds a seat may hold (azul new
// --seat bot:KIND), each with its name and its rating in a rule set and
// number of players. It needs no account.
func (a *app) botsCommand() *cobra.Command {
	var ruleset string
	var players int
	cmd := &cobra.Command{
		Use:  "bots",
		Args: a.args(0, 0),
		RunE: a.wrapRun(func(cmd *cobra.Command, _ []string) error {
			if players < 2 || players > 4 {
				return a.usage("profile.cli.error.players", "Value", strconv.Itoa(players))
			}
			res, err := a.api.ListBotsWithResponse(cmd.Context())
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			l := a.l
			fmt.Fprintln(a.out, l.T("profile.cli.bots.heading", "Board", a.boardName(ruleset, players)))
			// Each row ends in an empty cell: the last column is padded too.
			rows := [][]string{{l.T("profile.cli.bots.kind"), l.T("profile.board.name_col"), l.T("profile.board.rating"), l.T("profile.board.games"), ""}}
			for _, b := range res.JSON200.Bots {
				rating, games := l.T("profile.cli.bots.unrated"), "0"
				for _, r := range b.Ratings {
					if deref(r.Ruleset) == ruleset && deref(r.Players) == players {
						rating, games = ratingText(r.Rating), strconv.Itoa(r.Games)
						if r.Provisional {
							rating += " " + l.T("profile.cli.provisional")
						}
					}
				}
				rows = append(rows, []string{b.Kind, b.Name, rating, games, ""})
			}
			fmt.Fprint(a.out, compose.Table(rows))
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVar(&ruleset, "ruleset", "azul-mini", a.l.T("profile.cli.flag.ruleset"))
	f.IntVar(&players, "players", 2, a.l.T("profile.cli.flag.players"))
	_ = cmd.RegisterFlagCompletionFunc("ruleset", cobra.FixedCompletions([]string{"azul-mini", "summer-pavilion", "summer-pavilion-mini"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
