package main

import (
	"context"
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
func (a *app) gameID(arg string) (uuid.UUID, error) {
	id, err := uuid.Parse(arg)
	if err != nil || len(arg) != 36 {
		return uuid.UUID{}, a.usage("cli.error.bad_game_id", "Value", arg)
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
			out = append(out, fmt.Sprintf("%s\t%s, %s", g.Id, a.ruleset(string(deref(g.Ruleset))), a.status(string(deref(g.Status)))))
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

// waited is a duration for people, in their words: "3 days 4 hours".
func (a *app) waited(d time.Duration) string { return a.l.Span(d) }

// ruleset is a rule set's name for people.
func (a *app) ruleset(r string) string {
	if id := "game.ruleset." + r; a.cat.Has(id) {
		return a.l.T(id)
	}
	return r
}

// status is a game's status in words.
func (a *app) status(s string) string {
	if id := "cli.status." + s; a.cat.Has(id) {
		return a.l.T(id)
	}
	return s
}

func (a *app) gamesCommand() *cobra.Command {
	var status string
	var limit int
	var watch bool
	cmd := &cobra.Command{
		Use:  "games",
		Args: a.args(0, 0),
		RunE: a.wrapRun(func(cmd *cobra.Command, _ []string) error {
			if watch {
				return a.watchList(cmd.Context(), limit)
			}
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
					return a.wrapf(err, "cli.error.encode")
				}
				return a.printJSON(out)
			}
			a.printGames(turns.JSON200.Turns, list.JSON200.Games, time.Now())
			return nil
		}),
	}
	cmd.Flags().StringVar(&status, "status", "", a.l.T("cli.flag.status"))
	cmd.Flags().IntVar(&limit, "limit", 50, a.l.T("cli.flag.limit"))
	cmd.Flags().BoolVar(&watch, "watch", false, a.l.T("cli.flag.watch"))
	cmd.MarkFlagsMutuallyExclusive("watch", "status")
	_ = cmd.RegisterFlagCompletionFunc("status", cobra.FixedCompletions([]string{"open", "active", "finished"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// watchList prints the running public games, best-rated first (GET
// /v1/games?watch=1), which anyone may watch.
func (a *app) watchList(ctx context.Context, limit int) error {
	w := apiclient.ListGamesParamsWatchN1
	list, err := a.api.ListGamesWithResponse(ctx, &apiclient.ListGamesParams{Watch: &w, Limit: &limit})
	if err := a.result(list, err, http.StatusOK); err != nil {
		return err
	}
	if a.jsonOut {
		return a.printJSON(list.Body)
	}
	a.printWatch(list.JSON200.Games, time.Now())
	return nil
}

// printWatch writes the watch list, in its order.
func (a *app) printWatch(games []apiclient.GameSummary, now time.Time) {
	l := a.l
	if len(games) == 0 {
		fmt.Fprintln(a.out, l.T("cli.games.no_watch"))
		return
	}
	fmt.Fprintln(a.out, l.T("cli.games.watch"))
	for _, g := range games {
		var seats []int
		for _, s := range deref(g.Seats) {
			seats = append(seats, s.Seat)
		}
		fmt.Fprintf(a.out, "  %s  %-22s %s\n", g.Id, a.ruleset(string(deref(g.Ruleset))),
			l.T("cli.games.watch_line", "Players", a.seatNames(deref(g.Seats), seats), "Span", a.waited(now.Sub(deref(g.LastMoveAt)))))
	}
}

// printGames writes the turn inbox, longest waiting first, then the
// other games, latest move first.
func (a *app) printGames(turns []apiclient.Turn, games []apiclient.GameSummary, now time.Time) {
	l := a.l
	slices.SortStableFunc(turns, func(x, y apiclient.Turn) int { return x.Since.Compare(y.Since) })
	mine := map[string]bool{}
	if len(turns) > 0 {
		fmt.Fprintln(a.out, l.T("cli.games.your_turn"))
		for _, t := range turns {
			mine[t.GameId.String()] = true
			line := fmt.Sprintf("  %s  %-22s %s", t.GameId, a.ruleset(string(t.Ruleset)),
				l.T("cli.games.waiting", "Seats", a.seatList(t.Seats), "Span", a.waited(now.Sub(t.Since))))
			if t.Deadline != nil {
				line += l.T("cli.games.deadline", "In", l.In(t.Deadline.Sub(now)), "Time", l.Time(*t.Deadline))
			}
			fmt.Fprintln(a.out, line)
		}
	} else {
		fmt.Fprintln(a.out, l.T("cli.games.none_waiting"))
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
	fmt.Fprintln(a.out, "\n"+l.T("cli.games.others"))
	for _, g := range others {
		line := fmt.Sprintf("  %s  %-22s %-10s", g.Id, a.ruleset(string(deref(g.Ruleset))), a.status(string(deref(g.Status))))
		switch deref(g.Status) {
		case "active":
			line += " " + l.T("cli.games.waiting_for", "Seats", a.seatNames(deref(g.Seats), deref(g.ToAct)), "Span", a.waited(now.Sub(deref(g.LastMoveAt))))
		case "open":
			line += " " + l.T("cli.games.open_for", "Span", a.waited(now.Sub(deref(g.CreatedAt))))
		case "finished":
			if g.Final != nil {
				line += " " + l.T("cli.games.won_by", "Seats", a.seatNames(deref(g.Seats), deref(g.Final.Winners)))
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

// seatList is "seat 1" or "seats 1,2" in the reader's words.
func (a *app) seatList(seats []int) string {
	return a.l.N("cli.seat.list", len(seats), "Seats", joinInts(seats))
}

// seatNames is "seat 1 (Bob), seat 2 (random bot)".
func (a *app) seatNames(seats []apiclient.Seat, which []int) string {
	var out []string
	for _, n := range which {
		name := ""
		for _, s := range seats {
			if s.Seat == n {
				name = deref(s.Name)
				if name == "" && s.Bot != nil {
					name = a.botName(*s.Bot)
				}
			}
		}
		if name == "" {
			out = append(out, a.l.T("cli.seat.n", "N", n))
		} else {
			out = append(out, a.l.T("cli.seat.named", "N", n, "Name", name))
		}
	}
	if len(out) == 0 {
		return a.l.T("cli.seat.nobody")
	}
	return strings.Join(out, ", ")
}

// botName is a bot's kind in words: "random bot", "zoekbot"; a kind
// this client does not know keeps its raw name.
func (a *app) botName(kind string) string {
	if id := "game.bot." + kind; a.cat.Has(id) {
		return a.l.T(id)
	}
	return a.l.T("cli.seat.bot", "Kind", kind)
}

func (a *app) newCommand() *cobra.Command {
	var (
		ruleset, wall, board, wildOrder, seed string
		seats                                 []string
		perMove, onTimeout, remindBefore      string
		unrated, private, public, publicChat  bool
	)
	cmd := &cobra.Command{
		Use: "new",
		Long: `Create a game. Each --seat is one seat, in order: "me", "open" (anyone
may join), "bot" (a random bot) or "bot:KIND" (random, greedy, search,
level1 … level6; "azul bots" lists them), or a player id. Without --seat
the game has two seats: you and an open one.`,
		Example: `  azul new --seat me --seat bot
  azul new --unrated --seat me --seat bot:level3
  azul new --unrated --private --seat me --seat open
  azul new --ruleset summer-pavilion --board monochrome --seat me --seat open --seat open
  azul new --seat me --seat 0f8fad5b-d9cb-469f-a165-70867728950e --per-move 72h --on-timeout bot`,
		Args: a.args(0, 0),
		RunE: a.wrapRun(func(cmd *cobra.Command, _ []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			req := apiclient.CreateGame{Ruleset: apiclient.Ruleset(ruleset)}
			if !req.Ruleset.Valid() {
				return a.usage("cli.new.unknown_ruleset", "Value", ruleset, "List", "azul-mini, summer-pavilion, summer-pavilion-mini")
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
				spec, err := a.seatSpec(s)
				if err != nil {
					return err
				}
				req.Seats = append(req.Seats, spec)
			}
			if perMove != "" || onTimeout != "" || remindBefore != "" {
				tc, err := a.timeControl(perMove, onTimeout, remindBefore)
				if err != nil {
					return err
				}
				req.TimeControl = tc
			}
			if seed != "" {
				req.Seed = &seed
			}
			if unrated {
				rated := false
				req.Rated = &rated
			}
			switch {
			case private:
				v := apiclient.CreateGameVisibilityPrivate
				req.Visibility = &v
			case public:
				v := apiclient.CreateGameVisibilityPublic
				req.Visibility = &v
			}
			if publicChat {
				chat := apiclient.CreateGameChatPublic
				req.Chat = &chat
			}
			res, err := a.api.CreateGameWithResponse(cmd.Context(), &apiclient.CreateGameParams{}, req)
			if err := a.result(res, err, http.StatusCreated); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			g := res.JSON201
			fmt.Fprintln(a.out, a.l.T("cli.new.created", "ID", g.Id, "Ruleset", a.ruleset(string(g.Ruleset)), "Status", a.status(string(g.Status))))
			for _, s := range g.Seats {
				fmt.Fprintf(a.out, "  %s: %s\n", a.l.T("cli.seat.n", "N", s.Seat), a.seatLabel(s, g.YourSeats))
			}
			if link := deref(g.InvitationUrl); link != "" {
				fmt.Fprintln(a.out, a.l.T("cli.new.invitation", "Link", link))
			}
			fmt.Fprintln(a.out, a.l.T("cli.new.show_with", "Command", "azul show "+g.Id.String()))
			return nil
		}),
	}
	f := cmd.Flags()
	l := a.l
	f.StringVar(&ruleset, "ruleset", "azul-mini", l.T("cli.flag.ruleset"))
	f.StringVar(&wall, "wall", "", l.T("cli.flag.wall"))
	f.StringVar(&board, "board", "", l.T("cli.flag.board"))
	f.StringVar(&wildOrder, "wild-order", "", l.T("cli.flag.wild_order"))
	f.StringArrayVar(&seats, "seat", nil, l.T("cli.flag.seat"))
	f.StringVar(&perMove, "per-move", "", l.T("cli.flag.per_move"))
	f.StringVar(&onTimeout, "on-timeout", "", l.T("cli.flag.on_timeout"))
	f.StringVar(&remindBefore, "remind-before", "", l.T("cli.flag.remind_before"))
	f.StringVar(&seed, "seed", "", l.T("cli.flag.seed"))
	f.BoolVar(&unrated, "unrated", false, l.T("cli.flag.unrated"))
	f.BoolVar(&private, "private", false, l.T("cli.flag.private"))
	f.BoolVar(&public, "public", false, l.T("cli.flag.public"))
	f.BoolVar(&publicChat, "public-chat", false, l.T("cli.flag.public_chat"))
	cmd.MarkFlagsMutuallyExclusive("private", "public")
	comp := func(name string, values ...string) {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	}
	comp("ruleset", "azul-mini", "summer-pavilion", "summer-pavilion-mini")
	comp("wall", "coloured", "grey")
	comp("board", "coloured", "monochrome")
	seatValues := []string{"me", "open", "bot"}
	for _, k := range botKinds {
		seatValues = append(seatValues, "bot:"+string(k))
	}
	comp("seat", seatValues...)
	comp("on-timeout", "bot", "forfeit")
	return cmd
}

// botKinds are the bot kinds a seat may hold, in the order the server
// lists them (GET /v1/bots).
var botKinds = []apiclient.SeatSpecBot{
	apiclient.SeatSpecBotRandom, apiclient.SeatSpecBotGreedy, apiclient.SeatSpecBotSearch,
	apiclient.SeatSpecBotLevel1, apiclient.SeatSpecBotLevel2, apiclient.SeatSpecBotLevel3,
	apiclient.SeatSpecBotLevel4, apiclient.SeatSpecBotLevel5, apiclient.SeatSpecBotLevel6,
}

// botKindList is botKinds for a message: "random, greedy, …".
func botKindList() string {
	names := make([]string, len(botKinds))
	for i, k := range botKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// seatSpec reads one --seat.
func (a *app) seatSpec(s string) (apiclient.SeatSpec, error) {
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
			return apiclient.SeatSpec{}, a.usage("cli.new.unknown_bot", "Value", string(kind), "List", botKindList())
		}
		return apiclient.SeatSpec{Bot: &kind}, nil
	}
	if _, err := uuid.Parse(s); err != nil {
		return apiclient.SeatSpec{}, a.usage("cli.new.bad_seat", "Value", s)
	}
	return apiclient.SeatSpec{Player: &s}, nil
}

// timeControl reads the time control flags; durations are Go durations.
func (a *app) timeControl(perMove, onTimeout, remindBefore string) (*apiclient.TimeControl, error) {
	tc := &apiclient.TimeControl{}
	for _, d := range []struct {
		flag, value string
		dst         **apiclient.Duration
	}{{"per-move", perMove, &tc.PerMove}, {"remind-before", remindBefore, &tc.RemindBefore}} {
		if d.value == "" {
			continue
		}
		if _, err := time.ParseDuration(d.value); err != nil {
			return nil, a.usage("cli.new.bad_duration", "Flag", "--"+d.flag, "Value", d.value)
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
			return nil, a.usage("cli.new.bad_on_timeout", "Value", onTimeout)
		}
		tc.OnTimeout = &o
	}
	return tc, nil
}

// seatLabel describes a seat for its creator or joiner.
func (a *app) seatLabel(s apiclient.Seat, yours []int) string {
	switch {
	case slices.Contains(yours, s.Seat):
		return a.l.T("cli.seat.you_named", "Name", deref(s.Name))
	case s.Bot != nil:
		return a.botName(deref(s.Bot))
	case s.PlayerId != nil && *s.PlayerId != "":
		return deref(s.Name)
	}
	return a.l.T("cli.seat.open")
}

func (a *app) joinCommand() *cobra.Command {
	var seat int
	cmd := &cobra.Command{
		Use:               "join GAME|LINK",
		Args:              a.args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: a.wrapRun(func(cmd *cobra.Command, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			id, err := uuid.Parse(args[0])
			if err != nil || len(args[0]) != 36 {
				if cmd.Flags().Changed("seat") {
					return a.usage("cli.join.seat_with_link")
				}
				return a.acceptInvitation(cmd.Context(), args[0])
			}
			params := &apiclient.JoinGameParams{}
			if cmd.Flags().Changed("seat") {
				params.Seat = &seat
			}
			res, err := a.api.JoinGameWithResponse(cmd.Context(), id, params, apiclient.JoinGameJSONRequestBody{})
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			return a.printJoined(res.Body, res.JSON200)
		}),
	}
	cmd.Flags().IntVar(&seat, "seat", 0, a.l.T("cli.flag.join_seat"))
	return cmd
}

// acceptInvitation takes the seat an invitation link (or its token)
// offers.
func (a *app) acceptInvitation(ctx context.Context, arg string) error {
	token, ok := invitationToken(arg)
	if !ok {
		return a.usage("cli.join.bad_arg", "Value", arg)
	}
	res, err := a.api.AcceptInvitationWithResponse(ctx, apiclient.AcceptInvitationJSONRequestBody{Token: token})
	if err := a.result(res, err, http.StatusOK); err != nil {
		return err
	}
	return a.printJoined(res.Body, res.JSON200)
}

// printJoined tells of the seats a join or an accepted invitation gave
// (body as it came, for --json).
func (a *app) printJoined(body []byte, g *apiclient.GameResponse) error {
	if a.jsonOut {
		return a.printJSON(body)
	}
	fmt.Fprintln(a.out, a.l.T("cli.join.done", "ID", g.Id, "Seats", a.seatList(g.YourSeats), "Status", a.status(string(g.Status))))
	return nil
}

// invitationToken reads the token of an invitation link (…/invite/TOKEN)
// or a bare token; ok is false for anything else.
func invitationToken(arg string) (string, bool) {
	token := strings.TrimSpace(arg)
	if i := strings.LastIndex(token, "/invite/"); i >= 0 {
		token = token[i+len("/invite/"):]
		if j := strings.IndexAny(token, "?#/"); j >= 0 {
			token = token[:j]
		}
	}
	if token == "" || len(token) > 64 || strings.Trim(token, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		return "", false
	}
	return token, true
}
