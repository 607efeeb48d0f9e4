package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/azuld/azuld/internal/apiclient"
	"github.com/azuld/azuld/mail/compose"
)

// ratingsCommand is 'azul ratings': a leaderboard as a table. It needs
// no account.
func (a *app) ratingsCommand() *cobra.Command {
	var ruleset, cursor string
	var players int
	var provisional bool
	cmd := &cobra.Command{
		Use:  "ratings",
		Args: a.args(0, 0),
		RunE: a.wrapRun(func(cmd *cobra.Command, _ []string) error {
			if players < 2 || players > 4 {
				return a.usage("profile.cli.error.players", "Value", strconv.Itoa(players))
			}
			params := &apiclient.ListRatingsParams{Ruleset: apiclient.Ruleset(ruleset), Players: &players}
			if provisional {
				p := apiclient.ListRatingsParamsProvisional(1)
				params.Provisional = &p
			}
			if cursor != "" {
				params.Cursor = &cursor
			}
			res, err := a.api.ListRatingsWithResponse(cmd.Context(), params)
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			a.printLeaderboard(res.JSON200)
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVar(&ruleset, "ruleset", "azul-mini", a.l.T("profile.cli.flag.ruleset"))
	f.IntVar(&players, "players", 2, a.l.T("profile.cli.flag.players"))
	f.BoolVar(&provisional, "provisional", false, a.l.T("profile.cli.flag.provisional"))
	f.StringVar(&cursor, "cursor", "", a.l.T("profile.cli.flag.cursor"))
	_ = cmd.RegisterFlagCompletionFunc("ruleset", cobra.FixedCompletions([]string{"azul-mini", "summer-pavilion", "summer-pavilion-mini"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// ratingText writes a rating with one decimal.
func ratingText(f float32) string { return strconv.FormatFloat(float64(f), 'f', 1, 32) }

// boardName names a rule set and number of players ("Azul Mini, 2
// players").
func (a *app) boardName(ruleset string, players int) string {
	return a.l.N("profile.board.name", players, "Ruleset", a.ruleset(ruleset))
}

// profileBotName is a bot kind's name as profiles show it.
func (a *app) profileBotName(kind string) string {
	if id := "profile.bot_name." + kind; a.cat.Has(id) {
		return a.l.T(id)
	}
	return kind
}

func (a *app) printLeaderboard(b *apiclient.Leaderboard) {
	l := a.l
	fmt.Fprintln(a.out, l.T("profile.cli.active", "Board", a.boardName(b.Ruleset, b.Players)))
	if len(b.Ratings) == 0 {
		fmt.Fprintln(a.out, l.T("profile.cli.none"))
		return
	}
	// Each row ends in an empty cell: the last column is padded too.
	rows := [][]string{{l.T("profile.board.rank"), l.T("profile.board.name_col"), l.T("profile.board.rating"),
		l.T("profile.board.games"), l.T("profile.board.last_game"), ""}}
	for i, r := range b.Ratings {
		name := deref(r.Name)
		if r.Bot != nil {
			name = a.profileBotName(*r.Bot)
		}
		if r.Provisional {
			name += " " + l.T("profile.cli.provisional")
		}
		rows = append(rows, []string{strconv.Itoa(i + 1), name, ratingText(r.Rating), strconv.Itoa(r.Games), l.Date(r.LastGameAt), ""})
	}
	fmt.Fprint(a.out, compose.Table(rows))
	if b.NextCursor != nil {
		fmt.Fprintln(a.out, l.T("profile.cli.more", "Ruleset", b.Ruleset, "Players", strconv.Itoa(b.Players), "Cursor", *b.NextCursor))
	}
}

// profileCommand is 'azul profile [PLAYER]': a player's (or a bot's)
// profile; without PLAYER the caller's own.
//
// With --games finished|running it lists the player's games instead, a
// page at a time (--cursor the next; --all every page).
func (a *app) profileCommand() *cobra.Command {
	var games, cursor string
	var all bool
	cmd := &cobra.Command{
		Use:  "profile [PLAYER]",
		Args: a.args(0, 1),
		RunE: a.wrapRun(func(cmd *cobra.Command, args []string) error {
			id := "me"
			if len(args) == 1 {
				id = strings.TrimSpace(args[0])
			}
			if id == "" || strings.ContainsAny(id, "/?#% ") {
				return a.usage("profile.cli.error.bad_player", "Value", id)
			}
			switch games {
			case "":
				if all || cursor != "" {
					return a.usage("profile.cli.error.needs_games")
				}
			case "finished", "running":
			default:
				return a.usage("profile.cli.error.games", "Value", games)
			}
			if id == "me" {
				if err := a.needToken(); err != nil {
					return err
				}
			}
			if games != "" {
				return a.playerGames(cmd, id, games, cursor, all)
			}
			res, err := a.api.GetPlayerProfileWithResponse(cmd.Context(), id)
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			a.printPlayerProfile(id, res.JSON200)
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVar(&games, "games", "", a.l.T("profile.cli.flag.games"))
	f.BoolVar(&all, "all", false, a.l.T("profile.cli.flag.all"))
	f.StringVar(&cursor, "cursor", "", a.l.T("profile.cli.flag.cursor"))
	_ = cmd.RegisterFlagCompletionFunc("games", cobra.FixedCompletions([]string{"finished", "running"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// playerGames prints a player's finished or running games: one page (the
// one after cursor), or with all every page. With --json, each page's
// body on its own line.
func (a *app) playerGames(cmd *cobra.Command, id, status, cursor string, all bool) error {
	l := a.l
	st := apiclient.ListPlayerGamesParamsStatus(status)
	heading := map[string]string{"finished": "profile.cli.list.finished", "running": "profile.cli.running"}[status]
	printed := false
	for {
		params := &apiclient.ListPlayerGamesParams{Status: &st}
		if cursor != "" {
			params.Cursor = &cursor
		}
		res, err := a.api.ListPlayerGamesWithResponse(cmd.Context(), id, params)
		if err := a.result(res, err, http.StatusOK); err != nil {
			return err
		}
		page := res.JSON200
		if a.jsonOut {
			if err := a.printJSON(res.Body); err != nil {
				return err
			}
		} else {
			if page.GamesHidden {
				fmt.Fprintln(a.out, l.T("profile.cli.hidden"))
				return nil
			}
			if !printed {
				fmt.Fprintln(a.out, l.T(heading))
				if len(page.Games) == 0 {
					fmt.Fprintln(a.out, "  "+l.T("profile.cli.list.none"))
				}
				printed = true
			}
			a.printProfileGames(page.Games)
		}
		next := deref(page.NextCursor)
		if next == "" {
			return nil
		}
		if !all {
			if !a.jsonOut {
				fmt.Fprintln(a.out, l.T("profile.cli.list.more", "Player", id, "Status", status, "Cursor", next))
			}
			return nil
		}
		cursor = next
	}
}

// printPlayerProfile prints a profile; id is the player as the command
// named them (for the hint that pages on through their games).
func (a *app) printPlayerProfile(id string, p *apiclient.PlayerProfile) {
	l := a.l
	out := a.out
	fmt.Fprintln(out, p.Name)
	if p.MemberSince != nil {
		fmt.Fprintln(out, l.T("profile.cli.member_since", "Date", l.Date(p.MemberSince.Time)))
	} else {
		fmt.Fprintln(out, l.T("profile.cli.bot"))
	}
	section := func(id string) { fmt.Fprintln(out, "\n"+l.T(id)) }

	section("profile.cli.ratings")
	if len(p.Ratings) == 0 {
		fmt.Fprintln(out, "  "+l.T("profile.cli.no_ratings"))
	}
	var rows [][]string
	for _, r := range p.Ratings {
		line := l.T("profile.cli.rating_line", "Rating", ratingText(r.Rating), "Mu", ratingText(r.Mu), "Sigma", ratingText(r.Sigma))
		if r.Provisional {
			line += " " + l.T("profile.cli.provisional")
		}
		rows = append(rows, []string{"  " + a.boardName(deref(r.Ruleset), deref(r.Players)), line, l.N("profile.cli.games", r.Games)})
	}
	fmt.Fprint(out, compose.Table(rows))

	section("profile.cli.results")
	if len(p.Results) == 0 {
		fmt.Fprintln(out, "  "+l.T("profile.cli.no_results"))
	}
	rows = nil
	for _, r := range p.Results {
		share := l.Percent(float64(r.Wins) / float64(max(r.Games, 1)))
		rows = append(rows, []string{"  " + a.boardName(r.Ruleset, r.Players), l.N("profile.cli.games", r.Games),
			l.N("profile.cli.result_line", r.Wins, "Share", share, "Rank", ratingText(r.MeanRank),
				"Score", ratingText(r.MeanScore), "Best", l.Num(r.BestScore))})
	}
	fmt.Fprint(out, compose.Table(rows))

	if p.Bot != nil {
		return
	}
	if p.GamesHidden {
		fmt.Fprintln(out, "\n"+l.T("profile.cli.hidden"))
		return
	}
	if h := p.HeadToHead; h != nil {
		section("profile.cli.h2h")
		fmt.Fprintln(out, "  "+l.N("profile.h2h.games", h.Games))
		if h.Games > 0 {
			fmt.Fprintln(out, "  "+l.T("profile.cli.h2h_line", "Name", p.Name, "Ahead", l.Num(h.Ahead), "Behind", l.Num(h.Behind), "Tied", l.Num(h.Tied)))
		}
	}
	games := func(title string, list *[]apiclient.ProfileGame, status string, more *string) {
		if list == nil || len(*list) == 0 {
			return
		}
		section(title)
		a.printProfileGames(*list)
		if more != nil && *more != "" {
			fmt.Fprintln(out, "  "+l.T("profile.cli.list.more", "Player", id, "Status", status, "Cursor", *more))
		}
	}
	games("profile.cli.running", p.RunningGames, "running", p.RunningGamesCursor)
	games("profile.cli.recent", p.RecentGames, "finished", p.RecentGamesCursor)
}

// printProfileGames prints games of a player's profile (or of their
// list), one a line.
func (a *app) printProfileGames(list []apiclient.ProfileGame) {
	l := a.l
	var rows [][]string
	for _, g := range list {
		var opp []string
		for _, o := range g.Opponents {
			opp = append(opp, a.profileSeatName(o))
		}
		what := ""
		switch {
		case g.Rank != nil && *g.Rank == 1:
			what = l.T("profile.game.won", "Points", l.N("game.points", deref(g.Score)))
		case g.Rank != nil:
			what = l.T("profile.game.placed", "Rank", l.Num(*g.Rank), "Points", l.N("game.points", deref(g.Score)))
		case g.ToAct != nil:
			var names []string
			for _, s := range *g.ToAct {
				names = append(names, a.profileSeatName(s))
			}
			what = l.T("profile.game.turn_of", "Names", l.List(names))
		}
		against := ""
		if len(opp) > 0 {
			against = l.T("profile.game.against") + " " + l.List(opp)
		}
		rows = append(rows, []string{"  " + g.Id.String(), a.ruleset(g.Ruleset), against, what, l.Date(g.LastMoveAt)})
	}
	fmt.Fprint(a.out, compose.Table(rows))
}

// profileSeatName is a profile game's seat in words: the player's name, or the
// bot's.
func (a *app) profileSeatName(s apiclient.ProfileSeat) string {
	if s.Bot != nil && *s.Bot != "" {
		return a.profileBotName(*s.Bot)
	}
	return s.Name
}
