package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"

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
		Args:              a.args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
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
	cmd.Flags().IntVar(&moves, "moves", 1, a.l.T("cli.flag.takeback_moves"))
	cmd.Flags().IntVar(&seat, "seat", 0, a.l.T("cli.flag.takeback_seat"))
	return cmd
}

// printTakeback tells where a take-back stands.
func (a *app) printTakeback(id uuid.UUID, r *apiclient.TakebackResult) {
	l := a.l
	tb := r.Takeback
	switch tb.Status {
	case "taken_back":
		fmt.Fprintln(a.out, l.T("cli.takeback.done", "ID", id, "To", tb.ToVersion, "Version", r.Version))
	case "pending":
		waiting := []int{}
		for _, s := range tb.Needs {
			if !slices.Contains(tb.Consents, s) {
				waiting = append(waiting, s)
			}
		}
		fmt.Fprintln(a.out, l.N("cli.takeback.pending", tb.Moves, "ID", tb.Id, "Seat", tb.Seat, "Waiting", a.seatList(waiting)))
	case "declined":
		fmt.Fprintln(a.out, l.T("cli.takeback.declined", "ID", tb.Id, "Seat", deref(tb.DeclinedBy)))
	default:
		fmt.Fprintln(a.out, l.T("cli.takeback.status", "ID", tb.Id, "Status", string(tb.Status)))
	}
}

// answerCommand is accept or decline: the game's open take-back request,
// or the one given; in a game not started, the invitation to the seat it
// keeps for the caller.
func (a *app) answerCommand(verb string) *cobra.Command {
	return &cobra.Command{
		Use:               verb + " GAME [TAKEBACK]",
		Args:              a.args(1, 2),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			if err := a.needToken(); err != nil {
				return err
			}
			ctx := cmd.Context()
			var tid int
			if len(args) == 2 {
				var err error
				if tid, err = strconv.Atoi(args[1]); err != nil || tid < 1 {
					return a.usage("cli.takeback.bad_id", "Value", args[1])
				}
			} else {
				g, err := a.api.GetGameWithResponse(ctx, id, &apiclient.GetGameParams{})
				if err := a.result(g, err, http.StatusOK); err != nil {
					return err
				}
				if g.JSON200.PendingTakeback == nil {
					if g.JSON200.Status == apiclient.GameResponseStatusOpen {
						// No take-back in a game not started: the answer
						// is to its invitation.
						return a.answerInvitation(ctx, id, verb)
					}
					return a.fail(exitRefused, "cli.takeback.none_open", "ID", id)
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
		Args:              a.args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			var all []json.RawMessage
			var prev *apiclient.Event
			if !a.jsonOut {
				// The seats' names and the rule set, to say the events.
				g, err := a.api.GetGameWithResponse(cmd.Context(), id, &apiclient.GetGameParams{})
				if err := a.result(g, err, http.StatusOK); err != nil {
					return err
				}
				a.setGame(g.JSON200.Ruleset, g.JSON200.Seats)
			}
			err := a.eachEventPage(cmd.Context(), id, func(page []apiclient.Event, raw []json.RawMessage) {
				if a.jsonOut {
					all = append(all, raw...)
					return
				}
				for _, ev := range page {
					fmt.Fprintln(a.out, a.eventLine(ev, followsCommand(prev, ev)))
					prev = &ev
				}
			})
			if err != nil || !a.jsonOut {
				return err
			}
			out, err := json.Marshal(map[string]any{"game_id": id, "events": all})
			if err != nil {
				return a.wrapf(err, "cli.error.encode")
			}
			return a.printJSON(out)
		}),
	}
}

// eventLine is one event of the audit trail; an automatic event (one
// that followed from the command before it) is nobody's doing.
func (a *app) eventLine(ev apiclient.Event, automatic bool) string {
	l := a.l
	who := l.T("cli.log.system")
	if actor := ev.Meta.Actor; automatic {
		who = l.T("cli.log.automatic")
	} else if actor != nil {
		switch {
		case actor.Seat != nil:
			who = l.T("cli.seat.n", "N", *actor.Seat)
		case actor.Bot != nil:
			who = a.botName(*actor.Bot)
		case actor.Kind != nil:
			who = string(*actor.Kind)
			if id := "cli.log.kind." + who; a.cat.Has(id) {
				who = l.T(id)
			}
		}
		if actor.Kind != nil && *actor.Kind == "bot" && actor.Seat != nil {
			who += " " + l.T("cli.log.bot")
		}
	}
	if ev.Meta.Channel != nil && *ev.Meta.Channel != "" && !automatic {
		who += " " + l.T("cli.log.via", "Channel", *ev.Meta.Channel)
	}
	line := fmt.Sprintf("%4d  %s  %-22s %s", ev.Version, ev.RecordedAt.In(l.Zone()).Format("2006-01-02 15:04:05 MST"), who, a.describe(ev))
	if deref(ev.Undone) {
		line += "  " + l.T("cli.log.undone", "Version", deref(ev.UndoneBy))
	}
	return line
}

func (a *app) exportCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "export GAME",
		Args:              a.args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			res, err := a.api.ExportGameWithResponse(cmd.Context(), id)
			if err := a.result(res, err, http.StatusOK); err != nil {
				return err
			}
			if _, err := a.out.Write(res.Body); err != nil {
				return a.wrapf(err, "cli.error.write")
			}
			return nil
		}),
	}
}

func (a *app) verifyCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "verify GAME|FILE",
		Args:              a.args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: a.wrapRun(func(cmd *cobra.Command, args []string) error {
			target := args[0]
			var report apiclient.Verification
			var body []byte
			if _, statErr := os.Stat(target); statErr == nil || uuid.Validate(target) != nil {
				v, err := a.verifyFile(target)
				if err != nil {
					return err
				}
				if body, err = json.Marshal(v); err != nil {
					return a.wrapf(err, "cli.error.encode")
				}
				if err := json.Unmarshal(body, &report); err != nil {
					return a.wrapf(err, "cli.error.encode")
				}
			} else {
				id, err := a.gameID(target)
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
				return a.fail(exitFailure, "cli.verify.failed", "ID", report.GameId)
			}
			return nil
		}),
	}
}

// verifyFile checks an exported log here.
func (a *app) verifyFile(path string) (*play.Verification, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: a.wrapf(err, "cli.verify.open")}
	}
	defer f.Close()
	recs, err := play.ReadRecords(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return play.VerifyRecords(rulesets.All(), recs), nil
}

func (a *app) printVerification(v apiclient.Verification) {
	l := a.l
	fmt.Fprintln(a.out, l.T("cli.verify.result."+string(v.Result), "ID", v.GameId))
	fmt.Fprintln(a.out, "  "+l.T("cli.verify.counts", "Events", v.Events, "Commands", v.Commands, "Reveals", v.Reveals))
	fmt.Fprintln(a.out, "  "+l.T("cli.verify.commitment", "Commitment", v.SeedCommitment))
	if v.Seed != nil && *v.Seed != "" {
		fmt.Fprintln(a.out, "  "+l.T("cli.verify.seed", "Seed", *v.Seed))
	}
	if m := v.Mismatch; m != nil {
		fmt.Fprintln(a.out, "  "+l.T("cli.verify.departure", "Version", deref(m.Version), "Reason", deref(m.Reason)))
	}
}
