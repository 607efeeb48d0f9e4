package notify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// DefaultTalkInterval is the least time between two message mails of one
// game to one player: the messages written meanwhile wait and come
// together in the next one (or in a turn mail, whichever goes first).
const DefaultTalkInterval = time.Hour

// maxTalkItems bounds the messages one mail shows; older ones are counted
// and left to the game's page.
const maxTalkItems = 30

// TalkArgs is the job that mails a game's new table talk to one of its
// players. Every message appended enqueues one per other player; the
// first to run sends what is new, at most once per TalkInterval (a job
// that comes too early waits, snoozed, until the interval is over), and
// the others find nothing left. talk_mailed keeps, per game and player,
// up to which version messages were mailed, under a row lock, so nothing
// is mailed twice and nothing is skipped across restarts.
type TalkArgs struct {
	GameID   string `json:"game_id"`
	Seat     int    `json:"seat"`
	PlayerID string `json:"player_id"`
	// Version is the message's (for the delivery log; the job mails
	// whatever is new when it runs).
	Version int64 `json:"version"`
}

// Kind implements river.JobArgs.
func (TalkArgs) Kind() string { return "azuld_talk_mail" }

type talkWorker struct {
	river.WorkerDefaults[TalkArgs]
	n *Notifier
}

func (w *talkWorker) Timeout(*river.Job[TalkArgs]) time.Duration { return w.n.cfg.MailTimeout }

// Work sends the message mail, or waits until the hour since the last
// one is over.
func (w *talkWorker) Work(ctx context.Context, job *river.Job[TalkArgs]) error {
	n, a := w.n, job.Args
	messageID, to, wait, err := n.sendTalk(ctx, a)
	if err == nil && wait > 0 {
		// Not a delivery yet: no row in the delivery log.
		return river.JobSnooze(wait)
	}
	outcome, detail := "sent", messageID
	switch {
	case errors.Is(err, errSkip):
		outcome, detail, err = "skipped", err.Error(), nil
	case errors.Is(err, ErrPermanent):
		outcome, detail = "refused", err.Error()
		err = river.JobCancel(err)
	case err != nil:
		outcome, detail = "failed", err.Error()
	}
	n.logDelivery(ctx, job.ID, job.Attempt, "mail:"+compose.KindTalk, a.GameID, a.Seat, to, outcome, detail)
	return err
}

// talkJobs are the jobs of an append of messages: one for each other
// player of the game who is mailed (their mails not stopped); whether
// they muted the game or may be mailed at all is asked when it runs.
func talkJobs(after *play.Game, appended []events.Record, person func(int) (*recipient, bool)) []river.InsertManyParams {
	author := appended[0].Meta.Actor.PlayerID
	var out []river.InsertManyParams
	for seat := range after.Seats {
		r, ok := person(seat)
		if !ok || r.email == "" || r.stopped || r.playerID == author {
			continue
		}
		out = append(out, river.InsertManyParams{Args: TalkArgs{GameID: after.ID, Seat: seat, PlayerID: r.playerID, Version: after.Version}})
	}
	return out
}

// talkClaim is the table talk a mail to a player carries, with the lock
// on their talk_mailed row, held until the mail is sent (done) or not
// (release): two mails never carry the same message.
type talkClaim struct {
	tx    pgx.Tx
	items []compose.TalkItem
	// earlier counts the messages left out of items.
	earlier int
	// upTo is the version up to which the mail carries the messages;
	// lastAt when the last message mail left (zero: never).
	upTo, from int64
	lastAt     time.Time
}

// claimTalk locks a player's talk_mailed row of a game and reads the
// other players' messages since the version mailed last. A player who
// muted the game gets none, and the messages are passed over all the
// same: unmuting does not bring them later.
func (n *Notifier) claimTalk(ctx context.Context, gameID, playerID string) (*talkClaim, error) {
	if playerID == "" {
		return &talkClaim{}, nil
	}
	// Most mails have no message to bring: they take no lock (and hold
	// no connection while they are sent).
	var mailed int64
	err := n.pool.QueryRow(ctx, `SELECT coalesce((SELECT version FROM talk_mailed WHERE game_id = $1::uuid AND player_id = $2::uuid), 0)`,
		gameID, playerID).Scan(&mailed)
	if err != nil {
		return nil, fmt.Errorf("read table talk mailed: %w", err)
	}
	if pending, err := n.svc.HasMessagesAfter(ctx, gameID, mailed); err != nil || !pending {
		return &talkClaim{}, err
	}
	tx, err := n.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("claim table talk: %w", err)
	}
	c := &talkClaim{tx: tx}
	var last *time.Time
	err = tx.QueryRow(ctx, `
		WITH ins AS (INSERT INTO talk_mailed (game_id, player_id) SELECT $1::uuid, $2::uuid
			WHERE EXISTS (SELECT FROM players WHERE id = $2::uuid) ON CONFLICT DO NOTHING)
		SELECT version, last_message_at FROM talk_mailed WHERE game_id = $1::uuid AND player_id = $2::uuid FOR UPDATE`,
		gameID, playerID).Scan(&c.from, &last)
	if isNoRows(err) {
		// Inserted just now by this statement (its own row is not
		// visible to it): read it again, locked.
		err = tx.QueryRow(ctx, `SELECT version, last_message_at FROM talk_mailed WHERE game_id = $1::uuid AND player_id = $2::uuid FOR UPDATE`,
			gameID, playerID).Scan(&c.from, &last)
	}
	if isNoRows(err) {
		c.release(ctx)
		return &talkClaim{}, nil // the player is gone
	}
	if err != nil {
		c.release(ctx)
		return nil, fmt.Errorf("claim table talk: %w", err)
	}
	if last != nil {
		c.lastAt = *last
	}
	c.upTo = c.from
	muted, err := n.svc.Muted(ctx, gameID, playerID)
	if err != nil {
		c.release(ctx)
		return nil, err
	}
	msgs, err := n.svc.Messages(ctx, gameID, playerID, c.from)
	if err != nil {
		c.release(ctx)
		return nil, fmt.Errorf("messages of game %s: %w", gameID, err)
	}
	for _, m := range msgs {
		c.upTo = max(c.upTo, m.Version)
		if m.PlayerID == playerID || muted {
			// The author never gets their own message; a player who
			// muted the game never gets those written meanwhile
			// (they are marked mailed all the same).
			continue
		}
		author := m.Author
		if m.Erased {
			author = "" // written as "Former player" in the reader's words
		}
		c.items = append(c.items, compose.TalkItem{Author: author, At: m.At, Text: m.Text})
	}
	if len(c.items) > maxTalkItems {
		c.earlier = len(c.items) - maxTalkItems
		c.items = c.items[c.earlier:]
	}
	return c, nil
}

// done marks the claim's messages mailed (and, for a message mail, when
// it left) and lets the row go.
func (c *talkClaim) done(ctx context.Context, gameID, playerID string, messageMail bool, at time.Time) error {
	if c.tx == nil {
		return nil
	}
	defer c.release(ctx)
	// The mail is gone: marking it must not be undone by a deadline that
	// ran out meanwhile (the job would send it again).
	ctx = context.WithoutCancel(ctx)
	var lastAt any
	if messageMail {
		lastAt = at
	}
	_, err := c.tx.Exec(ctx, `UPDATE talk_mailed SET version = greatest(version, $3), last_message_at = coalesce($4, last_message_at)
		WHERE game_id = $1::uuid AND player_id = $2::uuid`, gameID, playerID, c.upTo, lastAt)
	if err != nil {
		return fmt.Errorf("mark table talk mailed: %w", err)
	}
	if err := c.tx.Commit(ctx); err != nil {
		return fmt.Errorf("mark table talk mailed: %w", err)
	}
	return nil
}

// release lets the row go without marking anything.
func (c *talkClaim) release(ctx context.Context) {
	if c != nil && c.tx != nil {
		_ = c.tx.Rollback(context.WithoutCancel(ctx))
		c.tx = nil
	}
}

// talkInterval is the least time between two message mails.
func (n *Notifier) talkInterval() time.Duration {
	if n.cfg.TalkInterval > 0 {
		return n.cfg.TalkInterval
	}
	return DefaultTalkInterval
}

// sendTalk sends a player the messages of a game that are new to them,
// to their address to; wait > 0 when the last message mail is too recent
// (nothing is sent).
func (n *Notifier) sendTalk(ctx context.Context, a TalkArgs) (messageID, to string, wait time.Duration, err error) {
	messageID, wait, err = n.sendTalkTo(ctx, a, &to)
	return messageID, to, wait, err
}

func (n *Notifier) sendTalkTo(ctx context.Context, a TalkArgs, to *string) (messageID string, wait time.Duration, err error) {
	if n.svc == nil {
		return "", 0, errors.New("notifier not attached")
	}
	stopped, err := n.stopped(ctx, a.GameID, a.Seat)
	if err != nil {
		return "", 0, err
	}
	if stopped {
		return "", 0, fmt.Errorf("%w: the player stopped mails for this game", errSkip)
	}
	if err := n.mayMail(ctx, a.PlayerID); err != nil {
		return "", 0, err
	}
	claim, err := n.claimTalk(ctx, a.GameID, a.PlayerID)
	if err != nil {
		return "", 0, err
	}
	defer claim.release(ctx)
	if len(claim.items) == 0 {
		// Nothing to mail (muted, or sent meanwhile): what was passed
		// over is marked, so that no later mail brings it.
		if err := claim.done(ctx, a.GameID, a.PlayerID, false, time.Time{}); err != nil {
			return "", 0, err
		}
		return "", 0, fmt.Errorf("%w: no message is new to the player", errSkip)
	}
	now := n.now()
	if next := claim.lastAt.Add(n.talkInterval()); !claim.lastAt.IsZero() && now.Before(next) {
		return "", next.Sub(now), nil
	}
	g, err := n.svc.Game(ctx, a.GameID)
	if err != nil {
		return "", 0, fmt.Errorf("load game %s: %w", a.GameID, err)
	}
	p, err := n.svc.Player(ctx, a.PlayerID)
	if err != nil {
		if errors.Is(err, play.ErrNotFound) {
			return "", 0, fmt.Errorf("%w: the player is gone", errSkip)
		}
		return "", 0, fmt.Errorf("load player: %w", err)
	}
	if p.Email == "" {
		return "", 0, fmt.Errorf("%w: the player has no address", errSkip)
	}
	*to = p.Email
	thread, err := n.threadRoot(ctx, a.GameID, a.Seat)
	if err != nil {
		return "", 0, err
	}
	token, err := n.newMailToken(ctx, g.ID, a.Seat, g.Version)
	if err != nil {
		return "", 0, err
	}
	lang, zone, err := n.ReaderOf(ctx, a.PlayerID)
	if err != nil {
		return "", 0, err
	}
	r := compose.Recipient{Name: p.Name, Address: p.Email, Seat: a.Seat, SeatToken: token, Thread: thread, Lang: lang, Zone: zone}
	info := gameInfo(n.cfg.Catalogue.Localizer(lang, zone), g)
	info.Talk, info.TalkEarlier = claim.items, claim.earlier
	// The mail is named by the newest message it brings: sent again
	// after a failure, it keeps its Message-ID.
	info.Version = claim.upTo
	m := compose.Talk(n.cfg.Sender, r, info, now)
	raw, err := m.Bytes()
	if err != nil {
		return "", 0, river.JobCancel(fmt.Errorf("render talk mail: %w", err))
	}
	from, err := n.returnPath(ctx, a.PlayerID)
	if err != nil {
		return "", 0, err
	}
	if err := n.mailer.Send(ctx, from, []string{p.Email}, raw); err != nil {
		return "", 0, err
	}
	// Sent: should this fail, the job runs again and finds the messages
	// unmarked, and sends them again (at least once, as every mail).
	if err := claim.done(ctx, a.GameID, a.PlayerID, true, now); err != nil {
		return "", 0, err
	}
	return m.MessageID, 0, nil
}
