package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/internal/apiclient"
	"github.com/azuld/azuld/play"
)

func (a *app) takebackCommand() *cobra.Command {
	var moves, seat int
	cmd := &cobra.Command{
		Use:               "takeback GAME",
		Short:             "Ask to take back your last move (or --moves N); the other players must accept",
		Args:              args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			body := apiclient.RequestTakebackJSONRequestBody{Moves: &moves}
			if cmd.Flags().Changed("seat") {
				body.Seat = &seat
			}
			res, err := a.api.RequestTakebackWithResponse(cmd.Context(), id, body)
			if err := a.result(res, err, http.StatusCreated); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res.Body)
			}
			a.printTakeback(id, res.JSON201)
			return nil
		}),
	}
	cmd.Flags().IntVar(&moves, "moves", 1, "how many of your moves to take back")
	cmd.Flags().IntVar(&seat, "seat", 0, "the seat whose moves to take back, when you hold several")
	return cmd
}

// printTakeback tells where a take-back stands.
func (a *app) printTakeback(id uuid.UUID, r *apiclient.TakebackResult) {
	tb := r.Takeback
	switch tb.Status {
	case "taken_back":
		fmt.Fprintf(a.out, "Taken back: game %s is back at version %d (now version %d).\n", id, tb.ToVersion, r.Version)
	case "pending":
		waiting := []int{}
		for _, s := range tb.Needs {
			if !slices.Contains(tb.Consents, s) {
				waiting = append(waiting, s)
			}
		}
		fmt.Fprintf(a.out, "Take-back %d of seat %d (%d move(s)) waits for seat %s to accept.\n", tb.Id, tb.Seat, tb.Moves, joinInts(waiting))
	case "declined":
		fmt.Fprintf(a.out, "Take-back %d was declined by seat %d.\n", tb.Id, deref(tb.DeclinedBy))
	default:
		fmt.Fprintf(a.out, "Take-back %d is %s.\n", tb.Id, tb.Status)
	}
}

// answerCommand is accept or decline: the game's open take-back request,
// or the one given.
func (a *app) answerCommand(verb string) *cobra.Command {
	return &cobra.Command{
		Use:               verb + " GAME [TAKEBACK]",
		Short:             strings.ToUpper(verb[:1]) + verb[1:] + " the take-back another player asks for",
		Args:              args(1, 2),
		ValidArgsFunction: a.completeGames,
		RunE: onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			ctx := cmd.Context()
			var tid int
			if len(args) == 2 {
				var err error
				if tid, err = strconv.Atoi(args[1]); err != nil || tid < 1 {
					return usagef("%q is not a take-back id (a version number)", args[1])
				}
			} else {
				g, err := a.api.GetGameWithResponse(ctx, id, &apiclient.GetGameParams{})
				if err := a.result(g, err, http.StatusOK); err != nil {
					return err
				}
				if g.JSON200.PendingTakeback == nil {
					return &exitError{code: exitRefused, err: fmt.Errorf("game %s has no open take-back request", id)}
				}
				tid = g.JSON200.PendingTakeback.Id
			}
			var result *apiclient.TakebackResult
			var body []byte
			if verb == "accept" {
				r, err := a.api.AcceptTakebackWithResponse(ctx, id, tid)
				if err := a.result(r, err, http.StatusOK); err != nil {
					return err
				}
				result, body = r.JSON200, r.Body
			} else {
				r, err := a.api.DeclineTakebackWithResponse(ctx, id, tid)
				if err := a.result(r, err, http.StatusOK); err != nil {
					return err
				}
				result, body = r.JSON200, r.Body
			}
			if a.jsonOut {
				return a.printJSON(body)
			}
			a.printTakeback(id, result)
			return nil
		}),
	}
}

func (a *app) logCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "log GAME",
		Short:             "Print a game's audit trail: every event, who caused it and when",
		Args:              args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			var all []json.RawMessage
			var prev *apiclient.Event
			err := a.eachEventPage(cmd.Context(), id, func(page []apiclient.Event, raw []json.RawMessage) {
				if a.jsonOut {
					all = append(all, raw...)
					return
				}
				for _, ev := range page {
					fmt.Fprintln(a.out, eventLine(ev, followsCommand(prev, ev)))
					prev = &ev
				}
			})
			if err != nil || !a.jsonOut {
				return err
			}
			out, err := json.Marshal(map[string]any{"game_id": id, "events": all})
			if err != nil {
				return fmt.Errorf("encode the output: %w", err)
			}
			return a.printJSON(out)
		}),
	}
}

// eventLine is one event of the audit trail; an automatic event (one
// that followed from the command before it) is nobody's doing.
func eventLine(ev apiclient.Event, automatic bool) string {
	who := "system"
	if actor := ev.Meta.Actor; automatic {
		who = "automatic"
	} else if actor != nil {
		switch {
		case actor.Seat != nil:
			who = fmt.Sprintf("seat %d", *actor.Seat)
		case actor.Bot != nil:
			who = *actor.Bot + " bot"
		case actor.Kind != nil:
			who = string(*actor.Kind)
		}
		if actor.Kind != nil && *actor.Kind == "bot" && actor.Seat != nil {
			who += " (bot)"
		}
	}
	if ev.Meta.Channel != nil && *ev.Meta.Channel != "" && !automatic {
		who += " via " + *ev.Meta.Channel
	}
	text := ev.Type
	if ev.Description != nil && *ev.Description != "" {
		text = *ev.Description
	}
	line := fmt.Sprintf("%4d  %s  %-22s %s", ev.Version, ev.RecordedAt.UTC().Format("2006-01-02 15:04:05"), who, text)
	if deref(ev.Undone) {
		line += fmt.Sprintf("  [undone at version %d]", deref(ev.UndoneBy))
	}
	return line
}

func (a *app) exportCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "export GAME",
		Short:             "Write a game's whole event log (JSON lines) to standard output, for 'azul verify FILE'",
		Args:              args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			res, err := a.api.ExportGameWithResponse(cmd.Context(), id)
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			if _, err := a.out.Write(res.Body); err != nil {
				return fmt.Errorf("write the export: %w", err)
			}
			return nil
		}),
	}
}

func (a *app) verifyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "verify GAME|FILE",
		Short: "Check a game's fairness: the server's check of GAME, or a check here of an exported FILE",
		Long: `Re-derive every draw of a game from its seed and the recorded moves. With a
game id the server checks its stored log; with a file written by
'azul export' the check runs here, trusting nothing but the file. The exit
code is 1 when the log departs from what the rules derive.`,
		Args:              args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: wrapRun(func(cmd *cobra.Command, args []string) error {
			target := args[0]
			var report apiclient.Verification
			var body []byte
			if _, statErr := os.Stat(target); statErr == nil || uuid.Validate(target) != nil {
				v, err := verifyFile(target)
				if err != nil {
					return err
				}
				if body, err = json.Marshal(v); err != nil {
					return fmt.Errorf("encode the report: %w", err)
				}
				if err := json.Unmarshal(body, &report); err != nil {
					return fmt.Errorf("read the report: %w", err)
				}
			} else {
				id, err := gameID(target)
				if err != nil {
					return err
				}
				res, err := a.api.VerifyGameWithResponse(cmd.Context(), id)
				if err := a.result(res, err, http.StatusOK); err != nil {
					return err
				}
				report, body = *res.JSON200, res.Body
			}
			if a.jsonOut {
				if err := a.printJSON(body); err != nil {
					return err
				}
			} else {
				a.printVerification(report)
			}
			if report.Result == "fail" {
				return &exitError{code: exitFailure, err: fmt.Errorf("the verification of game %s failed", report.GameId)}
			}
			return nil
		}),
	}
}

// verifyFile checks an exported log here.
func verifyFile(path string) (*play.Verification, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("open the exported game: %w", err)}
	}
	defer f.Close()
	recs, err := play.ReadRecords(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return play.VerifyRecords(rulesets.All(), recs), nil
}

func (a *app) printVerification(v apiclient.Verification) {
	fmt.Fprintf(a.out, "Game %s: %s.\n", v.GameId, map[apiclient.VerificationResult]string{
		"pass":      "pass: every draw and event re-derived from the seed matches the log",
		"fail":      "FAIL: the log departs from what the rules derive",
		"committed": "committed: the seed is still secret; the log folds and the seed's commitment is known",
	}[v.Result])
	fmt.Fprintf(a.out, "  %d events, %d commands replayed, %d random reveals re-derived\n", v.Events, v.Commands, v.Reveals)
	fmt.Fprintf(a.out, "  seed commitment %s\n", v.SeedCommitment)
	if v.Seed != nil && *v.Seed != "" {
		fmt.Fprintf(a.out, "  seed %s\n", *v.Seed)
	}
	if m := v.Mismatch; m != nil {
		fmt.Fprintf(a.out, "  first departure at version %d: %s\n", deref(m.Version), deref(m.Reason))
	}
}
