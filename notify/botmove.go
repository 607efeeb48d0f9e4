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
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// BotMoveArgs asks a worker to move a bot seat at a version of a game.
// The job is enqueued with the other jobs of the append that brings the
// bot's turn (by the follower of the log, or the hook in the append's
// transaction), so it is never lost and never runs before the turn
// exists; a job for a version the game has left does nothing.
type BotMoveArgs struct {
	GameID  string `json:"game_id"`
	Version int64  `json:"version"`
	Seat    int    `json:"seat"`
}

// Kind is the River job kind.
func (BotMoveArgs) Kind() string { return "azuld_bot_move" }

type botMoveWorker struct {
	river.WorkerDefaults[BotMoveArgs]
	n *Notifier
}

// Timeout leaves the search its whole budget and the append its time.
func (w *botMoveWorker) Timeout(*river.Job[BotMoveArgs]) time.Duration { return time.Minute }

// botMoveJob is the job of the bot seat that must act in g, if any, of
// every kind: with play.Config.BotJobs this job is how every bot moves;
// without it the command moved a quick bot (bots.Quick) first and the job
// finds the game moved on.
func botMoveJob(g *play.Game) (river.InsertManyParams, bool) {
	if g == nil {
		return river.InsertManyParams{}, false
	}
	seat, ok := g.BotToAct()
	if !ok {
		return river.InsertManyParams{}, false
	}
	return river.InsertManyParams{
		Args:       BotMoveArgs{GameID: g.ID, Version: g.Version, Seat: seat},
		InsertOpts: &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}},
	}, true
}

func (w *botMoveWorker) Work(ctx context.Context, job *river.Job[BotMoveArgs]) error {
	n, a := w.n, job.Args
	g, err := n.svc.GameForCommand(ctx, a.GameID)
	if err != nil {
		return fmt.Errorf("load game %s: %w", a.GameID, err)
	}
	// A message since the job's version changed nothing: the bot moves.
	if !g.ExpectsCurrent(a.Version) || g.Status != play.StatusActive || !slices.Contains(g.ToAct(), a.Seat) ||
		a.Seat < 0 || a.Seat >= len(g.Seats) || g.Seats[a.Seat].Bot == "" {
		return nil // the game moved on: this job is stale
	}
	bot := g.Seats[a.Seat].BotSpec()
	move, err := bot.Choose(g.State, a.Seat, uint64(a.Version))
	if err != nil {
		return river.JobCancel(fmt.Errorf("bot %s at seat %d of game %s: %w", bot.Kind, a.Seat, g.ID, err))
	}
	seat, version := a.Seat, a.Version
	_, err = n.svc.Move(ctx, play.MoveRequest{
		GameID: g.ID, Actor: events.Actor{Kind: "bot", Bot: bot.Kind}, Seat: &seat,
		Move: move.JSON, Channel: "bot", ExpectedVersion: &version,
		IdempotencyKey: "bot:" + strconv.FormatInt(version, 10) + ":" + strconv.Itoa(seat),
	})
	var conflict *events.ConflictError
	switch {
	case errors.As(err, &conflict) || errors.Is(err, events.ErrConflict) || errors.Is(err, engine.ErrGameOver):
		return nil // someone moved first (a takeback, a resignation)
	case err != nil:
		return fmt.Errorf("bot move in game %s: %w", g.ID, err)
	}
	return nil
}
