package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// lobby is the signed-in player's start page.
type lobby struct {
	// Turns are the games where the player must act, longest waiting
	// first; Waiting the player's other running games.
	Turns, Waiting []lobbyGame
	// Open are games with a free seat (the player's own among them).
	Open     []lobbyGame
	Finished []lobbyGame
}

// lobbyGame is one line of the lobby.
type lobbyGame struct {
	ID, Ruleset, Players string
	// Since is when the player's turn began (Turns) or the last move
	// (others).
	Since    time.Time
	Deadline *time.Time
	Result   string
	// CanJoin: a free seat the player may take.
	CanJoin bool
	Free    int
}

// lobbySize bounds each list of the lobby.
const lobbySize = 50

func (w *Web) lobbyPage(c echo.Context, s *session) error {
	ctx := c.Request().Context()
	l, err := w.buildLobby(ctx, s.Player)
	if err != nil {
		return w.fail(c, s, err)
	}
	p := w.newPage(c, s, "lobby", "Your games")
	p.Lobby = l
	p.Address = w.addressBanner(s.Player)
	return w.render(c, http.StatusOK, "lobby", p)
}

func (w *Web) buildLobby(ctx context.Context, me play.Player) (*lobby, error) {
	l := &lobby{}
	turns, err := w.svc.Turns(ctx, me.ID)
	if err != nil {
		return nil, err
	}
	active, _, err := w.svc.ListGames(ctx, projections.Filter{Player: me.ID, Status: play.StatusActive, Limit: lobbySize})
	if err != nil {
		return nil, err
	}
	byID := map[string]projections.GameRow{}
	for _, g := range active {
		byID[g.ID] = g
	}
	mine := map[string]bool{}
	for _, t := range turns {
		mine[t.GameID] = true
		lg := lobbyGame{ID: t.GameID, Ruleset: t.Ruleset, Since: t.Since, Deadline: t.Deadline}
		if g, ok := byID[t.GameID]; ok {
			lg.Players = playerNames(g)
		}
		l.Turns = append(l.Turns, lg)
	}
	// The inbox is ordered by when the turn began: the longest wait first.
	slices.SortStableFunc(l.Turns, func(a, b lobbyGame) int { return a.Since.Compare(b.Since) })
	for _, g := range active {
		if !mine[g.ID] {
			l.Waiting = append(l.Waiting, lobbyGame{ID: g.ID, Ruleset: g.Ruleset, Players: playerNames(g), Since: g.LastMoveAt, Deadline: g.Deadline})
		}
	}
	open, _, err := w.svc.ListGames(ctx, projections.Filter{Status: play.StatusOpen, Limit: lobbySize})
	if err != nil {
		return nil, err
	}
	for _, g := range open {
		lg := lobbyGame{ID: g.ID, Ruleset: g.Ruleset, Players: playerNames(g), Since: g.CreatedAt}
		seated := false
		for _, seat := range g.Seats {
			if seat.PlayerID == "" && seat.Bot == "" {
				lg.Free++
			}
			seated = seated || seat.PlayerID == me.ID
		}
		lg.CanJoin = !seated && lg.Free > 0
		l.Open = append(l.Open, lg)
	}
	finished, _, err := w.svc.ListGames(ctx, projections.Filter{Player: me.ID, Status: play.StatusFinished, Limit: lobbySize})
	if err != nil {
		return nil, err
	}
	for _, g := range finished {
		l.Finished = append(l.Finished, lobbyGame{ID: g.ID, Ruleset: g.Ruleset, Players: playerNames(g), Since: g.LastMoveAt, Result: resultLine(g, me.ID)})
	}
	return l, nil
}

// playerNames lists a game's seats for a line of the lobby.
func playerNames(g projections.GameRow) string {
	names := make([]string, 0, len(g.Seats))
	for _, s := range g.Seats {
		names = append(names, seatLabel(s.Name, s.Bot, s.PlayerID))
	}
	return strings.Join(names, " · ")
}

func seatLabel(name, bot, playerID string) string {
	switch {
	case name != "":
		return name
	case bot != "":
		return bot + " bot"
	case playerID == "":
		return "free seat"
	}
	return "player"
}

// resultLine sums up a finished game for the player.
func resultLine(g projections.GameRow, me string) string {
	if g.Final == nil {
		return "finished"
	}
	var winners []string
	for _, w := range g.Final.Winners {
		if w >= 0 && w < len(g.Seats) {
			winners = append(winners, seatLabel(g.Seats[w].Name, g.Seats[w].Bot, g.Seats[w].PlayerID))
		}
	}
	line := "won by " + strings.Join(winners, " and ")
	for _, fp := range g.Final.Players {
		if fp.Seat >= 0 && fp.Seat < len(g.Seats) && g.Seats[fp.Seat].PlayerID == me {
			line += fmt.Sprintf(" · you: %d points, rank %d", fp.Score, fp.Rank)
			break
		}
	}
	return line
}

// join takes a free seat from the lobby or the table page.
func (w *Web) join(c echo.Context) error {
	s, ok, err := w.requireSession(c)
	if !ok {
		return err
	}
	if err := checkForm(c, s); err != nil {
		return w.fail(c, s, err)
	}
	id, err := gameID(c)
	if err != nil {
		return w.fail(c, s, err)
	}
	var seat *int
	if text := c.FormValue("seat"); text != "" {
		n, err := strconv.Atoi(text)
		if err != nil || n < 0 || n > 7 {
			return w.fail(c, s, fmt.Errorf("%w: seat must be from 0 to 7", play.ErrInvalid))
		}
		seat = &n
	}
	if _, err := w.svc.Join(c.Request().Context(), id, s.Player, seat); err != nil {
		return w.fail(c, s, err)
	}
	return c.Redirect(http.StatusSeeOther, "/games/"+id)
}

// gameID reads the {id} path parameter: a malformed id names no game.
func gameID(c echo.Context) (string, error) {
	id := c.Param("id")
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", fmt.Errorf("%w: no game %q: game ids are UUIDs", play.ErrNotFound, truncate(id, 64))
	}
	return u.String(), nil
}

// tableView is the table and replay page's data.
type tableView struct {
	ID, Title, Ruleset, Status string
	// View is "table" or "replay"; Version is the version shown, Latest
	// the game's.
	View            string
	Version, Latest int64
	PlayerID        string
	SeatsJSON       string
	Seats           []tableSeat
	Deadline        *time.Time
	Board           string
	Final           *engine.Final
	Winners         []string
	Pending         *play.Takeback
	// CanJoin: the viewer may take a free seat.
	CanJoin bool
	// Prev and Next are the neighbouring versions of a replay (0: none).
	Prev, Next int64
	// Unreachable names the players whose address stopped taking mail:
	// they may not be hearing of the game.
	Unreachable []string
}

type tableSeat struct {
	Seat           int
	Name           string
	Score          int
	ToAct, Free    bool
	Mine           bool
	DisplayedScore bool
}

// table is GET /games/{id}: the shell the table script draws in, with
// the text board for readers without JavaScript.
func (w *Web) table(c echo.Context) error {
	return w.gamePage(c, "table")
}

// replay is GET /games/{id}/replay?version=N.
func (w *Web) replay(c echo.Context) error {
	return w.gamePage(c, "replay")
}

func (w *Web) gamePage(c echo.Context, view string) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	id, err := gameID(c)
	if err != nil {
		return w.fail(c, s, err)
	}
	ctx := c.Request().Context()
	g, err := w.svc.Game(ctx, id)
	if err != nil {
		return w.fail(c, s, err)
	}
	latest := g.Version
	if view == "replay" {
		version := latest
		if text := c.QueryParam("version"); text != "" {
			v, err := strconv.ParseInt(text, 10, 64)
			if err != nil || v < 1 || v > latest {
				return w.fail(c, s, fmt.Errorf("%w: version must be a number from 1 to %d", play.ErrInvalid, latest))
			}
			version = v
		}
		if version != latest {
			if g, err = w.svc.GameAt(ctx, id, version); err != nil {
				return w.fail(c, s, err)
			}
		}
	}
	var me *play.Player
	if s != nil {
		me = &s.Player
	}
	p := w.newPage(c, s, view, compose.Title(g.Config.Ruleset))
	p.Game = newTableView(g, me, view, latest)
	if g.Status != play.StatusFinished {
		if p.Game.Unreachable, err = w.unreachableSeats(ctx, g.ID); err != nil {
			return w.fail(c, s, err)
		}
	}
	return w.render(c, http.StatusOK, view, p)
}

func newTableView(g *play.Game, me *play.Player, view string, latest int64) *tableView {
	t := &tableView{
		ID: g.ID, Title: compose.Title(g.Config.Ruleset), Ruleset: g.Config.Ruleset, Status: g.Status,
		View: view, Version: g.Version, Latest: latest, Deadline: g.Deadline, Board: g.Text(),
		Pending: g.PendingTakeback(),
	}
	var mine []int
	if me != nil {
		t.PlayerID = me.ID
		mine = g.SeatsOf(me.ID)
	}
	t.SeatsJSON = seatsJSON(mine)
	if view == "replay" {
		if g.Version > 1 {
			t.Prev = g.Version - 1
		}
		if g.Version < latest {
			t.Next = g.Version + 1
		}
	}
	toAct := g.ToAct()
	var scores []int
	if g.State != nil {
		scores = g.State.Scores()
		t.Final = g.State.Final()
	}
	free := false
	for i, seat := range g.Seats {
		ts := tableSeat{
			Seat: i, Name: seatLabel(seat.Name, seat.Bot, seat.PlayerID), ToAct: slices.Contains(toAct, i),
			Free: seat.PlayerID == "" && seat.Bot == "", Mine: slices.Contains(mine, i),
		}
		if i < len(scores) {
			ts.Score, ts.DisplayedScore = scores[i], true
		}
		free = free || ts.Free
		t.Seats = append(t.Seats, ts)
	}
	t.CanJoin = me != nil && view == "table" && g.Status == play.StatusOpen && free && len(mine) == 0
	if t.Final != nil {
		for _, win := range t.Final.Winners {
			if win >= 0 && win < len(t.Seats) {
				t.Winners = append(t.Winners, t.Seats[win].Name)
			}
		}
	}
	return t
}

// Seat kinds of the create-game form.
const (
	seatMe     = "me"
	seatPlayer = "player"
	seatBot    = "bot"
	seatOpen   = "open"
)

// newGameData is what the create-game form offers.
type newGameData struct {
	Rulesets []rulesetOption
	Bots     []botOption
	SeatNums []int
	// MinBudget, MaxBudget and DefaultBudget bound a search bot's
	// thinking time per move.
	MinBudget, MaxBudget, DefaultBudget time.Duration
	// Counts are the numbers of seats a game may have.
	Counts []int
}

type rulesetOption struct{ ID, Title string }

// botOption is a bot kind and how the form names it.
type botOption struct{ ID, Title string }

// botTitles say what each bot does; a kind without one is named by its id.
var botTitles = map[string]string{
	bots.Random: "random: any legal move",
	bots.Greedy: "greedy: best points now",
	bots.Search: "search: plans ahead",
}

func (w *Web) newGameOptions() newGameData {
	var d newGameData
	for id := range w.svc.Rules() {
		d.Rulesets = append(d.Rulesets, rulesetOption{ID: id, Title: compose.Title(id)})
	}
	slices.SortFunc(d.Rulesets, func(a, b rulesetOption) int { return strings.Compare(a.ID, b.ID) })
	for _, k := range bots.Kinds() {
		title := botTitles[k]
		if title == "" {
			title = k
		}
		d.Bots = append(d.Bots, botOption{ID: k, Title: title})
	}
	d.MinBudget, d.MaxBudget, d.DefaultBudget = bots.MinBudget, bots.MaxBudget, bots.DefaultBudget
	d.SeatNums = []int{0, 1, 2, 3}
	d.Counts = []int{2, 3, 4}
	return d
}

// maxFormSeats is how many seats the form offers (no rule set seats more).
const maxFormSeats = 4

func (w *Web) newGameForm(c echo.Context) error {
	s, ok, err := w.requireSession(c)
	if !ok {
		return err
	}
	f := newForm()
	f.Values["seats"] = "2"
	f.Values["seat0"] = seatMe
	f.Values["seat1"] = seatBot
	for i := 2; i < maxFormSeats; i++ {
		f.Values["seat"+strconv.Itoa(i)] = seatOpen
	}
	f.Values["key"] = uuid.NewString()
	return w.renderNewGame(c, s, f, http.StatusOK)
}

func (w *Web) renderNewGame(c echo.Context, s *session, f *form, status int) error {
	p := w.newPage(c, s, "new-game", "New game")
	p.Form = f
	return w.render(c, status, "new-game", &newGamePage{page: p, Options: w.newGameOptions()})
}

// newGamePage adds the form's choices to the page.
type newGamePage struct {
	*page
	Options newGameData
}

// createGame reads the create-game form into the API's request, so the
// server checks it exactly as POST /v1/games does.
func (w *Web) createGame(c echo.Context) error {
	s, ok, err := w.requireSession(c)
	if !ok {
		return err
	}
	if err := checkForm(c, s); err != nil {
		return w.fail(c, s, err)
	}
	f := newForm()
	for _, k := range []string{"ruleset", "wall", "board", "wild_order", "seats", "per_move", "on_timeout", "remind_before", "seed", "key"} {
		f.Values[k] = strings.TrimSpace(c.FormValue(k))
	}
	for i := range maxFormSeats {
		n := strconv.Itoa(i)
		for _, k := range []string{"seat" + n, "seat" + n + "_player", "seat" + n + "_bot", "seat" + n + "_budget"} {
			f.Values[k] = strings.TrimSpace(c.FormValue(k))
		}
		if f.Values["seat"+n] == "" {
			f.Values["seat"+n] = seatOpen
		}
	}
	ctx := c.Request().Context()
	req := w.readCreateForm(ctx, s.Player, f)
	if len(f.Errors) == 0 {
		if err := w.limitNewGame(ctx, s.Player, req.Seats); err != nil {
			return w.fail(c, s, err)
		}
		g, err := w.svc.CreateGame(ctx, s.Player, req, f.Values["key"])
		if err == nil {
			return c.Redirect(http.StatusSeeOther, "/games/"+g.ID)
		}
		status, show := statusOf(err)
		if !show {
			return w.fail(c, s, err)
		}
		f.Errors[fieldOf(err.Error())] = strings.TrimPrefix(err.Error(), play.ErrInvalid.Error()+": ")
		if f.Errors[""] == "" {
			f.Errors[""] = "The game was not created: see the marked field."
		}
		return w.renderNewGame(c, s, f, status)
	}
	// The form could not be sent on, but the rules can still say what
	// else is wrong, so the player fixes everything at once.
	if rules, err := w.svc.Rules().Get(req.Ruleset); err != nil {
		if f.Errors["ruleset"] == "" {
			f.Errors["ruleset"] = fmt.Sprintf("unknown ruleset %q", truncate(req.Ruleset, 64))
		}
	} else if len(req.Seats) > 0 {
		seed, err := engine.NewSeed()
		if err == nil {
			_, err = rules.Start(engine.Config{Ruleset: req.Ruleset, Players: len(req.Seats), Options: req.Options}, seed)
		}
		if err != nil {
			if k := fieldOf(err.Error()); f.Errors[k] == "" {
				f.Errors[k] = err.Error()
			}
		}
	}
	if f.Errors[""] == "" {
		f.Errors[""] = "The game was not created: see the marked fields."
	}
	return w.renderNewGame(c, s, f, http.StatusBadRequest)
}

// readCreateForm builds the request from the form, noting the errors the
// form itself can tell (a duration that does not parse, a player not
// found).
func (w *Web) readCreateForm(ctx context.Context, me play.Player, f *form) play.CreateGame {
	v := f.Values
	req := play.CreateGame{Ruleset: v["ruleset"], Seed: v["seed"]}
	if v["wall"] != "" && v["wall"] != "coloured" {
		req.Options.Wall = v["wall"]
	}
	if v["board"] != "" && v["board"] != "coloured" {
		req.Options.Board = v["board"]
	}
	if order := strings.FieldsFunc(strings.ToLower(v["wild_order"]), func(r rune) bool { return r == ',' || r == ' ' }); len(order) > 0 {
		req.Options.WildOrder = order
	}
	n, err := strconv.Atoi(v["seats"])
	if err != nil || n < 2 || n > maxFormSeats {
		f.Errors["seats"] = fmt.Sprintf("a game has 2 to %d seats", maxFormSeats)
		n = 0
	}
	for i := range n {
		k := "seat" + strconv.Itoa(i)
		switch v[k] {
		case seatMe:
			req.Seats = append(req.Seats, play.SeatSpec{Player: "me"})
		case seatBot:
			spec := play.SeatSpec{Bot: v[k+"_bot"]}
			// The budget field stays on the page whatever the bot; it
			// counts for the search bot only.
			if spec.Bot == bots.Search {
				spec.Budget = v[k+"_budget"]
			}
			req.Seats = append(req.Seats, spec)
		case seatOpen, "":
			req.Seats = append(req.Seats, play.SeatSpec{})
		case seatPlayer:
			id, err := w.findPlayer(ctx, me, v[k+"_player"])
			if err != nil {
				f.Errors[k] = err.Error()
			}
			req.Seats = append(req.Seats, play.SeatSpec{Player: id})
		default:
			f.Errors[k] = "choose me, a player, a bot or an open seat"
		}
	}
	if v["per_move"] != "" || v["on_timeout"] != "" || v["remind_before"] != "" {
		tc := &play.TimeControl{OnTimeout: v["on_timeout"]}
		if d, err := parseDuration(v["per_move"]); err != nil {
			f.Errors["per_move"] = "time_control.per_move: " + err.Error()
		} else {
			tc.PerMove = play.Duration(d)
		}
		if d, err := parseDuration(v["remind_before"]); err != nil {
			f.Errors["remind_before"] = "time_control.remind_before: " + err.Error()
		} else {
			tc.RemindBefore = play.Duration(d)
		}
		req.TimeControl = tc
	}
	return req
}

// parseDuration reads a Go duration ("72h", "90m") or days ("3d"); empty
// is zero.
func parseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > 365 {
			return 0, fmt.Errorf("%q is not a number of days like 3d", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration like 72h, 90m or 3d", s)
	}
	return d, nil
}

// findPlayer resolves a seat's player by id, or by name or email among
// the players who already share a game with me. Searching every player
// would tell anyone who is registered with an address; one answer for "no
// such player" and "no one you have played with" tells nothing. Someone
// new is seated by their player id (which they see on their pages and in
// GET /v1/me), or invited by an open seat and the game's link.
func (w *Web) findPlayer(ctx context.Context, me play.Player, who string) (string, error) {
	if who == "" {
		return "", errors.New("name the player: a player id, or the name or email address of someone you have played with")
	}
	if u, err := uuid.Parse(who); err == nil && len(who) == 36 {
		return u.String(), nil
	}
	if w.pool == nil {
		return "", errors.New("players can be named by id only on this server")
	}
	rows, err := w.pool.Query(ctx, `
		SELECT DISTINCT p.id::text, p.created_at
		FROM game_seats mine
		JOIN game_seats theirs ON theirs.game_id = mine.game_id
		JOIN players p ON p.id = theirs.player_id
		WHERE mine.player_id = $2 AND p.id <> $2
		  AND (lower(p.email) = lower($1) OR lower(p.name) = lower($1))
		ORDER BY p.created_at LIMIT 2`, who, me.ID)
	if err != nil {
		return "", fmt.Errorf("look up player %q: %w", who, err)
	}
	ids, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var id string
		var created time.Time
		err := r.Scan(&id, &created)
		return id, err
	})
	if err != nil {
		return "", fmt.Errorf("look up player %q: %w", who, err)
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("no one you have played with is named %q or has that address: to seat someone new, give their player id (shown on their pages), or leave the seat open and send them the game's link", truncate(who, 64))
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("several players you have played with answer to %q: give the email address or the player id", truncate(who, 64))
}

// limitNewGame counts a game created and the seats it gives to other
// players (invitations) under the rate limits.
// The games limit is looked at first, so a game refused for its
// invitations does not use up a game.
func (w *Web) limitNewGame(ctx context.Context, me play.Player, seats []play.SeatSpec) error {
	if err := w.limits.Peek(ctx, limits.Games, me.ID); err != nil {
		return err
	}
	for _, seat := range seats {
		if seat.Player != "" && seat.Player != "me" && seat.Player != me.ID {
			if err := w.limits.Allow(ctx, limits.Invitations, me.ID); err != nil {
				return err
			}
		}
	}
	return w.limits.Allow(ctx, limits.Games, me.ID)
}

// fieldOf is the form field an error message of the command path is
// about ("" for the form as a whole).
func fieldOf(msg string) string {
	msg = strings.TrimPrefix(msg, play.ErrInvalid.Error()+": ")
	if strings.HasPrefix(msg, "seat ") {
		if n, err := strconv.Atoi(strings.TrimRight(strings.Fields(msg)[1], ":")); err == nil && n >= 0 && n < maxFormSeats {
			if strings.Contains(msg, "budget") {
				return "seat" + strconv.Itoa(n) + "_budget"
			}
			return "seat" + strconv.Itoa(n)
		}
	}
	for _, k := range []struct{ needle, field string }{
		{"remind_before", "remind_before"}, {"per_move", "per_move"}, {"on_timeout", "on_timeout"},
		{"seed", "seed"}, {"ruleset", "ruleset"}, {"wild", "wild_order"}, {"wall", "wall"},
		{"board", "board"}, {"monochrome", "board"}, {"player", "seats"}, {"seats", "seats"},
	} {
		if strings.Contains(strings.ToLower(msg), k.needle) {
			return k.field
		}
	}
	return ""
}
