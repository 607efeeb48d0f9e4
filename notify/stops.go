package notify

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
)

// StopMails stops the mails of a seat in a game (a reply "stop" or the stop
// link); answers to the player's own replies still go out.
func (n *Notifier) StopMails(ctx context.Context, gameID string, seat int) error {
	_, err := n.pool.Exec(ctx, `INSERT INTO mail_stops (game_id, seat) VALUES ($1, $2) ON CONFLICT DO NOTHING`, gameID, seat)
	if err != nil {
		return fmt.Errorf("stop mails: %w", err)
	}
	return nil
}

// StopByToken stops the mails of the seat a mail's token names; ok is
// false for an unknown token.
func (n *Notifier) StopByToken(ctx context.Context, token string) (gameID string, seat int, ok bool, err error) {
	gameID, seat, _, ok, err = n.SeatOfToken(ctx, strings.ToLower(strings.TrimSpace(token)))
	if err != nil || !ok {
		return "", 0, ok, err
	}
	return gameID, seat, true, n.StopMails(ctx, gameID, seat)
}

// LookupToken reports the game and seat a mail token names.
func (n *Notifier) LookupToken(ctx context.Context, token string) (gameID string, seat int, ok bool, err error) {
	gameID, seat, _, ok, err = n.SeatOfToken(ctx, strings.ToLower(strings.TrimSpace(token)))
	return gameID, seat, ok, err
}

// BounceTokenOwner is the player a return path's token (bounce+<token>@)
// was issued for; ok is false for an unknown token.
func (n *Notifier) BounceTokenOwner(ctx context.Context, token string) (playerID string, ok bool, err error) {
	err = n.pool.QueryRow(ctx, `SELECT player_id::text FROM bounce_tokens WHERE token_hash = $1`, hashBounceToken(token)).Scan(&playerID)
	if isNoRows(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("look up bounce token: %w", err)
	}
	return playerID, true, nil
}

// QueueMailsTx enqueues mails in the caller's transaction: they go out
// when, and only if, it commits (the answers to inbound mail are queued
// with the record of the mail they answer).
func (n *Notifier) QueueMailsTx(ctx context.Context, tx pgx.Tx, mails ...MailArgs) error {
	if len(mails) == 0 {
		return nil
	}
	jobs := make([]river.InsertManyParams, len(mails))
	for i, a := range mails {
		jobs[i] = river.InsertManyParams{Args: a}
	}
	if _, err := n.client.InsertManyTx(ctx, tx, jobs); err != nil {
		return fmt.Errorf("enqueue mails: %w", err)
	}
	return nil
}
