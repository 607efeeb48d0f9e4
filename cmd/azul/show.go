package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/azuld/azuld/internal/apiclient"
)

// table is one version of a game as azul shows it.
type table struct {
	state apiclient.GameResponse
	body  []byte // the state JSON as sent
}

// fetchTable reads a version of a game (0: the current one); the table
// is drawn from its JSON in the reader's words.
func (a *app) fetchTable(ctx context.Context, id uuid.UUID, version int) (*table, error) {
	var t table
	if version == 0 {
		res, err := a.api.GetGameWithResponse(ctx, id, &apiclient.GetGameParams{})
		if err := a.result(res, err, http.StatusOK); err != nil {
			return nil, err
		}
		t.state, t.body = *res.JSON200, res.Body
		version = t.state.Version
	} else {
		res, err := a.api.GameStateWithResponse(ctx, id, &apiclient.GameStateParams{Version: &version})
		if err := a.result(res, err, http.StatusOK); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(res.Body, &t.state); err != nil {
			return nil, &mismatchError{err.Error()}
		}
		yourSeats(&t.state, a.whoAmI(ctx))
		t.body = res.Body
	}
	return &t, nil
}

// render is the screen for a table: a header with the seats and who is
// to act, then the table drawn in the reader's words, coloured when
// colour is on.
func (a *app) render(t *table, colour bool) string {
	l := a.l
	s := t.state
	var b strings.Builder
	b.WriteString(l.T("cli.show.header", "ID", s.Id, "Ruleset", a.ruleset(string(s.Ruleset)), "Version", s.Version, "Status", a.status(string(s.Status))))
	if deref(s.Undone) {
		b.WriteString("  " + l.T("cli.show.undone", "Version", deref(s.UndoneBy)))
	}
	b.WriteString("\n")
	var seats []string
	for _, seat := range s.Seats {
		seats = append(seats, fmt.Sprintf("%d %s", seat.Seat, a.seatLabel(seat, s.YourSeats)))
	}
	b.WriteString(l.T("cli.show.seats", "Seats", strings.Join(seats, ", ")) + "\n")
	if s.Status == "active" {
		b.WriteString(l.T("cli.show.to_act", "Seats", a.seatNames(s.Seats, s.ToAct)))
		for _, seat := range s.ToAct {
			if slices.Contains(s.YourSeats, seat) {
				b.WriteString("  <- " + l.T("cli.show.your_move"))
				break
			}
		}
		b.WriteString("\n")
	}
	if s.Deadline != nil && s.Status == "active" {
		b.WriteString(l.T("cli.show.deadline", "Time", l.Time(*s.Deadline)) + "\n")
	}
	if s.PendingTakeback != nil {
		tb := s.PendingTakeback
		b.WriteString(l.N("cli.show.takeback", tb.Moves, "Seat", tb.Seat, "ID", tb.Id) + "\n")
	}
	b.WriteString("\n")
	if s.Version == 0 {
		b.WriteString(l.T("cli.show.no_events") + "\n")
	} else {
		b.WriteString(a.drawBoardColour(&s, colour))
	}
	return b.String()
}

func (a *app) showCommand() *cobra.Command {
	var version int
	cmd := &cobra.Command{
		Use:               "show GAME",
		Args:              a.args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			if cmd.Flags().Changed("version") && version < 1 {
				return a.usage("cli.error.version_min")
			}
			t, err := a.fetchTable(cmd.Context(), id, version)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(t.body)
			}
			fmt.Fprint(a.out, a.render(t, a.colour()))
			if version == 0 && len(t.state.LegalMoves) > 0 {
				fmt.Fprintln(a.out, "\n"+a.l.N("cli.show.legal_moves", len(t.state.LegalMoves), "Command", "azul moves "+id.String()))
			}
			return nil
		}),
	}
	cmd.Flags().IntVar(&version, "version", 0, a.l.T("cli.flag.version"))
	return cmd
}

// legalMoves reads the caller's legal moves (or a seat's).
func (a *app) legalMoves(ctx context.Context, id uuid.UUID, seat *int) (*apiclient.LegalMovesResponse, error) {
	res, err := a.api.LegalMovesWithResponse(ctx, id, &apiclient.LegalMovesParams{Seat: seat})
	if err := a.result(res, err, http.StatusOK); err != nil {
		return nil, err
	}
	return res, nil
}

func (a *app) movesCommand() *cobra.Command {
	var seat int
	cmd := &cobra.Command{
		Use:               "moves GAME",
		Args:              a.args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			var seatP *int
			if cmd.Flags().Changed("seat") {
				seatP = &seat
			} else if err := a.needToken(); err != nil {
				return err
			}
			res, err := a.legalMoves(cmd.Context(), id, seatP)
			if err != nil {
				return err
			}
			if a.jsonOut {
				if err := a.printJSON(res.Body); err != nil {
					return err
				}
				return a.rememberList(id, res.JSON200)
			}
			return a.printMoveList(cmd.Context(), id, res.JSON200)
		}),
	}
	cmd.Flags().IntVar(&seat, "seat", 0, a.l.T("cli.flag.moves_seat"))
	return cmd
}

// toAct is who is to act: "seat 1", or "nobody".
func (a *app) toAct(xs []int) string {
	if len(xs) == 0 {
		return a.l.T("cli.seat.nobody")
	}
	return a.seatList(xs)
}

func (a *app) moveCommand() *cobra.Command {
	var seat int
	cmd := &cobra.Command{
		Use: "move GAME MOVE",
		// The examples in the reader's move words, and the notation.
		Example: "  azul move $GAME 7\n" +
			"  azul move $GAME " + a.say("azul-mini", "F2 red 3") + "\n" +
			"  azul move $GAME " + a.say("azul-mini", "C blue floor") + "\n" +
			"  azul move $GAME " + a.say("summer-pavilion", "place blue s0 6 w3") + "\n" +
			"  azul move $GAME F2 red 3\n" +
			`  azul move $GAME '{"type": "take", "factory": 2, "color": "red", "line": 3}'`,
		Args:              a.args(2, -1),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			var seatP *int
			if cmd.Flags().Changed("seat") {
				seatP = &seat
			}
			res, err := a.postMove(cmd.Context(), id, seatP, strings.TrimSpace(strings.Join(args[1:], " ")))
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			return a.printMoveResult(cmd.Context(), id, res.JSON201)
		}),
	}
	cmd.Flags().IntVar(&seat, "seat", 0, a.l.T("cli.flag.move_seat"))
	return cmd
}

// postMove sends a move given as a number, JSON or notation.
func (a *app) postMove(ctx context.Context, id uuid.UUID, seat *int, move string) (*apiclient.MoveResponse, error) {
	params := &apiclient.MoveParams{Seat: seat}
	if move == "" {
		return nil, a.usage("cli.move.none")
	}
	n, bound, isNumber, err := a.moveNumber(move)
	if err != nil {
		return nil, err
	}
	if isNumber {
		return a.postNumbered(ctx, id, seat, n, bound)
	}
	if strings.HasPrefix(move, "{") {
		if !json.Valid([]byte(move)) {
			return nil, a.usage("cli.move.bad_json")
		}
		res, err := a.api.MoveWithBodyWithResponse(ctx, id, params, "application/json", strings.NewReader(move))
		return res, a.result(res, err, http.StatusCreated)
	}
	// A move in words: the reader's language (or another's, where
	// unambiguous) read into the notation the server parses. The words
	// depend on the game's rule set.
	ruleset, err := a.rulesetOf(ctx, id)
	if err != nil {
		return nil, err
	}
	canon, err := a.readMove(ruleset, move)
	if err != nil {
		return nil, err
	}
	res, err := a.api.MoveWithTextBodyWithResponse(ctx, id, params, canon)
	return res, a.sayProblem(a.result(res, err, http.StatusCreated), ruleset)
}

// postNumbered plays move n of the list of legal moves the number came
// from: the last list printed for the game, or the one of version bound.
// A number from a list the game has since left is refused (exit 3) and
// the list of now is printed instead, as a reply by mail to an old turn
// mail is.
func (a *app) postNumbered(ctx context.Context, id uuid.UUID, seat *int, n, bound int) (*apiclient.MoveResponse, error) {
	lm, err := a.legalMoves(ctx, id, seat)
	if err != nil {
		return nil, err
	}
	moves := lm.JSON200.Moves
	if len(moves) == 0 {
		return nil, a.fail(exitRefused, "cli.move.no_move", "ToAct", a.toAct(lm.JSON200.ToAct))
	}
	if why := a.staleNumber(n, bound, a.lastList(id), lm.JSON200); why != "" {
		return nil, a.refuseWithList(ctx, id, lm, why)
	}
	if n < 1 || n > len(moves) {
		return nil, a.usage("cli.move.bad_number", "N", n, "Max", len(moves), "Command", "azul moves "+id.String())
	}
	m := moves[n-1]
	body, err := json.Marshal(map[string]any{"move": m.Move, "seat": m.Seat})
	if err != nil {
		return nil, a.wrapf(err, "cli.move.encode")
	}
	// If-Match: a move that lands between the list and this one is not
	// overtaken silently.
	ifMatch := strconv.Itoa(lm.JSON200.Version)
	params := &apiclient.MoveParams{Seat: seat, IfMatch: &ifMatch}
	res, err := a.api.MoveWithBodyWithResponse(ctx, id, params, "application/json", strings.NewReader(string(body)))
	if err := a.result(res, err, http.StatusCreated); err != nil {
		var pe *problemError
		if !errors.As(err, &pe) || !strings.HasSuffix(string(pe.p.Type), "/version-conflict") {
			return nil, err
		}
		now, lerr := a.legalMoves(ctx, id, seat)
		if lerr != nil {
			return nil, err
		}
		return nil, a.refuseWithList(ctx, id, now, a.l.T("cli.move.overtaken", "N", n, "Version", lm.JSON200.Version, "Now", now.JSON200.Version))
	}
	return res, nil
}

// refuseWithList prints the moves of now, remembered, and returns the
// refusal (exit 3).
func (a *app) refuseWithList(ctx context.Context, id uuid.UUID, lm *apiclient.LegalMovesResponse, why string) error {
	var err error
	if a.jsonOut {
		if err = a.printJSON(lm.Body); err == nil {
			err = a.rememberList(id, lm.JSON200)
		}
	} else {
		err = a.printMoveList(ctx, id, lm.JSON200)
	}
	if err != nil {
		return err
	}
	return &exitError{code: exitRefused, err: errors.New(a.l.T("cli.move.listed_above", "Why", why))}
}

// printMoveResult tells what a move did: one line for the move, then
// what followed from it automatically (at a round's end: the walls, the
// floors, the next deal), one line each, and who is to act now.
func (a *app) printMoveResult(ctx context.Context, id uuid.UUID, r *apiclient.MoveResult) error {
	evs := r.Events
	if len(evs) > 0 {
		// The move's answer has the events as stored; the log has them
		// described, with the players' names.
		after, limit := evs[0].Version-1, len(evs)
		res, err := a.api.GameEventsWithResponse(ctx, id, &apiclient.GameEventsParams{After: &after, Limit: &limit})
		if err := a.result(res, err, http.StatusOK); err != nil {
			return err
		}
		evs = res.JSON200.Events
		a.noteEventsLanguage(res.HTTPResponse)
	}
	g, err := a.api.GetGameWithResponse(ctx, id, &apiclient.GetGameParams{})
	if err := a.result(g, err, http.StatusOK); err != nil {
		return err
	}
	names := a.seatNamesOf(g.JSON200.Seats)
	ruleset := g.JSON200.Ruleset
	a.setGame(ruleset, g.JSON200.Seats)
	for _, t := range byCommand(evs) {
		m := t.own.Meta
		if m.Notation != nil && m.Actor != nil && m.Actor.Seat != nil {
			fmt.Fprintln(a.out, a.l.T("cli.move.played", "Name", a.seatName(names, *m.Actor.Seat), "Move", a.say(ruleset, *m.Notation), "Version", t.own.Version))
		} else {
			fmt.Fprintln(a.out, a.l.T("cli.move.event", "Event", a.describe(t.own), "Version", t.own.Version))
		}
		if len(t.auto) > 0 {
			fmt.Fprintln(a.out, a.l.T("cli.move.then", "From", t.auto[0].Version, "To", t.auto[len(t.auto)-1].Version))
			for _, ev := range t.auto {
				fmt.Fprintf(a.out, "  %s\n", a.describe(ev))
			}
		}
	}
	fmt.Fprintln(a.out, a.l.T("cli.move.now", "ID", id, "Version", r.CurrentVersion, "Status", a.status(string(r.Status)), "ToAct", a.seatNames(g.JSON200.Seats, r.ToAct)))
	return nil
}
