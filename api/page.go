package api

import (
	"bytes"
	"html/template"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// gamePage is the read-only HTML page of a game (GET /games/{id}): the
// page every mail links to. It shows the table as the mails draw it, who
// must act, the scores, the final result, and the links to the JSON API
// (moves are made by answering a mail or through the API).
func (s *Server) gamePage(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	g, err := s.svc.Game(c.Request().Context(), id)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := gamePageTemplate.Execute(&buf, newGamePageData(g)); err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderCacheControl, "no-cache")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	return c.HTMLBlob(http.StatusOK, buf.Bytes())
}

// gamePageData is what the game page shows.
type gamePageData struct {
	ID, Title, Status string
	Version           int64
	Seats             []gamePageSeat
	Deadline          *time.Time
	Board             string
	Final             *engine.Final
	Winners           []string
	Pending           *play.Takeback
}

type gamePageSeat struct {
	Seat    int
	Name    string
	Score   int
	ToAct   bool
	Waiting bool // a free seat
}

func newGamePageData(g *play.Game) gamePageData {
	d := gamePageData{ID: g.ID, Title: compose.Title(g.Config.Ruleset), Status: g.Status, Version: g.Version,
		Deadline: g.Deadline, Board: g.Text(), Pending: g.PendingTakeback()}
	toAct := g.ToAct()
	var scores []int
	if g.State != nil {
		scores = g.State.Scores()
		d.Final = g.State.Final()
	}
	for i, seat := range g.Seats {
		ps := gamePageSeat{Seat: i, Name: seatName(seat), ToAct: slices.Contains(toAct, i), Waiting: seat.PlayerID == "" && seat.Bot == ""}
		if i < len(scores) {
			ps.Score = scores[i]
		}
		d.Seats = append(d.Seats, ps)
	}
	if d.Final != nil {
		for _, w := range d.Final.Winners {
			if w >= 0 && w < len(d.Seats) {
				d.Winners = append(d.Winners, d.Seats[w].Name)
			}
		}
	}
	return d
}

// seatName is how the page names a seat.
func seatName(s play.Seat) string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Bot != "":
		return s.Bot + " bot"
	case s.PlayerID == "":
		return "(free seat)"
	}
	return "player"
}

var gamePageTemplate = template.Must(template.New("game").Funcs(template.FuncMap{
	"rfc3339": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} — game {{.ID}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5rem auto; max-width: 46rem; padding: 0 1rem; color: #222; }
pre { background: #f6f3ec; padding: 1rem; overflow-x: auto; font-size: 0.9rem; line-height: 1.3; }
table { border-collapse: collapse; } td, th { padding: 0.2rem 0.8rem 0.2rem 0; text-align: left; }
.act { font-weight: bold; } .muted { color: #666; font-size: 0.9rem; }
</style></head>
<body>
<h1>{{.Title}}</h1>
<p class="muted">Game {{.ID}} · version {{.Version}} · {{.Status}}</p>
<table>
<tr><th>Seat</th><th>Player</th><th>Score</th><th></th></tr>
{{range .Seats}}<tr{{if .ToAct}} class="act"{{end}}><td>{{.Seat}}</td><td>{{.Name}}</td><td>{{.Score}}</td><td>{{if .ToAct}}to move{{else if .Waiting}}waiting for a player{{end}}</td></tr>
{{end}}</table>
{{if .Deadline}}<p>The seats to move have until {{rfc3339 .Deadline}}.</p>{{end}}
{{if .Pending}}<p>A take-back is pending: seat {{.Pending.Seat}} asks to go back to version {{.Pending.ToVersion}}.</p>{{end}}
{{if .Final}}<h2>Result</h2>
<p>Won by {{range $i, $w := .Winners}}{{if $i}} and {{end}}{{$w}}{{end}} ({{.Final.Reason}}).</p>
<table><tr><th>Rank</th><th>Seat</th><th>Score</th><th>Breakdown</th></tr>
{{range .Final.Players}}<tr><td>{{.Rank}}</td><td>{{.Seat}}</td><td>{{.Score}}</td><td>{{range .Breakdown}}{{.Item}} {{.Count}} → {{.Points}}; {{end}}</td></tr>
{{end}}</table>{{end}}
{{if eq .Status "open"}}<p>Free seats are taken with <code>POST /v1/games/{{.ID}}/join</code> and your player token.</p>{{end}}
<pre>{{.Board}}</pre>
<p>To move, answer the game's last mail, or post the move to <code>/v1/games/{{.ID}}/moves</code>.</p>
<p class="muted">
<a href="/v1/games/{{.ID}}">state (JSON)</a> ·
<a href="/v1/games/{{.ID}}/events">event log</a> ·
<a href="/v1/games/{{.ID}}/events?format=jsonl">log as JSON lines</a> ·
<a href="/v1/games/{{.ID}}/rounds">rounds</a> ·
<a href="/v1/games/{{.ID}}/verify">fairness check</a>
</p>
</body></html>
`))
