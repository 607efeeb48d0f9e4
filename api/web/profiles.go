package web

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// The leaderboard (/ratings) and a player's profile (/players/{id}):
// public pages, read by visitors too, each a fixed number of queries (see
// projections.LoadProfile), and counted against the client's address by
// the profile_reads limit like the API's reads of the same data.

// boardPage is how many ratings the leaderboard shows at once.
const boardPage = 50

// maxStart bounds the leaderboard's rank offset (a page's first rank).
const maxStart = 1_000_000

// BotName is a bot kind's name as its profile shows it, in the reader's
// language ("Greedy bot").
func BotName(l *i18n.Localizer, kind string) string {
	if id := "profile.bot_name." + kind; l.Catalogue().Has(id) {
		return l.T(id)
	}
	return kind
}

// ProfilePath is the address of a seat's profile page: a player's or a
// bot kind's; "" for a free seat, an erased player or the seat of an
// imported game (who have none).
func ProfilePath(playerID, bot, name string) string {
	switch {
	case bot != "":
		return "/players/" + projections.BotSubject + bot
	case playerID != "" && name != projections.FormerPlayer && !projections.ImportedPlayer(playerID):
		return "/players/" + playerID
	}
	return ""
}

// boardView is the leaderboard page.
type boardView struct {
	Ruleset     string
	Players     int
	Provisional bool
	Rulesets    []rulesetOption
	Counts      []int
	Rows        []boardRow
	// OnlyProvisional: nobody has an established rating yet, so the
	// provisional ones are shown (marked) without being asked for.
	OnlyProvisional bool
	// Next is the next page's address ("" on the last page).
	Next string
}

// boardRow is one line of the leaderboard.
type boardRow struct {
	Rank                int
	Name, Href          string
	Rating, Mu, Sigma   string
	Games               int
	Provisional, Viewer bool
	LastGame            string
}

// boardRows are the leaderboard's lines from rank start on.
func boardRows(l *i18n.Localizer, s *session, rows []projections.RatingRow, start int) []boardRow {
	out := make([]boardRow, 0, len(rows))
	for i, r := range rows {
		row := boardRow{Rank: start + i, Name: r.Name, Games: r.Games, Provisional: r.Provisional,
			Rating: l.Decimal(r.Ordinal, 1), Mu: l.Decimal(r.Mu, 1), Sigma: l.Decimal(r.Sigma, 1), LastGame: l.Date(r.LastGameAt)}
		if r.Bot != "" {
			row.Name = BotName(l, r.Bot)
		}
		row.Href = ProfilePath(r.PlayerID, r.Bot, r.Name)
		row.Viewer = s != nil && r.PlayerID == s.Player.ID
		out = append(out, row)
	}
	return out
}

// readLimit counts a read of the leaderboard or a profile against the
// client's address.
func (w *Web) readLimit(c echo.Context) error {
	return w.limits.Allow(c.Request().Context(), limits.ProfileReads, clientKey(c))
}

// ratingsPage is GET /ratings: the active players of a rule set and
// number of players, best first; provisional ratings with
// provisional=1.
func (w *Web) ratingsPage(c echo.Context) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	if err := w.readLimit(c); err != nil {
		return w.fail(c, s, err)
	}
	if w.pool == nil {
		return w.fail(c, s, fmt.Errorf("%w: no database", play.ErrNotFound))
	}
	p := w.newPage(c, s, "ratings", "profile.board.title")
	q := c.QueryParams()
	v := &boardView{Ruleset: q.Get("ruleset"), Counts: []int{2, 3, 4}, Players: 2, Provisional: q.Get("provisional") == "1"}
	rules := w.svc.Rules()
	for _, id := range rulesetIDs(rules) {
		v.Rulesets = append(v.Rulesets, rulesetOption{ID: id, Title: rulesetTitle(p.L, id)})
	}
	if v.Ruleset == "" {
		v.Ruleset = defaultBoardRuleset(v.Rulesets)
	}
	if _, err := rules.Get(v.Ruleset); err != nil {
		return w.fail(c, s, errorf(play.ErrInvalid, "profile.error.ruleset", "Ruleset", truncate(v.Ruleset, 40)))
	}
	if text := q.Get("players"); text != "" {
		n, err := strconv.Atoi(text)
		if err != nil || n < 2 || n > 4 {
			return w.fail(c, s, errorf(play.ErrInvalid, "profile.error.players"))
		}
		v.Players = n
	}
	start := 1
	if text := q.Get("start"); text != "" {
		n, err := strconv.Atoi(text)
		if err != nil || n < 1 || n > maxStart {
			return w.fail(c, s, errorf(play.ErrInvalid, "profile.error.cursor"))
		}
		start = n
	}
	board := projections.Leaderboard{Ruleset: v.Ruleset, Players: v.Players, Provisional: v.Provisional, Limit: boardPage, Cursor: q.Get("cursor")}
	rows, next, err := projections.ListRatings(c.Request().Context(), w.pool, board)
	if err == nil && len(rows) == 0 && !board.Provisional && board.Cursor == "" {
		// An empty board after the first rated games would say nobody
		// is rated: while nobody is established, the provisional
		// ratings stand in, each marked.
		board.Provisional = true
		rows, next, err = projections.ListRatings(c.Request().Context(), w.pool, board)
		v.OnlyProvisional = len(rows) > 0
		v.Provisional = v.OnlyProvisional
	}
	if errors.Is(err, projections.ErrInvalid) {
		return w.fail(c, s, errorf(play.ErrInvalid, "profile.error.cursor"))
	}
	if err != nil {
		return w.fail(c, s, err)
	}
	v.Rows = boardRows(p.L, s, rows, start)
	if next != "" {
		nq := url.Values{"ruleset": {v.Ruleset}, "players": {strconv.Itoa(v.Players)}, "cursor": {next},
			"start": {strconv.Itoa(start + len(rows))}}
		if v.Provisional {
			nq.Set("provisional", "1")
		}
		v.Next = "/ratings?" + nq.Encode()
	}
	p.Board = v
	return w.render(c, http.StatusOK, "ratings", p)
}

// defaultBoardRuleset is the leaderboard shown first: Azul Mini, the
// classic game, when the server plays it.
func defaultBoardRuleset(opts []rulesetOption) string {
	for _, o := range opts {
		if o.ID == "azul-mini" {
			return o.ID
		}
	}
	if len(opts) > 0 {
		return opts[0].ID
	}
	return ""
}

func rulesetIDs[M ~map[string]V, V any](m M) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// profileView is a player's or a bot's profile page.
type profileView struct {
	Name        string
	Bot         bool
	MemberSince string
	Own         bool
	// Hidden: the game lists are hidden from the reader; HidesGames: the
	// reader's own lists are hidden from others.
	Hidden, HidesGames bool
	Ratings            []profileRating
	Results            []profileResult
	Recent, Running    []profileGameLine
	// MoreRecent and MoreRunning link the pages that continue the lists
	// ("" when they end here).
	MoreRecent, MoreRunning string
	HeadToHead              *projections.HeadToHead
	// Chart is the rating history of the chosen rule set and number of
	// players; Series lets the reader choose another.
	Chart       template.HTML
	ChartTitle  string
	ChartPoints int
	Series      []chartChoice
}

type profileRating struct {
	Title, Href, Rating, Mu, Sigma string
	Games                          int
	Provisional                    bool
}

type profileResult struct {
	Title                        string
	Games, Wins                  int
	WinShare, MeanRank, Placings string
	MeanScore                    string
	BestScore                    int
}

// profileGameLine is one game of a profile's lists.
type profileGameLine struct {
	ID, Title string
	Opponents []seatLink
	// Result is a finished game's outcome for the player, Turn whose
	// move a running game waits for.
	Result, Turn string
	When         string
}

// seatLink is a name that links to its profile (Href "": no link).
type seatLink struct{ Name, Href string }

// chartChoice is one rule set and number of players the chart can show.
type chartChoice struct {
	Title, Href string
	Current     bool
}

// seriesKey names a rating's chart in the page's address.
func seriesKey(ruleset string, players int) string { return ruleset + "." + strconv.Itoa(players) }

// profilePage is GET /players/{id}: id is a player's id, "me", or a bot
// kind's subject (bot:greedy).
func (w *Web) profilePage(c echo.Context) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	if err := w.readLimit(c); err != nil {
		return w.fail(c, s, err)
	}
	if w.pool == nil {
		return w.fail(c, s, fmt.Errorf("%w: no database", play.ErrNotFound))
	}
	req := projections.ProfileRequest{Rulesets: rulesetIDs(w.svc.Rules()), History: true}
	id := c.Param("id")
	if bot, ok := strings.CutPrefix(id, projections.BotSubject); ok && bot != "" {
		req.Bot = bot
	} else if req.PlayerID, err = profilePlayer(id, s); errors.Is(err, errSignIn) {
		return c.Redirect(http.StatusSeeOther, "/signin")
	} else if err != nil {
		return w.fail(c, s, err)
	}
	if s != nil {
		req.Viewer = s.Player.ID
	}
	prof, err := projections.LoadProfile(c.Request().Context(), w.pool, req)
	if errors.Is(err, projections.ErrNoProfile) || errors.Is(err, projections.ErrInvalid) {
		return w.fail(c, s, fmt.Errorf("%w: %w", play.ErrNotFound, err))
	}
	if err != nil {
		return w.fail(c, s, err)
	}
	p := w.newPage(c, s, "profile", "profile.title")
	v := newProfileView(p.L, prof)
	v.chooseChart(p.L, prof, c.QueryParam("chart"), c.Request().URL.Path)
	p.Profile = v
	p.Title = v.Name
	return w.render(c, http.StatusOK, "profile", p)
}

// errSignIn: the path names the signed-in player ("me") and there is
// none; the page sends the visitor to sign in.
var errSignIn = errors.New("sign in to see your own profile")

// profilePlayer is the player a profile page's path names: "me" for the
// signed-in player, else a player id in its canonical form (any other
// text is not found).
func profilePlayer(id string, s *session) (string, error) {
	if id == "me" {
		if s == nil {
			return "", errSignIn
		}
		return s.Player.ID, nil
	}
	if u, err := uuid.Parse(id); err != nil || u.String() != strings.ToLower(id) {
		return "", fmt.Errorf("%w: player %.40q", play.ErrNotFound, id)
	}
	return strings.ToLower(id), nil
}

func newProfileView(l *i18n.Localizer, prof projections.Profile) *profileView {
	v := &profileView{Name: prof.Name, Bot: prof.Bot != "", Own: prof.OwnProfile, Hidden: prof.GamesHidden,
		HidesGames: prof.OwnProfile && prof.HidesGames, HeadToHead: prof.HeadToHead}
	if v.Bot {
		v.Name = BotName(l, prof.Bot)
	} else {
		v.MemberSince = l.Date(prof.MemberSince)
	}
	for _, r := range prof.Ratings {
		v.Ratings = append(v.Ratings, profileRating{
			Title:  boardTitle(l, r.Ruleset, r.Players),
			Href:   fmt.Sprintf("/ratings?ruleset=%s&players=%d", url.QueryEscape(r.Ruleset), r.Players),
			Rating: l.Decimal(r.Ordinal, 1), Mu: l.Decimal(r.Mu, 1), Sigma: l.Decimal(r.Sigma, 1), Games: r.Games, Provisional: r.Provisional})
	}
	for _, r := range prof.Results {
		places := make([]string, 0, len(r.Placings))
		for i, n := range r.Placings {
			places = append(places, l.T("profile.results.place", "Rank", l.Num(i+1), "Count", l.Num(n)))
		}
		v.Results = append(v.Results, profileResult{Title: boardTitle(l, r.Ruleset, r.Players), Games: r.Games, Wins: r.Wins,
			WinShare: l.Percent(float64(r.Wins) / float64(max(r.Games, 1))), MeanRank: l.Decimal(r.MeanRank, 1),
			Placings: strings.Join(places, " · "), MeanScore: l.Decimal(r.MeanScore, 1), BestScore: r.BestScore})
	}
	for _, g := range prof.Recent {
		v.Recent = append(v.Recent, gameLine(l, prof.PlayerID, g))
	}
	for _, g := range prof.Running {
		v.Running = append(v.Running, gameLine(l, prof.PlayerID, g))
	}
	v.MoreRecent = playerGamesPath(prof.PlayerID, statusFinished, prof.MoreRecent)
	v.MoreRunning = playerGamesPath(prof.PlayerID, statusRunning, prof.MoreRunning)
	return v
}

// The lists of a player's games, as their page's address names them.
const (
	statusFinished = "finished"
	statusRunning  = "running"
)

// playerGamesPath is the address of a page of a player's games: the one
// after cursor ("" when there is no cursor: the list ends).
func playerGamesPath(playerID, status, cursor string) string {
	if cursor == "" {
		return ""
	}
	return "/players/" + playerID + "/games?" + url.Values{"status": {status}, "cursor": {cursor}}.Encode()
}

// playerGamesPage is how many games a page of a player's games lists.
const playerGamesPage = 20

// playerGamesView is a page of a player's games.
type playerGamesView struct {
	// Title names the list and the player; Profile links their profile.
	Title, Name, Profile string
	Status               string
	Hidden               bool
	Games                []profileGameLine
	// Next is the next page's address, First the first page's (on a
	// later page); "" otherwise.
	Next, First string
}

// playerGamesPage is GET /players/{id}/games?status=finished|running:
// a player's games a page at a time, the latest move first (the
// profile's lists, whole). Read like the profile: counted by the
// profile_reads limit, nothing when the player hides their games, and
// only the private games the reader sits in.
func (w *Web) playerGamesPage(c echo.Context) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	if err := w.readLimit(c); err != nil {
		return w.fail(c, s, err)
	}
	if w.pool == nil {
		return w.fail(c, s, fmt.Errorf("%w: no database", play.ErrNotFound))
	}
	id, err := profilePlayer(c.Param("id"), s)
	if errors.Is(err, errSignIn) {
		return c.Redirect(http.StatusSeeOther, "/signin")
	} else if err != nil {
		return w.fail(c, s, err)
	}
	v := &playerGamesView{Status: c.QueryParam("status"), Profile: "/players/" + id}
	req := projections.PlayerGamesRequest{PlayerID: id, Cursor: c.QueryParam("cursor"), Limit: playerGamesPage}
	switch v.Status {
	case "", statusFinished:
		v.Status, req.Status = statusFinished, play.StatusFinished
	case statusRunning:
		req.Status = play.StatusActive
	default:
		return w.fail(c, s, errorf(play.ErrInvalid, "profile.error.games_status"))
	}
	if s != nil {
		req.Viewer = s.Player.ID
	}
	ctx := c.Request().Context()
	var name string
	if err := w.pool.QueryRow(ctx, `SELECT name FROM players WHERE id = $1`, id).Scan(&name); errors.Is(err, pgx.ErrNoRows) {
		return w.fail(c, s, fmt.Errorf("%w: player %s", play.ErrNotFound, id))
	} else if err != nil {
		return w.fail(c, s, fmt.Errorf("games of player %s: %w", id, err))
	}
	list, err := projections.LoadPlayerGames(ctx, w.pool, req)
	switch {
	case errors.Is(err, projections.ErrNoProfile):
		return w.fail(c, s, fmt.Errorf("%w: %w", play.ErrNotFound, err))
	case errors.Is(err, projections.ErrInvalid):
		return w.fail(c, s, errorf(play.ErrInvalid, "profile.error.cursor"))
	case err != nil:
		return w.fail(c, s, err)
	}
	p := w.newPage(c, s, "profile-games", "profile.title")
	v.Name, v.Hidden = name, list.Hidden
	v.Title = p.L.T("profile.list."+v.Status, "Name", name)
	for _, g := range list.Games {
		v.Games = append(v.Games, gameLine(p.L, id, g))
	}
	v.Next = playerGamesPath(id, v.Status, list.Next)
	if req.Cursor != "" {
		v.First = "/players/" + id + "/games?" + url.Values{"status": {v.Status}}.Encode()
	}
	p.PlayerGames = v
	p.Title = v.Title
	return w.render(c, http.StatusOK, "profile-games", p)
}

// boardTitle names a rule set and number of players ("Azul Mini, 2
// players").
func boardTitle(l *i18n.Localizer, ruleset string, players int) string {
	return l.N("profile.board.name", players, "Ruleset", rulesetTitle(l, ruleset))
}

// gameLine is a game as player's profile lists it.
func gameLine(l *i18n.Localizer, player string, g projections.GameRow) profileGameLine {
	line := profileGameLine{ID: g.ID, Title: rulesetTitle(l, g.Ruleset), When: l.Date(g.LastMoveAt)}
	var mine []int
	for _, s := range g.Seats {
		if s.PlayerID == player {
			mine = append(mine, s.Seat)
			continue
		}
		name := seatLabel(l, s.Name, s.Bot, s.PlayerID)
		if s.Bot != "" {
			name = BotName(l, s.Bot)
		}
		line.Opponents = append(line.Opponents, seatLink{Name: name, Href: ProfilePath(s.PlayerID, s.Bot, s.Name)})
	}
	label := func(i int) string {
		if i < 0 || i >= len(g.Seats) {
			return ""
		}
		s := g.Seats[i]
		return seatLabel(l, s.Name, s.Bot, s.PlayerID)
	}
	if g.Final != nil {
		rank, score := 0, 0
		for _, fp := range g.Final.Players {
			if slices.Contains(mine, fp.Seat) && (rank == 0 || fp.Rank < rank) {
				rank, score = fp.Rank, fp.Score
			}
		}
		if rank == 1 {
			line.Result = l.T("profile.game.won", "Points", l.N("game.points", score))
		} else {
			line.Result = l.T("profile.game.placed", "Rank", l.Num(rank), "Points", l.N("game.points", score))
		}
		return line
	}
	var toAct []string
	for _, i := range g.ToAct {
		toAct = append(toAct, label(i))
	}
	if len(toAct) > 0 {
		line.Turn = l.T("profile.game.turn_of", "Names", l.List(toAct))
	}
	return line
}

// chooseChart draws the chart of the rating the reader chose (key
// "ruleset.players"), by default the one played last.
func (v *profileView) chooseChart(l *i18n.Localizer, prof projections.Profile, key, path string) {
	if len(prof.Ratings) == 0 {
		return
	}
	cur := prof.Ratings[0]
	for _, r := range prof.Ratings {
		if seriesKey(r.Ruleset, r.Players) == key {
			cur = r
		}
	}
	if len(prof.Ratings) > 1 {
		for _, r := range prof.Ratings {
			k := seriesKey(r.Ruleset, r.Players)
			v.Series = append(v.Series, chartChoice{Title: boardTitle(l, r.Ruleset, r.Players),
				Href: path + "?chart=" + url.QueryEscape(k) + "#chart", Current: k == seriesKey(cur.Ruleset, cur.Players)})
		}
	}
	var pts []projections.RatingPoint
	for _, p := range prof.History {
		if p.Ruleset == cur.Ruleset && p.Players == cur.Players {
			pts = append(pts, p)
		}
	}
	v.ChartTitle = boardTitle(l, cur.Ruleset, cur.Players)
	v.ChartPoints = len(pts)
	v.Chart = ratingChart(l, v.ChartTitle, pts)
}
