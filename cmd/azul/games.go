package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/azuld/azuld/internal/apiclient"
)

// gameID reads a GAME argument (a usage error when it is no game id).
func gameID(arg string) (uuid.UUID, error) {
	id, err := uuid.Parse(arg)
	if err != nil || len(arg) != 36 {
		return uuid.UUID{}, usagef("%q is not a game id (a UUID, as 'azul games' lists them)", arg)
	}
	return id, nil
}

// completeGames offers the ids of the caller's games to the shell.
func (a *app) completeGames(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 || a.setup(cmd) != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	me := "me"
	res, err := a.api.ListGamesWithResponse(cmd.Context(), &apiclient.ListGamesParams{Player: &me})
	if err != nil || res.JSON200 == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, g := range res.JSON200.Games {
		if g.Id != nil {
			out = append(out, fmt.Sprintf("%s\t%s %s", g.Id, deref(g.Ruleset), deref(g.Status)))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// waited is a duration for people: "3d4h", "2h13m", "5m", "just now".
func waited(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}

func (a *app) gamesCommand() *cobra.Command {
	var status string
	var limit int
	cmd := &cobra.Command{
		Use:   "games",
		Short: "List your games, those waiting for your move first, with how long each has waited",
		Args:  args(0, 0),
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			ctx := cmd.Context()
			turns, err := a.api.MyTurnsWithResponse(ctx)
			if err := a.result(turns, err, http.StatusOK); err != nil {
				return err
			}
			me := "me"
			params := &apiclient.ListGamesParams{Player: &me, Limit: &limit}
			if status != "" {
				s := apiclient.ListGamesParamsStatus(status)
				params.Status = &s
			}
			list, err := a.api.ListGamesWithResponse(ctx, params)
			if err := a.result(list, err, http.StatusOK); err != nil {
				return err
			}
			if a.jsonOut {
				out, err := json.Marshal(map[string]json.RawMessage{"turns": turns.Body, "games": list.Body})
				if err != nil {
					return fmt.Errorf("encode the output: %w", err)
				}
				return a.printJSON(out)
			}
			a.printGames(turns.JSON200.Turns, list.JSON200.Games, time.Now())
			return nil
		}),
	}
	cmd.Flags().StringVar(&status, "status", "", "only games that are open, active or finished")
	cmd.Flags().IntVar(&limit, "limit", 50, "at most this many games (1 to 200)")
	_ = cmd.RegisterFlagCompletionFunc("status", cobra.FixedCompletions([]string{"open", "active", "finished"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// printGames writes the turn inbox, longest waiting first, then the
// other games, latest move first.
func (a *app) printGames(turns []apiclient.Turn, games []apiclient.GameSummary, now time.Time) {
	slices.SortStableFunc(turns, func(x, y apiclient.Turn) int { return x.Since.Compare(y.Since) })
	mine := map[string]bool{}
	if len(turns) > 0 {
		fmt.Fprintln(a.out, "Your turn:")
		for _, t := range turns {
			mine[t.GameId.String()] = true
			line := fmt.Sprintf("  %s  %-20s seat %s  waiting %s", t.GameId, t.Ruleset, joinInts(t.Seats), waited(now.Sub(t.Since)))
			if t.Deadline != nil {
				line += fmt.Sprintf(", deadline in %s", waited(t.Deadline.Sub(now)))
			}
			fmt.Fprintln(a.out, line)
		}
	} else {
		fmt.Fprintln(a.out, "No game is waiting for you.")
	}
	var others []apiclient.GameSummary
	for _, g := range games {
		if g.Id != nil && !mine[g.Id.String()] {
			others = append(others, g)
		}
	}
	if len(others) == 0 {
		return
	}
	fmt.Fprintln(a.out, "\nOther games:")
	for _, g := range others {
		line := fmt.Sprintf("  %s  %-20s %-8s", g.Id, deref(g.Ruleset), deref(g.Status))
		switch deref(g.Status) {
		case "active":
			line += fmt.Sprintf(" waiting for %s %s", seatNames(deref(g.Seats), deref(g.ToAct)), waited(now.Sub(deref(g.LastMoveAt))))
		case "open":
			line += fmt.Sprintf(" open for %s", waited(now.Sub(deref(g.CreatedAt))))
		case "finished":
			if g.Final != nil {
				line += " won by " + seatNames(deref(g.Seats), deref(g.Final.Winners))
			}
		}
		fmt.Fprintln(a.out, line)
	}
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// seatNames is "seat 1 (Bob), seat 2 (random bot)".
func seatNames(seats []apiclient.Seat, which []int) string {
	var out []string
	for _, n := range which {
		name := ""
		for _, s := range seats {
			if s.Seat == n {
				name = deref(s.Name)
			}
		}
		if name == "" {
			out = append(out, fmt.Sprintf("seat %d", n))
		} else {
			out = append(out, fmt.Sprintf("seat %d (%s)", n, name))
		}
	}
	if len(out) == 0 {
		return "nobody"
	}
	return strings.Join(out, ", ")
}

func (a *app) newCommand() *cobra.Command {
	var (
		ruleset, wall, board, wildOrder, seed string
		seats                                 []string
		perMove, onTimeout, remindBefore      string
	)
	cmd := &cobra.Command{
		Use:   "new",
		Short: "Create a game",
		Long: `Create a game. Each --seat is one seat, in order: "me", "open" (anyone
may join), "bot" or "bot:random", or a player id. Without --seat the game
has two seats: you and an open one.`,
		Example: `  azul new --seat me --seat bot
  azul new --ruleset summer-pavilion --board monochrome --seat me --seat open --seat open
  azul new --seat me --seat 0f8fad5b-d9cb-469f-a165-70867728950e --per-move 72h --on-timeout bot`,
		Args: args(0, 0),
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			req := apiclient.CreateGame{Ruleset: apiclient.Ruleset(ruleset)}
			if !req.Ruleset.Valid() {
				return usagef("unknown rule set %q (azul-mini, summer-pavilion, summer-pavilion-mini)", ruleset)
			}
			var opts apiclient.Options
			set := false
			if wall != "" {
				w := apiclient.OptionsWall(wall)
				opts.Wall, set = &w, true
			}
			if board != "" {
				b := apiclient.OptionsBoard(board)
				opts.Board, set = &b, true
			}
			if wildOrder != "" {
				order := strings.Split(wildOrder, ",")
				opts.WildOrder, set = &order, true
			}
			if set {
				req.Options = &opts
			}
			if len(seats) == 0 {
				seats = []string{"me", "open"}
			}
			for _, s := range seats {
				spec, err := seatSpec(s)
				if err != nil {
					return err
				}
				req.Seats = append(req.Seats, spec)
			}
			if perMove != "" || onTimeout != "" || remindBefore != "" {
				tc, err := timeControl(perMove, onTimeout, remindBefore)
				if err != nil {
					return err
				}
				req.TimeControl = tc
			}
			if seed != "" {
				req.Seed = &seed
			}
			res, err := a.api.CreateGameWithResponse(cmd.Context(), &apiclient.CreateGameParams{}, req)
			if err := a.result(res, err, http.StatusCreated); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			g := res.JSON201
			fmt.Fprintf(a.out, "Created game %s (%s, %s).\n", g.Id, g.Ruleset, g.Status)
			for _, s := range g.Seats {
				fmt.Fprintf(a.out, "  seat %d: %s\n", s.Seat, seatLabel(s, g.YourSeats))
			}
			fmt.Fprintf(a.out, "Show it with: azul show %s\n", g.Id)
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVar(&ruleset, "ruleset", "azul-mini", "rule set: azul-mini, summer-pavilion or summer-pavilion-mini")
	f.StringVar(&wall, "wall", "", "azul-mini: coloured or grey wall")
	f.StringVar(&board, "board", "", "Summer Pavilion: coloured or monochrome board side")
	f.StringVar(&wildOrder, "wild-order", "", "Summer Pavilion: the six wild colours' order, comma-separated")
	f.StringArrayVar(&seats, "seat", nil, `a seat: "me", "open", "bot[:random]" or a player id (repeat, in seat order)`)
	f.StringVar(&perMove, "per-move", "", "time control: time for each move, e.g. 72h")
	f.StringVar(&onTimeout, "on-timeout", "", "time control: bot (a bot moves) or forfeit")
	f.StringVar(&remindBefore, "remind-before", "", "time control: remind this long before the deadline, e.g. 12h")
	f.StringVar(&seed, "seed", "", "the game's seed, 64 hex digits (public: anyone can replay the draws)")
	comp := func(name string, values ...string) {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	}
	comp("ruleset", "azul-mini", "summer-pavilion", "summer-pavilion-mini")
	comp("wall", "coloured", "grey")
	comp("board", "coloured", "monochrome")
	comp("seat", "me", "open", "bot", "bot:random")
	comp("on-timeout", "bot", "forfeit")
	return cmd
}

// seatSpec reads one --seat.
func seatSpec(s string) (apiclient.SeatSpec, error) {
	switch {
	case s == "open":
		return apiclient.SeatSpec{}, nil
	case s == "me":
		return apiclient.SeatSpec{Player: &s}, nil
	case s == "bot" || strings.HasPrefix(s, "bot:"):
		kind := apiclient.SeatSpecBot("random")
		if k, ok := strings.CutPrefix(s, "bot:"); ok {
			kind = apiclient.SeatSpecBot(k)
		}
		if !kind.Valid() {
			return apiclient.SeatSpec{}, usagef("unknown bot %q (random)", kind)
		}
		return apiclient.SeatSpec{Bot: &kind}, nil
	}
	if _, err := uuid.Parse(s); err != nil {
		return apiclient.SeatSpec{}, usagef(`--seat %q: give "me", "open", "bot", "bot:KIND" or a player id`, s)
	}
	return apiclient.SeatSpec{Player: &s}, nil
}

// timeControl reads the time control flags; durations are Go durations.
func timeControl(perMove, onTimeout, remindBefore string) (*apiclient.TimeControl, error) {
	tc := &apiclient.TimeControl{}
	for _, d := range []struct {
		flag, value string
		dst         **apiclient.Duration
	}{{"per-move", perMove, &tc.PerMove}, {"remind-before", remindBefore, &tc.RemindBefore}} {
		if d.value == "" {
			continue
		}
		if _, err := time.ParseDuration(d.value); err != nil {
			return nil, usagef("--%s %q: give a duration such as 72h or 90m", d.flag, d.value)
		}
		var dur apiclient.Duration
		if err := dur.FromDuration0(d.value); err != nil {
			return nil, fmt.Errorf("--%s: %w", d.flag, err)
		}
		*d.dst = &dur
	}
	if onTimeout != "" {
		o := apiclient.TimeControlOnTimeout(onTimeout)
		if !o.Valid() {
			return nil, usagef("--on-timeout %q: bot or forfeit", onTimeout)
		}
		tc.OnTimeout = &o
	}
	return tc, nil
}

// seatLabel describes a seat for its creator or joiner.
func seatLabel(s apiclient.Seat, yours []int) string {
	switch {
	case slices.Contains(yours, s.Seat):
		return "you (" + deref(s.Name) + ")"
	case s.Bot != nil:
		return deref(s.Bot) + " bot"
	case s.PlayerId != nil && *s.PlayerId != "":
		return deref(s.Name)
	}
	return "open"
}

func (a *app) joinCommand() *cobra.Command {
	var seat int
	cmd := &cobra.Command{
		Use:               "join GAME",
		Short:             "Take an open seat of a game (the first one, or --seat N)",
		Args:              args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			params := &apiclient.JoinGameParams{}
			if cmd.Flags().Changed("seat") {
				params.Seat = &seat
			}
			res, err := a.api.JoinGameWithResponse(cmd.Context(), id, params, apiclient.JoinGameJSONRequestBody{})
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			g := res.JSON200
			fmt.Fprintf(a.out, "Joined game %s at seat %s; it is %s.\n", g.Id, joinInts(g.YourSeats), g.Status)
			return nil
		}),
	}
	cmd.Flags().IntVar(&seat, "seat", 0, "the seat to take (default: the first open one)")
	return cmd
}
