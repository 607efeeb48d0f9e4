package main

import (
	"net/http"
	"strings"

	"github.com/azuld/azuld/internal/apiclient"
)

// An event's one-line description comes from the server, in the language
// its answer names (Content-Language; none means English). When that is
// not the reader's language, azul says the event itself, from its type
// and data, in the reader's words: a move by its notation in their move
// words, the rules' own events (a wall tiled, a floor scored, a new
// round) by catalogue messages.

// noteEventsLanguage remembers the language of an answer with events.
func (a *app) noteEventsLanguage(res *http.Response) {
	lang := "en"
	if res != nil {
		if cl := res.Header.Get("Content-Language"); cl != "" {
			lang = strings.ToLower(strings.TrimSpace(strings.SplitN(strings.SplitN(cl, ",", 2)[0], "-", 2)[0]))
		}
	}
	a.eventsLang = lang
}

// setGame tells the describer whose game the events are of.
func (a *app) setGame(ruleset apiclient.Ruleset, seats []apiclient.Seat) {
	a.gameRuleset = ruleset
	a.gameNames = a.seatNamesOf(seats)
}

// describe is an event's one-line description in the reader's language.
func (a *app) describe(ev apiclient.Event) string {
	if d := deref(ev.Description); d != "" && a.eventsLang != "" && a.eventsLang == a.lang() {
		return d
	}
	return a.describeHere(ev)
}

// describeHere says an event from its type and data.
func (a *app) describeHere(ev apiclient.Event) string {
	l := a.l
	num := func(key string) int {
		f, _ := ev.Data[key].(float64)
		return int(f)
	}
	str := func(key string) string {
		s, _ := ev.Data[key].(string)
		return s
	}
	name := func() string { return a.seatName(a.gameNames, num("seat")) }
	// The rules' own events first: those that follow a move share its
	// notation, but are not the move.
	switch ev.Type {
	case "game_started":
		return l.T("cli.event.game_started")
	case "factories_filled", "round_started":
		return l.T("cli.event.round_started", "Round", num("round"))
	case "wall_tiled":
		return l.T("cli.event.wall_tiled", "Name", name(), "Tile", a.tile(str("color")), "Line", num("line"),
			"Column", num("column"), "Points", l.N("game.points", num("points")), "Score", num("score"))
	case "line_to_floor":
		return l.T("cli.event.line_to_floor", "Name", name(), "Line", num("line"))
	case "floor_scored":
		return l.T("cli.event.floor_scored", "Name", name(), "Points", l.N("game.points", num("points_lost")), "Score", num("score"))
	case "acquisition_ended":
		return l.T("cli.event.acquisition_ended")
	case "supply_refilled":
		return l.T("cli.event.supply_refilled")
	case "game_ended":
		return l.T("cli.event.game_ended")
	}
	if m := ev.Meta; m.Notation != nil && *m.Notation != "" && m.Actor != nil && m.Actor.Seat != nil {
		return l.T("cli.event.played", "Name", a.seatName(a.gameNames, *m.Actor.Seat), "Move", a.say(a.gameRuleset, *m.Notation))
	}
	switch ev.Type {
	case "game.created":
		return l.T("cli.event.created")
	case "game.joined":
		return l.T("cli.event.joined", "Seat", num("seat"))
	case "game.seat_left":
		return l.T("cli.event.seat_left", "Seat", num("seat"))
	case "game.seed_revealed":
		return l.T("cli.event.seed_revealed")
	case "game.rematch":
		return l.T("cli.event.rematch", "ID", str("game_id"))
	case "game.imported":
		return l.T("cli.event.imported")
	case "game.message":
		who := l.T("cli.seat.n", "N", num("seat"))
		if m := ev.Meta; m.Actor != nil && m.Actor.Seat != nil {
			who = a.seatName(a.gameNames, *m.Actor.Seat)
		}
		// Table talk a reader may not read comes without its text.
		if text := str("text"); text != "" {
			return l.T("cli.event.message", "Name", who, "Text", text)
		}
		return l.T("cli.event.message_hidden", "Name", who)
	case "game.reservation_declined":
		return l.T("cli.event.reservation_declined", "Seat", num("seat"))
	case "game.reservation_expired":
		return l.T("cli.event.reservation_expired", "Seat", num("seat"))
	case "game.takeback_requested":
		return l.T("cli.event.takeback_requested", "Seat", num("seat"))
	case "game.takeback_accepted":
		return l.T("cli.event.takeback_accepted", "Seat", num("seat"), "ID", num("takeback"))
	case "game.takeback_declined":
		return l.T("cli.event.takeback_declined", "Seat", num("seat"), "ID", num("takeback"))
	case "game.taken_back":
		return l.T("cli.event.taken_back", "Version", num("to_version"))
	case "passed":
		return l.T("cli.event.passed", "Name", name())
	case "resigned":
		return l.T("cli.event.resigned", "Name", name())
	}
	return l.T("cli.event.unknown", "Type", ev.Type)
}

// tile is one tile of a colour in the reader's words ("1 rote Fliese").
func (a *app) tile(c string) string {
	if id := "game.tiles_of." + c; a.cat.Has(id) {
		return a.l.N(id, 1)
	}
	return c
}
