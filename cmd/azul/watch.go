package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/azuld/azuld/internal/apiclient"
)

// sseMessage is one server-sent event.
type sseMessage struct {
	event string
	id    string
	data  string
}

// readSSE calls fn for every message of an event stream until it ends.
func readSSE(r io.Reader, fn func(sseMessage) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var m sseMessage
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if len(data) > 0 || m.event != "" {
				m.data = strings.Join(data, "\n")
				if err := fn(m); err != nil {
					return err
				}
			}
			m, data = sseMessage{}, nil
		case strings.HasPrefix(line, ":"):
			// A comment: the server's heartbeat.
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				m.event = value
			case "id":
				m.id = value
			case "data":
				data = append(data, value)
			}
		}
	}
	return sc.Err()
}

// errFinished ends a watch: the game is over.
var errFinished = errors.New("the game is over")

func (a *app) watchCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:               "watch GAME",
		Args:              a.args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			ctx := cmd.Context()
			err := a.watch(ctx, id)
			// Stopping a watch (Ctrl-C) is its normal end.
			if errors.Is(err, errFinished) || ctx.Err() != nil {
				return nil
			}
			return err
		}),
	}
	return cmd
}

// watch follows the stream, reconnecting with Last-Event-ID when the
// server closes it (a restart), until the game ends or ctx is done.
func (a *app) watch(ctx context.Context, id uuid.UUID) error {
	w := &watcher{app: a, id: id, tty: isTerminal(a.out), colour: a.colour(), last: -1, me: a.whoAmI(ctx)}
	if !a.jsonOut {
		// The moves before the watch began; the stream then starts right
		// after them, so that none made in between is missed.
		res, err := a.api.GetGameWithResponse(ctx, id, &apiclient.GetGameParams{})
		if err := a.result(res, err, http.StatusOK); err != nil {
			return err
		}
		a.setGame(res.JSON200.Ruleset, res.JSON200.Seats)
		// Far enough back for the last moves and the rounds' ends
		// between them.
		from := max(res.JSON200.Version-recentMoves*12, 0)
		if from > 0 {
			// The event before: whether the first ones read followed
			// from a move out of sight.
			after, one := from-1, 1
			res, err := a.api.GameEventsWithResponse(ctx, id, &apiclient.GameEventsParams{After: &after, Limit: &one})
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			if evs := res.JSON200.Events; len(evs) == 1 {
				w.lastEvent, w.listed = &evs[0], evs[0].Version
			}
		}
		if err := w.catchUp(ctx, w.listed, res.JSON200.Version); err != nil {
			return err
		}
		w.last = w.listed
	}
	for attempt := 0; ; attempt++ {
		connected, err := w.follow(ctx)
		if err != nil {
			return err
		}
		if connected {
			attempt = 0
		}
		if attempt >= 5 {
			return a.fail(exitNetwork, "cli.watch.stream_failing", "Server", a.cfg.Server)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * time.Second):
		}
	}
}

// watcher is the state of one watch.
type watcher struct {
	app    *app
	id     uuid.UUID
	me     string
	tty    bool
	colour bool
	// last is the last version the stream sent (-1: none yet), for
	// Last-Event-ID.
	last int
	// turns are the latest moves, oldest first, each with what followed
	// it automatically; listed is the version of the last event in them,
	// and lastEvent that event.
	turns     []turn
	listed    int
	lastEvent *apiclient.Event
	// names are the seats' names, from the latest state.
	names map[int]string
}

// follow reads the stream once; connected reports whether it got a
// stream (a reconnect then starts its back-off afresh).
func (w *watcher) follow(ctx context.Context) (connected bool, err error) {
	a := w.app
	params := &apiclient.GameStreamParams{}
	if w.last >= 0 {
		params.LastEventId = &w.last
	}
	req, err := apiclient.NewGameStreamRequest(a.cfg.Server, w.id, params)
	if err != nil {
		return false, a.wrapf(err, "cli.watch.stream_failing", "Server", a.cfg.Server)
	}
	req = req.WithContext(ctx)
	req.Header.Set("Accept", "text/event-stream")
	if err := a.authorize(ctx, req); err != nil {
		return false, err
	}
	// The stream has no response deadline of its own; the heartbeat keeps
	// it alive.
	client := &http.Client{Transport: a.http.Transport}
	res, err := client.Do(req)
	if err != nil {
		if w.last < 0 {
			return false, a.transportError(err)
		}
		return false, nil
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		return false, a.result(&apiclient.GameStreamResponse{Body: body, HTTPResponse: res}, nil, http.StatusOK)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		return false, &exitError{code: exitFailure, err: &mismatchError{"the stream came as " + ct}}
	}
	err = readSSE(res.Body, func(m sseMessage) error { return w.message(ctx, m) })
	if errors.Is(err, errFinished) || ctx.Err() != nil {
		return true, err
	}
	// The stream ended (the server restarted): reconnect.
	return true, nil
}

// message handles one message of the stream.
func (w *watcher) message(ctx context.Context, m sseMessage) error {
	a := w.app
	if v, err := strconv.Atoi(m.id); err == nil && v > w.last {
		w.last = v
	}
	if a.jsonOut {
		if err := a.printJSON([]byte(m.data)); err != nil {
			return err
		}
		if m.event == "state" && strings.Contains(m.data, `"status":"finished"`) {
			return errFinished
		}
		return nil
	}
	if m.event != "state" {
		// The events themselves are read described, with the state.
		return nil
	}
	var st apiclient.GameResponse
	if err := json.Unmarshal([]byte(m.data), &st); err != nil {
		return &exitError{code: exitFailure, err: &mismatchError{"a state message: " + err.Error()}}
	}
	t := &table{state: st}
	yourSeats(&t.state, w.me)
	w.names = w.app.seatNamesOf(st.Seats)
	w.app.setGame(st.Ruleset, st.Seats)
	if err := w.catchUp(ctx, w.listed, st.Version); err != nil {
		return err
	}
	w.draw(t)
	if st.Status == "finished" {
		return errFinished
	}
	return nil
}

// recentMoves is how many moves a watch lists below the table.
const recentMoves = 6

// catchUp adds the events after version after up to version upTo to the
// latest moves, described; each event is added once, whenever the
// stream is reconnected.
func (w *watcher) catchUp(ctx context.Context, after, upTo int) error {
	a := w.app
	for after < upTo {
		limit := min(upTo-after, 1000)
		res, err := a.api.GameEventsWithResponse(ctx, w.id, &apiclient.GameEventsParams{After: &after, Limit: &limit})
		if res != nil {
			a.noteEventsLanguage(res.HTTPResponse)
		}
		if err := a.result(res, err, http.StatusOK); err != nil {
			return err
		}
		page := res.JSON200.Events
		if len(page) == 0 {
			return nil
		}
		for _, ev := range page {
			w.add(ev)
		}
		after = page[len(page)-1].Version
	}
	return nil
}

// add puts an event in the latest moves: a move of its own, or what
// followed from the move before it.
func (w *watcher) add(ev apiclient.Event) {
	if ev.Version <= w.listed {
		return
	}
	follows := followsCommand(w.lastEvent, ev)
	w.lastEvent, w.listed = &ev, ev.Version
	switch {
	case follows && len(w.turns) > 0:
		last := &w.turns[len(w.turns)-1]
		last.auto = append(last.auto, ev)
	case follows:
		// What followed a move out of sight.
	default:
		w.turns = append(w.turns, turn{own: ev})
		if len(w.turns) > recentMoves {
			w.turns = w.turns[len(w.turns)-recentMoves:]
		}
	}
}

// draw shows a table: the screen is cleared on a terminal, otherwise the
// tables follow each other.
func (w *watcher) draw(t *table) {
	var b strings.Builder
	if w.tty {
		b.WriteString("\x1b[H\x1b[2J")
	} else if w.last > 0 {
		b.WriteString("\n")
	}
	a := w.app
	b.WriteString(a.render(t, w.colour))
	if len(w.turns) > 0 {
		b.WriteString("\n" + a.l.T("cli.watch.last_moves") + "\n")
		for _, t := range w.turns {
			fmt.Fprintf(&b, "%4d  %s\n", t.own.Version, a.describe(t.own))
			if then := a.aftermath(t, w.names); then != "" {
				fmt.Fprintf(&b, "      %s\n", then)
			}
		}
	}
	if t.state.Status == "finished" {
		b.WriteString("\n" + a.l.T("cli.watch.over_long") + "\n")
	} else {
		b.WriteString("\n" + a.l.T("cli.watch.watching") + "\n")
	}
	fmt.Fprint(w.app.out, b.String())
}

// yourSeats fills in the caller's seats of a state that does not name
// them (a stream or replay state).
func yourSeats(st *apiclient.GameResponse, me string) {
	if me == "" || len(st.YourSeats) > 0 {
		return
	}
	for _, s := range st.Seats {
		if s.PlayerId != nil && *s.PlayerId == me {
			st.YourSeats = append(st.YourSeats, s.Seat)
		}
	}
}

// whoAmI is the caller's player id ("" without a token, or when the
// server does not know it): the seats of a past state are marked with it.
func (a *app) whoAmI(ctx context.Context) string {
	if a.cfg.Token == "" {
		return ""
	}
	if a.me == nil {
		me := ""
		res, err := a.api.MeWithResponse(ctx)
		if err == nil && res.JSON200 != nil {
			me = res.JSON200.Id.String()
		}
		a.me = &me
	}
	return *a.me
}
