package notify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/riverqueue/river"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// Time-control actions.
const (
	ActionRemind   = "remind"
	ActionDeadline = "deadline"
)

// TimeoutArgs is a time-control timer of one seat at one game version. It
// does nothing when it fires after the game moved on.
type TimeoutArgs struct {
	Action   string    `json:"action"`
	GameID   string    `json:"game_id"`
	Version  int64     `json:"version"`
	Seat     int       `json:"seat"`
	Deadline time.Time `json:"deadline"`
}

// Kind implements river.JobArgs.
func (TimeoutArgs) Kind() string { return "azuld_timeout" }

type timeoutWorker struct {
	river.WorkerDefaults[TimeoutArgs]
	n *Notifier
}

// timeoutBot is the bot that moves for an absent seat when the time
// control names none: the greedy bot plays sensibly in microseconds.
const timeoutBot = bots.Greedy

// Work sends the reminder or applies the game's deadline action.
func (w *timeoutWorker) Work(ctx context.Context, job *river.Job[TimeoutArgs]) error {
	n, a := w.n, job.Args
	g, err := n.svc.GameForCommand(ctx, a.GameID)
	if err != nil {
		return fmt.Errorf("load game %s: %w", a.GameID, err)
	}
	// Table talk since the timer's version changed nothing (see
	// play.Game.ExpectsCurrent): the timer still stands.
	if !g.ExpectsCurrent(a.Version) || g.Status != play.StatusActive || !slices.Contains(g.ToAct(), a.Seat) || g.TimeControl == nil {
		return nil // the game moved on: this timer is stale
	}
	switch a.Action {
	case ActionRemind:
		return n.remind(ctx, g, a)
	case ActionDeadline:
		return n.applyDeadline(ctx, g, a)
	}
	return river.JobCancel(fmt.Errorf("unknown time-control action %q", a.Action))
}

// remind enqueues a reminder mail for the seat (and nothing without an
// address or when mails are stopped; the mail job checks the latter).
func (n *Notifier) remind(ctx context.Context, g *play.Game, a TimeoutArgs) error {
	seat := g.Seats[a.Seat]
	if seat.PlayerID == "" {
		return nil
	}
	p, err := n.svc.Player(ctx, seat.PlayerID)
	if err != nil {
		return fmt.Errorf("load player: %w", err)
	}
	if p.Email == "" {
		return nil
	}
	deadline := a.Deadline
	// Dated at the reminder point, not now: a retried timer then inserts
	// the same arguments, which the unique option folds into one mail.
	at := deadline.Add(-time.Duration(g.TimeControl.RemindBefore))
	_, err = n.client.Insert(ctx, MailArgs{
		Mail: compose.KindReminder, GameID: g.ID, Version: g.Version, Seat: a.Seat,
		PlayerID: p.ID, To: p.Email, Name: p.Name, At: at, Deadline: &deadline,
	}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}})
	if err != nil {
		return fmt.Errorf("enqueue reminder: %w", err)
	}
	return nil
}

// applyDeadline plays the game's deadline action for the seat through the
// command path, as the system on the timeout channel, so the log shows it.
func (n *Notifier) applyDeadline(ctx context.Context, g *play.Game, a TimeoutArgs) error {
	seat := a.Seat
	version := a.Version
	req := play.MoveRequest{
		GameID: g.ID, Actor: events.Actor{Kind: "system"}, Seat: &seat, Channel: "timeout",
		ExpectedVersion: &version,
		IdempotencyKey:  "timeout:" + strconv.FormatInt(version, 10) + ":" + strconv.Itoa(seat),
	}
	switch g.TimeControl.OnTimeout {
	case "forfeit":
		req.Notation = "resign"
	default: // "bot", the default action
		kind := g.TimeControl.Bot
		if kind == "" {
			kind = timeoutBot
		}
		move, err := bots.Choose(kind, g.State, seat, uint64(version))
		if err != nil {
			return fmt.Errorf("choose a move for seat %d: %w", seat, err)
		}
		req.Move = move.JSON
	}
	_, err := n.svc.Move(ctx, req)
	var conflict *events.ConflictError
	switch {
	case errors.As(err, &conflict) || errors.Is(err, events.ErrConflict) || errors.Is(err, engine.ErrGameOver):
		return nil // someone moved first: nothing is late any more
	case err != nil:
		return fmt.Errorf("deadline action in game %s: %w", g.ID, err)
	}
	n.log.InfoContext(ctx, "time ran out", "game", g.ID, "seat", seat, "action", g.TimeControl.OnTimeout)
	return nil
}
