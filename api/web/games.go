package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/api/tabletext"
	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// lobby is the signed-in player's start page.
type lobby struct {
	// Turns are the games where the player must act, longest waiting
	// first; Waiting the player's other running games.
	Turns, Waiting []lobbyGame
	// Invitations are the rematches with a seat kept for the player.
	Invitations []lobbyGame
	// Open are games with a free seat (the player's own among them).
	Open     []lobbyGame
	Finished []lobbyGame
	// Watch are running public games anyone may watch, the best-rated
	// first (the API's watch list).
	Watch []lobbyGame
}

// lobbyGame is one line of the lobby.
type lobbyGame struct {
	// Title is the rule set's name in the reader's language.
	ID, Ruleset, Title, Players string
	// Since is when the player's turn began (Turns) or the last move
	// (others).
	Since    time.Time
	Deadline *time.Time
	Result   string
	// CanJoin: a free seat the player may take.
	CanJoin bool
	Free    int
	// Rated: the game changes its players' ratings; Private: only its
	// players see it. Marked is false when the line does not know them.
	Rated, Private, Marked bool
}

// marked is a lobby line with the game's rated and private settings.
func marked(lg lobbyGame, g projections.GameRow) lobbyGame {
	lg.Rated, lg.Private, lg.Marked = !g.Unrated, g.Private, true
	return lg
}

// lobbySize bounds each list of the lobby.
const lobbySize = 50

// watchSize is how many games the lobby's watch list shows.
const watchSize = 5

func (w *Web) lobbyPage(c echo.Context, s *session) error {
	ctx := c.Request().Context()
	p := w.newPage(c, s, "lobby", "web.lobby.title")
	l, err := w.buildLobby(ctx, p.L, s.Player)
	if err != nil {
		return w.fail(c, s, err)
	}
	p.Lobby = l
	p.Address = w.addressBanner(s.Player)
	if c.QueryParam("confirmed") == "1" && s.Player.EmailStatus == play.EmailOK {
		// Back from the link that confirmed the address.
		p.Notice = p.L.T("web.verify.confirmed", "Email", s.Player.Email)
	}
	return w.render(c, http.StatusOK, "lobby", p)
}

func (w *Web) buildLobby(ctx context.Context, loc *i18n.Localizer, me play.Player) (*lobby, error) {
	l := &lobby{}
	turns, err := w.svc.Turns(ctx, me.ID)
	if err != nil {
		return nil, err
	}
	active, _, err := w.svc.ListGames(ctx, projections.Filter{Player: me.ID, Viewer: me.ID, Status: play.StatusActive, Limit: lobbySize})
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
			lg = marked(lg, g)
			lg.Players = playerNames(loc, g)
		}
		l.Turns = append(l.Turns, lg)
	}
	// The inbox is ordered by when the turn began: the longest wait first.
	slices.SortStableFunc(l.Turns, func(a, b lobbyGame) int { return a.Since.Compare(b.Since) })
	for _, g := range active {
		if !mine[g.ID] {
			l.Waiting = append(l.Waiting, marked(lobbyGame{ID: g.ID, Ruleset: g.Ruleset, Players: playerNames(loc, g), Since: g.LastMoveAt, Deadline: g.Deadline}, g))
		}
	}
	invited, _, err := w.svc.ListGames(ctx, projections.Filter{Invited: me.ID, Viewer: me.ID, Limit: lobbySize})
	if err != nil {
		return nil, err
	}
	for _, g := range invited {
		l.Invitations = append(l.Invitations, marked(lobbyGame{ID: g.ID, Ruleset: g.Ruleset, Players: invitationNames(loc, g, me.ID), Since: g.CreatedAt}, g))
	}
	open, _, err := w.svc.ListGames(ctx, projections.Filter{Viewer: me.ID, Status: play.StatusOpen, Limit: lobbySize})
	if err != nil {
		return nil, err
	}
	for _, g := range open {
		lg := marked(lobbyGame{ID: g.ID, Ruleset: g.Ruleset, Players: playerNames(loc, g), Since: g.CreatedAt}, g)
		seated, kept := false, false
		for _, seat := range g.Seats {
			if seat.PlayerID == "" && seat.Bot == "" && seat.Reserved == "" {
				lg.Free++
			}
			seated = seated || seat.PlayerID == me.ID
			kept = kept || (seat.PlayerID == "" && seat.Reserved == me.ID)
		}
		if kept || (lg.Free == 0 && !seated) {
			// An invitation is listed with them; a rematch whose free
			// seats are all kept for others is nobody else's to join.
			continue
		}
		lg.CanJoin = !seated && lg.Free > 0
		l.Open = append(l.Open, lg)
	}
	finished, _, err := w.svc.ListGames(ctx, projections.Filter{Player: me.ID, Viewer: me.ID, Status: play.StatusFinished, Limit: lobbySize})
	if err != nil {
		return nil, err
	}
	for _, g := range finished {
		l.Finished = append(l.Finished, marked(lobbyGame{ID: g.ID, Ruleset: g.Ruleset, Players: playerNames(loc, g), Since: g.LastMoveAt, Result: resultLine(loc, g, me.ID)}, g))
	}
	watch, _, err := w.svc.ListGames(ctx, projections.Filter{Watch: true, Viewer: me.ID, Without: me.ID, Limit: watchSize})
	if err != nil {
		return nil, err
	}
	for _, g := range watch {
		l.Watch = append(l.Watch, marked(lobbyGame{ID: g.ID, Ruleset: g.Ruleset, Players: playerNames(loc, g), Since: g.LastMoveAt}, g))
	}
	for _, list := range [][]lobbyGame{l.Turns, l.Waiting, l.Invitations, l.Open, l.Finished, l.Watch} {
		for i := range list {
			list[i].Title = rulesetTitle(loc, list[i].Ruleset)
		}
	}
	return l, nil
}

// playerNames lists a game's seats for a line of the lobby.
func playerNames(l *i18n.Localizer, g projections.GameRow) string {
	names := make([]string, 0, len(g.Seats))
	for _, s := range g.Seats {
		names = append(names, seatLabel(l, s.Name, s.Bot, s.PlayerID))
	}
	return strings.Join(names, " · ")
}

// invitationNames lists a game's seats for the player invited to it:
// the seat kept for them is "you", those kept for others "invited".
func invitationNames(l *i18n.Localizer, g projections.GameRow, me string) string {
	names := make([]string, 0, len(g.Seats))
	for _, s := range g.Seats {
		switch {
		case s.PlayerID == "" && s.Reserved == me:
			names = append(names, l.T("web.rematch.seat_you"))
		case s.PlayerID == "" && s.Reserved != "":
			names = append(names, l.T("web.rematch.seat_invited"))
		default:
			names = append(names, seatLabel(l, s.Name, s.Bot, s.PlayerID))
		}
	}
	return strings.Join(names, " · ")
}

func seatLabel(l *i18n.Localizer, name, bot, playerID string) string {
	switch {
	case name != "":
		return name
	case bot != "":
		return l.T("web.js.bot", "Bot", botName(l, bot))
	case playerID == "":
		return l.T("web.seat.free")
	}
	return l.T("web.seat.player")
}

// botName is a bot kind in the reader's words; a kind the catalogue does
// not name keeps its raw name.
func botName(l *i18n.Localizer, kind string) string {
	if id := "web.js.bot_kind." + kind; bots.Known(kind) && l.Catalogue().Has(id) {
		return l.T(id)
	}
	return kind
}

// resultLine sums up a finished game for the player.
func resultLine(l *i18n.Localizer, g projections.GameRow, me string) string {
	if g.Final == nil {
		return l.T("web.lobby.finished")
	}
	var winners []string
	for _, w := range g.Final.Winners {
		if w >= 0 && w < len(g.Seats) {
			winners = append(winners, seatLabel(l, g.Seats[w].Name, g.Seats[w].Bot, g.Seats[w].PlayerID))
		}
	}
	line := l.T("web.lobby.won_by", "Winners", l.List(winners))
	for _, fp := range g.Final.Players {
		if fp.Seat >= 0 && fp.Seat < len(g.Seats) && g.Seats[fp.Seat].PlayerID == me {
			line += " · " + l.T("web.lobby.your_result", "Points", l.N("game.points", fp.Score), "Rank", l.Num(fp.Rank))
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
			return w.fail(c, s, errorf(play.ErrInvalid, "web.error.seat"))
		}
		seat = &n
	}
	if _, err := w.svc.JoinVia(c.Request().Context(), id, s.Player, seat, "web"); err != nil {
		switch {
		case errors.Is(err, play.ErrReserved):
			err = errorf(play.ErrForbidden, "web.rematch.join_reserved")
		case errors.Is(err, play.ErrForbidden):
			err = errorf(play.ErrForbidden, "web.error.no_free_seat")
		}
		return w.fail(c, s, err)
	}
	return c.Redirect(http.StatusSeeOther, "/games/"+id)
}

// gameID reads the {id} path parameter: a malformed id names no game.
func gameID(c echo.Context) (string, error) {
	id := c.Param("id")
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", errorf(play.ErrNotFound, "web.error.no_game", "ID", truncate(id, 64))
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
	// WinnersText, Reason and FinalRows are the result in words.
	WinnersText, Reason string
	FinalRows           []finalRow
	Pending             *play.Takeback
	// CanJoin: the viewer may take a free seat.
	CanJoin bool
	// Rematch is a finished game's rematch, RematchOf the game a rematch
	// is of; CanRematch: the viewer played the finished game and may ask
	// for its rematch. Invited: a seat of this game (a rematch, or a new
	// game that named the viewer) is kept for the viewer (Accept,
	// Decline); Awaiting names the others it waits for.
	Rematch, RematchOf  string
	CanRematch, Invited bool
	Awaiting            string
	AwaitingCount       int
	// Seated: the viewer holds a seat.
	Seated bool
	// Invite is the invitation link a seated player may pass on (nil:
	// none, or not theirs to see).
	Invite *inviteView
	// Settings are the game's settings; Spectator: the viewer holds no
	// seat in the running game (and only watches).
	Settings  play.Settings
	Spectator bool
	// Prev and Next are the neighbouring versions of a replay (0: none).
	Prev, Next int64
	// Unreachable names the players whose address stopped taking mail:
	// they may not be hearing of the game.
	Unreachable []string
	// Talk is the table talk panel; Key the idempotency key of its form
	// (a second post of the same form says the message once).
	Talk *talkView
	Key  string
	// Reported is the version of a message the viewer just reported.
	Reported int64
}

// finalRow is one seat's line of the final result.
type finalRow struct {
	Rank, Seat, Score int
	Details           string
}

// knownReason is a game's end reason as the catalogue names it.
func knownReason(r string) string {
	switch r {
	case "rounds_played", "round_limit", "row_completed", "no_tiles", "resigned":
		return r
	}
	return "unknown"
}

var (
	starItem = regexp.MustCompile(`^star_(\d+)_([a-z]+)$`)
	allItem  = regexp.MustCompile(`^all_(\d)s$`)
)

// finalItem is one line of a final breakdown in words ("2 complete rows
// +4"), as the table's script writes it (web.js.final.*).
func finalItem(l *i18n.Localizer, b engine.ScoreItem) string {
	pts := l.Signed(b.Points)
	switch b.Item {
	case "rows", "columns", "kept_tiles":
		return l.N("web.js.final."+b.Item, b.Count, "Points", pts)
	case "colours", "colors":
		return l.N("web.js.final.colours", b.Count, "Points", pts)
	}
	if m := starItem.FindStringSubmatch(b.Item); m != nil {
		if m[1] == "0" || m[2] == "multicoloured" {
			return l.T("web.js.final.centre_star", "Points", pts)
		}
		return l.T("web.js.final.star", "Colour", l.T("game.colour."+m[2]), "Points", pts)
	}
	if m := allItem.FindStringSubmatch(b.Item); m != nil {
		return l.T("web.js.final.all", "N", m[1], "Points", pts)
	}
	return l.T("web.js.final.misc", "Points", pts)
}

type tableSeat struct {
	Seat int
	Name string
	// Href is the seat's profile page ("" for a free seat or an erased
	// player).
	Href        string
	Score       int
	ToAct, Free bool
	// Kept: the free seat is kept for the player invited to it, Name.
	Kept           bool
	Mine           bool
	DisplayedScore bool
}

// table is GET /games/{id}: the shell the table script draws in, with
// the text board for readers without JavaScript.
func (w *Web) table(c echo.Context) error {
	return w.gamePage(c, "table", nil)
}

// replay is GET /games/{id}/replay?version=N.
func (w *Web) replay(c echo.Context) error {
	return w.gamePage(c, "replay", nil)
}

// gamePage draws the table or the replay. refused, when set, is a
// message the table talk's form did not send: the table is drawn again
// with it in the form and the reason next to it.
func (w *Web) gamePage(c echo.Context, view string, refused *talkRefusal) error {
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
				return w.fail(c, s, errorf(play.ErrInvalid, "web.error.version", "Latest", strconv.FormatInt(latest, 10)))
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
	p := w.newPage(c, s, view, "web.table.title")
	p.Game = newTableView(p.L, g, me, view, latest)
	p.Title = p.Game.Title
	p.Messages = w.static.url(messagesFile(p.L.Lang()))
	// The panel reads the game as it is now (its seats and chat), and
	// shows the messages up to the version the page shows.
	current := g
	if g.Version != latest {
		if current, err = w.svc.CurrentState(ctx, id); err != nil {
			return w.fail(c, s, err)
		}
	}
	if p.Game.Talk, err = w.newTalkView(ctx, p.L, current, me, view, g.Version); err != nil {
		return w.fail(c, s, err)
	}
	status := http.StatusOK
	if refused != nil && p.Game.Talk.CanWrite {
		status = refused.status
		p.Game.Talk.Draft = refused.draft
		p.Game.Talk.Error = errorText(p.L, refused.err, status, true)
	}
	if view == "table" && g.Version == latest {
		if p.Game.Invite, err = w.newInviteView(c, g, me); err != nil {
			return w.fail(c, s, err)
		}
	}
	p.Game.Key = uuid.NewString()
	p.Game.Reported, _ = strconv.ParseInt(c.QueryParam("reported"), 10, 64)
	if g.Status != play.StatusFinished {
		if p.Game.Unreachable, err = w.unreachableSeats(ctx, g.ID); err != nil {
			return w.fail(c, s, err)
		}
	}
	return w.render(c, status, view, p)
}

func newTableView(l *i18n.Localizer, g *play.Game, me *play.Player, view string, latest int64) *tableView {
	t := &tableView{
		ID: g.ID, Title: rulesetTitle(l, g.Config.Ruleset), Ruleset: g.Config.Ruleset, Status: g.Status,
		View: view, Version: g.Version, Latest: latest, Deadline: g.Deadline,
		Pending: g.PendingTakeback(), Settings: g.Settings,
	}
	var mine []int
	if me != nil {
		t.PlayerID = me.ID
		mine = g.SeatsOf(me.ID)
	}
	t.Board = tabletext.Of(l, g, t.PlayerID)
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
			Seat: i, Name: seatLabel(l, seat.Name, seat.Bot, seat.PlayerID), Href: ProfilePath(seat.PlayerID, seat.Bot, seat.Name),
			ToAct: slices.Contains(toAct, i),
			Free:  seat.PlayerID == "" && seat.Bot == "" && seat.Reserved == "", Mine: slices.Contains(mine, i),
			Kept: seat.PlayerID == "" && seat.Reserved != "",
		}
		if i < len(scores) {
			ts.Score, ts.DisplayedScore = scores[i], true
		}
		free = free || ts.Free
		t.Seats = append(t.Seats, ts)
	}
	t.CanJoin = me != nil && view == "table" && g.Status == play.StatusOpen && free && len(mine) == 0
	t.Rematch, t.RematchOf, t.Seated = g.Rematch, g.RematchOf, len(mine) > 0
	t.CanRematch = view == "table" && g.Status == play.StatusFinished && len(mine) > 0 && g.Rematch == ""
	if me != nil && view == "table" && g.Status == play.StatusOpen && len(g.ReservedFor(me.ID)) > 0 {
		t.Invited, t.CanJoin = true, false
	}
	var awaiting []string
	for _, seat := range g.Seats {
		if seat.PlayerID == "" && seat.Reserved != "" && (me == nil || seat.Reserved != me.ID) && !slices.Contains(awaiting, seat.Name) {
			awaiting = append(awaiting, seat.Name)
		}
	}
	t.Awaiting, t.AwaitingCount = l.List(awaiting), len(awaiting)
	t.Spectator = g.Status == play.StatusActive && len(mine) == 0
	if t.Final != nil {
		for _, win := range t.Final.Winners {
			if win >= 0 && win < len(t.Seats) {
				t.Winners = append(t.Winners, t.Seats[win].Name)
			}
		}
		t.WinnersText = l.List(t.Winners)
		t.Reason = l.T("web.js.reason." + knownReason(t.Final.Reason))
		for _, fp := range t.Final.Players {
			var items []string
			for _, b := range fp.Breakdown {
				if b.Item != "play" && b.Points != 0 {
					items = append(items, finalItem(l, b))
				}
			}
			t.FinalRows = append(t.FinalRows, finalRow{Rank: fp.Rank, Seat: fp.Seat, Score: fp.Score, Details: strings.Join(items, l.T("common.list_separator"))})
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
	// WildPlaceholder is the usual order of the wild colours, in the
	// reader's words.
	WildPlaceholder string
}

type rulesetOption struct{ ID, Title string }

// botOption is a bot kind and how the form names it: Title alone, Label
// with its rating in the rule set and number of seats the form shows
// (Title when it has none), Labels (JSON) the same for every rule set
// and number of seats it has a rating in ("azul-mini/2"), which the
// page's script shows when the form's choice changes.
type botOption struct{ ID, Title, Label, Labels string }

// rulesetTitle is a rule set's name in the reader's language.
func rulesetTitle(l *i18n.Localizer, id string) string {
	if l.Catalogue().Has("game.ruleset." + id) {
		return l.T("game.ruleset." + id)
	}
	return id
}

// newGameOptions are the form's choices; f's rule set and number of
// seats choose the bots' ratings shown in their labels.
func (w *Web) newGameOptions(ctx context.Context, l *i18n.Localizer, f *form) (newGameData, error) {
	var d newGameData
	for id := range w.svc.Rules() {
		d.Rulesets = append(d.Rulesets, rulesetOption{ID: id, Title: rulesetTitle(l, id)})
	}
	slices.SortFunc(d.Rulesets, func(a, b rulesetOption) int { return strings.Compare(a.ID, b.ID) })
	var ratings []projections.RatingRow
	if w.pool != nil {
		var err error
		if ratings, err = projections.BotRatings(ctx, w.pool, rulesetIDs(w.svc.Rules())); err != nil {
			return d, err
		}
	}
	ruleset, seats := f.Get("ruleset"), f.Get("seats")
	if ruleset == "" && len(d.Rulesets) > 0 {
		ruleset = d.Rulesets[0].ID
	}
	shown := ruleset + "/" + seats
	for _, k := range bots.Kinds() {
		title := k
		if id := "web.newgame.bot_title." + k; l.Catalogue().Has(id) {
			title = l.T(id)
		}
		o := botOption{ID: k, Title: title, Label: title}
		labels := map[string]string{}
		for _, r := range ratings {
			if r.Bot == k {
				labels[r.Ruleset+"/"+strconv.Itoa(r.Players)] = l.T("web.newgame.bot_rated", "Bot", title, "Rating", l.Decimal(r.Ordinal, 1))
			}
		}
		if len(labels) > 0 {
			if label, ok := labels[shown]; ok {
				o.Label = label
			}
			text, err := json.Marshal(labels)
			if err != nil {
				return d, fmt.Errorf("bot labels: %w", err)
			}
			o.Labels = string(text)
		}
		d.Bots = append(d.Bots, o)
	}
	d.MinBudget, d.MaxBudget, d.DefaultBudget = bots.MinBudget, bots.MaxBudget, bots.DefaultBudget
	var wild []string
	for _, c := range []string{"purple", "green", "orange", "yellow", "blue", "red"} {
		wild = append(wild, l.T("game.colour."+c))
	}
	d.WildPlaceholder = strings.Join(wild, " ")
	d.SeatNums = []int{0, 1, 2, 3}
	d.Counts = []int{2, 3, 4}
	return d, nil
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
	f.Values["rated"] = "on"
	f.Values["visibility"] = play.VisibilityPublic
	return w.renderNewGame(c, s, f, http.StatusOK)
}

func (w *Web) renderNewGame(c echo.Context, s *session, f *form, status int) error {
	p := w.newPage(c, s, "new-game", "web.newgame.title")
	p.Form = f
	opts, err := w.newGameOptions(c.Request().Context(), p.L, f)
	if err != nil {
		return w.fail(c, s, err)
	}
	return w.render(c, status, "new-game", &newGamePage{page: p, Options: opts})
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
	for _, k := range []string{"ruleset", "wall", "board", "wild_order", "seats", "per_move", "on_timeout", "remind_before", "seed", "key", "rated", "visibility", "public_chat"} {
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
	l := w.localizer(c, s)
	req := w.readCreateForm(ctx, l, s.Player, f)
	if len(f.Errors) == 0 {
		if err := w.limitNewGame(ctx, s.Player, req.Seats); err != nil {
			return w.fail(c, s, err)
		}
		req.Channel = "web"
		g, err := w.svc.CreateGame(ctx, s.Player, req, f.Values["key"])
		if err == nil {
			return c.Redirect(http.StatusSeeOther, "/games/"+g.ID)
		}
		status, show := statusOf(err)
		if !show {
			return w.fail(c, s, err)
		}
		k := fieldOf(err.Error())
		var input *play.InputError
		if errors.As(err, &input) && (input.Code == "rated_seed" || input.Code == "visibility") {
			k = map[string]string{"rated_seed": "rated", "visibility": "visibility"}[input.Code]
		}
		f.Errors[k] = fieldError(l, k, err, status)
		if f.Errors[""] == "" {
			f.Errors[""] = l.T("web.newgame.error.not_created")
		}
		return w.renderNewGame(c, s, f, status)
	}
	// The form could not be sent on, but the rules can still say what
	// else is wrong, so the player fixes everything at once.
	if rules, err := w.svc.Rules().Get(req.Ruleset); err != nil {
		if f.Errors["ruleset"] == "" {
			f.Errors["ruleset"] = fieldError(l, "ruleset", err, http.StatusBadRequest)
		}
	} else if len(req.Seats) > 0 {
		seed, err := engine.NewSeed()
		if err == nil {
			_, err = rules.Start(engine.Config{Ruleset: req.Ruleset, Players: len(req.Seats), Options: req.Options}, seed)
		}
		if err != nil {
			if k := fieldOf(err.Error()); f.Errors[k] == "" {
				f.Errors[k] = fieldError(l, k, err, http.StatusBadRequest)
			}
		}
	}
	if f.Errors[""] == "" {
		f.Errors[""] = l.T("web.newgame.error.not_created")
	}
	return w.renderNewGame(c, s, f, http.StatusBadRequest)
}

// readCreateForm builds the request from the form, noting the errors the
// form itself can tell (a duration that does not parse, a player not
// found).
func (w *Web) readCreateForm(ctx context.Context, l *i18n.Localizer, me play.Player, f *form) play.CreateGame {
	v := f.Values
	rated := v["rated"] != ""
	req := play.CreateGame{Ruleset: v["ruleset"], Seed: v["seed"], Rated: &rated, Visibility: v["visibility"]}
	if v["public_chat"] != "" {
		req.Chat = play.ChatPublic
	}
	if v["wall"] != "" && v["wall"] != "coloured" {
		req.Options.Wall = v["wall"]
	}
	if v["board"] != "" && v["board"] != "coloured" {
		req.Options.Board = v["board"]
	}
	if order := strings.FieldsFunc(strings.ToLower(v["wild_order"]), func(r rune) bool { return r == ',' || r == ' ' }); len(order) > 0 {
		// Colours may be written in any language's words.
		for i, word := range order {
			if c, ok := w.colours[word]; ok {
				order[i] = c
			}
		}
		req.Options.WildOrder = order
	}
	n, err := strconv.Atoi(v["seats"])
	if err != nil || n < 2 || n > maxFormSeats {
		f.Errors["seats"] = l.T("web.newgame.error.seats", "Max", l.Num(maxFormSeats))
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
				f.Errors[k] = errorText(l, err, http.StatusBadRequest, true)
			}
			req.Seats = append(req.Seats, play.SeatSpec{Player: id})
		default:
			f.Errors[k] = l.T("web.newgame.error.seat_kind")
		}
	}
	if v["per_move"] != "" || v["on_timeout"] != "" || v["remind_before"] != "" {
		tc := &play.TimeControl{OnTimeout: v["on_timeout"]}
		if d, err := parseDuration(v["per_move"]); err != nil {
			f.Errors["per_move"] = l.T("web.newgame.error.duration", "Value", truncate(v["per_move"], 32))
		} else {
			tc.PerMove = play.Duration(d)
		}
		if d, err := parseDuration(v["remind_before"]); err != nil {
			f.Errors["remind_before"] = l.T("web.newgame.error.duration", "Value", truncate(v["remind_before"], 32))
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
		return "", errorf(play.ErrInvalid, "web.newgame.error.player_empty")
	}
	if u, err := uuid.Parse(who); err == nil && len(who) == 36 {
		return u.String(), nil
	}
	if w.pool == nil {
		return "", errorf(play.ErrInvalid, "web.newgame.error.player_id_only")
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
		return "", errorf(play.ErrInvalid, "web.newgame.error.player_unknown", "Who", truncate(who, 64))
	case 1:
		return ids[0], nil
	}
	return "", errorf(play.ErrInvalid, "web.newgame.error.player_ambiguous", "Who", truncate(who, 64))
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

// fieldError is an error of the command path next to its field, in the
// reader's words: the rules' own errors are English (for the log and the
// API's detail), so the page says what the field accepts; a rule that
// was broken is named by its id.
func fieldError(l *i18n.Localizer, field string, err error, status int) string {
	var rule *engine.RuleError
	if errors.As(err, &rule) {
		return l.T("rule." + rule.Rule)
	}
	switch {
	case field == "":
		return errorText(l, err, status, true)
	case strings.HasSuffix(field, "_budget"):
		return l.T("web.newgame.error.field.budget", "Min", bots.MinBudget.String(), "Max", bots.MaxBudget.String())
	case strings.HasPrefix(field, "seat") && field != "seats":
		return l.T("web.newgame.error.field.seat")
	}
	return l.T("web.newgame.error.field." + field)
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

// NoGame answers a page of a game the visitor may not see (see the API's
// game check) exactly as a page of a game that does not exist: err is
// the not-found error both get.
func (w *Web) NoGame(c echo.Context, err error) error {
	return w.headers(func(c echo.Context) error {
		s, serr := w.session(c)
		if serr != nil {
			return w.fail(c, nil, serr)
		}
		return w.fail(c, s, err)
	})(c)
}
