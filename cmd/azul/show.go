package main

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

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/azuld/azuld/internal/apiclient"
)

// acceptText asks for the text form of an answer.
func acceptText(_ context.Context, req *http.Request) error {
	req.Header.Set("Accept", "text/plain")
	return nil
}

// table is one version of a game as azul shows it.
type table struct {
	state apiclient.GameResponse
	body  []byte // the state JSON as sent
	text  string // the engine's rendering
}

// fetchTable reads a version of a game (0: the current one) as JSON,
// for the header, and as text, for the table.
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
	if t.state.Version == 0 {
		// Nothing to render before the game's first event.
		return &t, nil
	}
	res, err := a.api.GameStateWithResponse(ctx, id, &apiclient.GameStateParams{Version: &version}, acceptText)
	if err := a.result(res, err, http.StatusOK); err != nil {
		return nil, err
	}
	t.text = string(res.Body)
	return &t, nil
}

// render is the screen for a table: a header with the seats and who is
// to act, then the engine's table, coloured when colour is on.
func (t *table) render(colour bool) string {
	s := t.state
	var b strings.Builder
	fmt.Fprintf(&b, "Game %s  %s  version %d  %s", s.Id, s.Ruleset, s.Version, s.Status)
	if deref(s.Undone) {
		fmt.Fprintf(&b, "  (undone by the take-back at version %d)", deref(s.UndoneBy))
	}
	b.WriteString("\n")
	var seats []string
	for _, seat := range s.Seats {
		label := fmt.Sprintf("%d %s", seat.Seat, seatLabel(seat, s.YourSeats))
		seats = append(seats, label)
	}
	fmt.Fprintf(&b, "Seats: %s\n", strings.Join(seats, ", "))
	if s.Status == "active" {
		fmt.Fprintf(&b, "To act: %s", seatNames(s.Seats, s.ToAct))
		for _, seat := range s.ToAct {
			if slices.Contains(s.YourSeats, seat) {
				b.WriteString("  <- your move")
				break
			}
		}
		b.WriteString("\n")
	}
	if s.PendingTakeback != nil {
		tb := s.PendingTakeback
		fmt.Fprintf(&b, "Seat %d asks to take back %d move(s) (take-back %d): azul accept / azul decline\n", tb.Seat, tb.Moves, tb.Id)
	}
	b.WriteString("\n")
	if t.text == "" {
		b.WriteString("The game has no events yet.\n")
	} else {
		b.WriteString(colourize(withSeatNames(t.text, s.Seats, s.YourSeats), colour))
	}
	return b.String()
}

// seatWord finds the seats the engine's table names ("Seat 0", "seat 1").
var seatWord = regexp.MustCompile(`\b[Ss]eat (\d+)\b`)

// withSeatNames is the engine's table with the players' names in place
// of seat numbers (a bot's kind: "random bot"), the reader's own seats
// marked "(you)", as the mails and the web page show it; a free seat
// keeps its number.
func withSeatNames(text string, seats []apiclient.Seat, yours []int) string {
	names := seatNamesOf(seats)
	return seatWord.ReplaceAllStringFunc(text, func(m string) string {
		n, err := strconv.Atoi(m[len("seat "):])
		switch {
		case err != nil || names[n] == "":
			return m
		case slices.Contains(yours, n):
			return names[n] + " (you)"
		}
		return names[n]
	})
}

func (a *app) showCommand() *cobra.Command {
	var version int
	cmd := &cobra.Command{
		Use:               "show GAME",
		Short:             "Show a game's table as text (the current version, or --version N)",
		Args:              args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			if cmd.Flags().Changed("version") && version < 1 {
				return usagef("--version must be 1 or more")
			}
			t, err := a.fetchTable(cmd.Context(), id, version)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(t.body)
			}
			fmt.Fprint(a.out, t.render(a.colour()))
			if version == 0 && len(t.state.LegalMoves) > 0 {
				fmt.Fprintf(a.out, "\nYou have %d legal moves: azul moves %s\n", len(t.state.LegalMoves), id)
			}
			return nil
		}),
	}
	cmd.Flags().IntVar(&version, "version", 0, "show the table after the first N events")
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
		Short:             "List your legal moves, numbered for 'azul move GAME N'",
		Args:              args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
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
			return a.printMoveList(id, res.JSON200)
		}),
	}
	cmd.Flags().IntVar(&seat, "seat", 0, "list this seat's moves (anyone may)")
	return cmd
}

func joinIntsOr(xs []int, none string) string {
	if len(xs) == 0 {
		return none
	}
	return "seat " + joinInts(xs)
}

func (a *app) moveCommand() *cobra.Command {
	var seat int
	cmd := &cobra.Command{
		Use:   "move GAME MOVE",
		Short: "Make a move: its number in 'azul moves', notation such as \"F2 red 3\", or JSON",
		Example: `  azul move $GAME 7
  azul move $GAME F2 red 3
  azul move $GAME '{"type": "take", "factory": 2, "color": "red", "line": 3}'`,
		Args:              args(2, -1),
		ValidArgsFunction: a.completeGames,
		RunE: onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
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
	cmd.Flags().IntVar(&seat, "seat", 0, "the seat to move for, when you hold several")
	return cmd
}

// postMove sends a move given as a number, JSON or notation.
func (a *app) postMove(ctx context.Context, id uuid.UUID, seat *int, move string) (*apiclient.MoveResponse, error) {
	params := &apiclient.MoveParams{Seat: seat}
	if move == "" {
		return nil, usagef("move: no move given")
	}
	n, bound, isNumber, err := moveNumber(move)
	if err != nil {
		return nil, err
	}
	if isNumber {
		return a.postNumbered(ctx, id, seat, n, bound)
	}
	if strings.HasPrefix(move, "{") {
		if !json.Valid([]byte(move)) {
			return nil, usagef("move: the JSON is not valid")
		}
		res, err := a.api.MoveWithBodyWithResponse(ctx, id, params, "application/json", strings.NewReader(move))
		return res, a.result(res, err, http.StatusCreated)
	}
	res, err := a.api.MoveWithTextBodyWithResponse(ctx, id, params, move)
	return res, a.result(res, err, http.StatusCreated)
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
		return nil, &exitError{code: exitRefused, err: fmt.Errorf("you have no move to make now (to act: %s)", joinIntsOr(lm.JSON200.ToAct, "nobody"))}
	}
	if why := staleNumber(n, bound, a.lastList(id), lm.JSON200); why != "" {
		return nil, a.refuseWithList(id, lm, why)
	}
	if n < 1 || n > len(moves) {
		return nil, usagef("move %d: choose a number from 1 to %d ('azul moves %s' lists them)", n, len(moves), id)
	}
	m := moves[n-1]
	body, err := json.Marshal(map[string]any{"move": m.Move, "seat": m.Seat})
	if err != nil {
		return nil, fmt.Errorf("encode the move: %w", err)
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
		return nil, a.refuseWithList(id, now, fmt.Sprintf("the game moved on while move %d was on its way (version %d, now %d), so it was not played", n, lm.JSON200.Version, now.JSON200.Version))
	}
	return res, nil
}

// refuseWithList prints the moves of now, remembered, and returns the
// refusal (exit 3).
func (a *app) refuseWithList(id uuid.UUID, lm *apiclient.LegalMovesResponse, why string) error {
	var err error
	if a.jsonOut {
		if err = a.printJSON(lm.Body); err == nil {
			err = a.rememberList(id, lm.JSON200)
		}
	} else {
		err = a.printMoveList(id, lm.JSON200)
	}
	if err != nil {
		return err
	}
	return &exitError{code: exitRefused, err: fmt.Errorf("%s; the moves now are listed above", why)}
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
	}
	g, err := a.api.GetGameWithResponse(ctx, id, &apiclient.GetGameParams{})
	if err := a.result(g, err, http.StatusOK); err != nil {
		return err
	}
	names := seatNamesOf(g.JSON200.Seats)
	for _, t := range byCommand(evs) {
		m := t.own.Meta
		if m.Notation != nil && m.Actor != nil && m.Actor.Seat != nil {
			fmt.Fprintf(a.out, "%s played %s (version %d).\n", seatName(names, *m.Actor.Seat), *m.Notation, t.own.Version)
		} else {
			fmt.Fprintf(a.out, "%s (version %d).\n", describe(t.own), t.own.Version)
		}
		if len(t.auto) > 0 {
			fmt.Fprintf(a.out, "Then, automatically (versions %d to %d):\n", t.auto[0].Version, t.auto[len(t.auto)-1].Version)
			for _, ev := range t.auto {
				fmt.Fprintf(a.out, "  %s\n", describe(ev))
			}
		}
	}
	fmt.Fprintf(a.out, "Game %s is at version %d, %s; to act: %s.\n", id, r.CurrentVersion, r.Status, seatNames(g.JSON200.Seats, r.ToAct))
	return nil
}
