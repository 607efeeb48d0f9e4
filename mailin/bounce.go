package mailin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"time"

	"github.com/azuld/azuld/mail/bounce"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/jackc/pgx/v5"
)

// Defaults of the soft-bounce threshold (Config.SoftBounceLimit,
// Config.SoftBounceWindow): three temporary failures within a week make
// an address undeliverable. One full mailbox is a bad day; three in a
// week is a mailbox nobody reads.
const (
	DefaultSoftBounceLimit  = 3
	DefaultSoftBounceWindow = 7 * 24 * time.Hour
)

// BounceOutcome is what ReceiveBounce did with a report.
type BounceOutcome string

// Outcomes of ReceiveBounce. Only the first three changed an address.
const (
	BounceUndeliverable BounceOutcome = "undeliverable"
	BounceSoftCounted   BounceOutcome = "soft_counted"
	// BounceSoftLimit: a soft bounce that reached the threshold, which
	// made the address undeliverable.
	BounceSoftLimit  BounceOutcome = "soft_limit"
	BounceNotReport  BounceOutcome = "not_report"
	BounceNoToken    BounceOutcome = "unknown_token"
	BounceDelayed    BounceOutcome = "delayed"
	BounceAlreadyBad BounceOutcome = "already_undeliverable"
)

// ReceiveBounce reads what came back to a return path (a delivery status
// notification or an abuse report) and changes the address's status: a
// hard bounce or a complaint makes it undeliverable at once and tells the
// other seats of the player's running games; a soft failure counts, and
// Config.SoftBounceLimit of them within Config.SoftBounceWindow do the
// same. A "delayed" notice changes nothing (the sending server is still
// trying). A report whose token is unknown, or a mail that is no report,
// is dropped without an answer (no backscatter). An unreadable message
// wraps ErrMalformed.
func (r *Receiver) ReceiveBounce(ctx context.Context, rcpts []string, raw []byte) (BounceOutcome, error) {
	out, err := r.receiveBounce(ctx, rcpts, raw)
	switch {
	case errors.Is(err, ErrMalformed):
		r.inbound.WithLabelValues("bounce_malformed").Inc()
	case err == nil:
		r.inbound.WithLabelValues("bounce_" + string(out)).Inc()
	}
	return out, err
}

func (r *Receiver) receiveBounce(ctx context.Context, rcpts []string, raw []byte) (BounceOutcome, error) {
	rep, err := bounce.Parse(raw, r.domain, rcpts)
	if errors.Is(err, bounce.ErrNotReport) {
		r.log.InfoContext(ctx, "mail to a return path dropped: not a bounce or complaint")
		return BounceNotReport, nil
	}
	if err != nil {
		r.log.InfoContext(ctx, "bounce unreadable", "err", err)
		return "", fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if rep.Token == "" || len(rep.Token) > 64 {
		r.log.InfoContext(ctx, "bounce dropped: no return-path token", "type", rep.Type)
		return BounceNoToken, nil
	}
	playerID, ok, err := r.outbox.BounceTokenOwner(ctx, rep.Token)
	if err != nil {
		return "", err
	}
	if !ok {
		r.log.InfoContext(ctx, "bounce dropped: unknown return-path token", "type", rep.Type)
		return BounceNoToken, nil
	}
	log := r.log.With("player", playerID, "type", rep.Type, "severity", rep.Severity, "status", rep.Status, "shape", rep.Shape)
	if rep.Type == bounce.Delayed {
		log.InfoContext(ctx, "delivery delayed: the sending server goes on trying")
		return BounceDelayed, nil
	}
	now := r.now()
	reason := string(rep.Type)
	if rep.Status != "" {
		reason += " " + rep.Status
	}
	if rep.Type == bounce.Complaint && rep.FeedbackType != "" {
		reason += " " + rep.FeedbackType
	}
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return "", fmt.Errorf("record bounce: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var already bool
	if err := tx.QueryRow(ctx, `SELECT email_undeliverable_at IS NOT NULL FROM players WHERE id = $1 FOR UPDATE`, playerID).Scan(&already); err != nil {
		if isNoRows(err) {
			return BounceNoToken, nil
		}
		return "", fmt.Errorf("record bounce: %w", err)
	}
	if already {
		log.InfoContext(ctx, "bounce for an address already undeliverable")
		return BounceAlreadyBad, nil
	}
	outcome := BounceUndeliverable
	if rep.Type == bounce.Failed && rep.Severity == bounce.Soft {
		var count int
		err := tx.QueryRow(ctx, `
			UPDATE players SET
				email_soft_bounces = CASE WHEN email_soft_bounce_since IS NULL OR email_soft_bounce_since <= $2 THEN 1 ELSE email_soft_bounces + 1 END,
				email_soft_bounce_since = CASE WHEN email_soft_bounce_since IS NULL OR email_soft_bounce_since <= $2 THEN $3 ELSE email_soft_bounce_since END
			WHERE id = $1 RETURNING email_soft_bounces`, playerID, now.Add(-r.cfg.SoftBounceWindow), now).Scan(&count)
		if err != nil {
			return "", fmt.Errorf("count soft bounce: %w", err)
		}
		if count < r.cfg.SoftBounceLimit {
			if err := tx.Commit(ctx); err != nil {
				return "", fmt.Errorf("count soft bounce: %w", err)
			}
			log.InfoContext(ctx, "soft bounce counted", "count", count, "limit", r.cfg.SoftBounceLimit)
			return BounceSoftCounted, nil
		}
		outcome = BounceSoftLimit
		reason = fmt.Sprintf("%d soft bounces within %s (last: %s)", count, r.cfg.SoftBounceWindow, reason)
	}
	if _, err := tx.Exec(ctx, `UPDATE players SET email_undeliverable_at = $2, email_undeliverable_reason = $3 WHERE id = $1`,
		playerID, now, truncateText(reason, 200)); err != nil {
		return "", fmt.Errorf("mark address undeliverable: %w", err)
	}
	if err := r.tellOthers(ctx, tx, playerID); err != nil {
		return "", err
	}
	if err := tx.Commit(ctx); err != nil {
		return "", fmt.Errorf("mark address undeliverable: %w", err)
	}
	log.InfoContext(ctx, "address marked undeliverable", "reason", reason)
	return outcome, nil
}

// tellOthers enqueues, once per running game of the player, a mail to
// each other seat's player saying the player may not be hearing of the
// game (the mail job then checks that seat's own address as usual).
func (r *Receiver) tellOthers(ctx context.Context, tx pgx.Tx, playerID string) error {
	rows, err := tx.Query(ctx, `
		WITH g AS (
			INSERT INTO undeliverable_notices (game_id, player_id)
			SELECT DISTINCT s.game_id, s.player_id FROM game_seats s
			WHERE s.player_id = $1 AND NOT s.finished
			ON CONFLICT DO NOTHING
			RETURNING game_id)
		SELECT o.game_id::text, o.seat, me.seat, p.id::text, p.name, p.email
		FROM g
		JOIN game_seats o ON o.game_id = g.game_id AND o.player_id IS NOT NULL AND o.player_id <> $1
		JOIN players p ON p.id = o.player_id
		JOIN LATERAL (SELECT min(seat) AS seat FROM game_seats WHERE game_id = g.game_id AND player_id = $1) me ON true
		WHERE p.email <> ''
		ORDER BY 1, 2`, playerID)
	if err != nil {
		return fmt.Errorf("find the player's running games: %w", err)
	}
	var jobs []notify.MailArgs
	now := r.now()
	for rows.Next() {
		var a notify.MailArgs
		var about int
		if err := rows.Scan(&a.GameID, &a.Seat, &about, &a.PlayerID, &a.Name, &a.To); err != nil {
			rows.Close()
			return fmt.Errorf("read the player's running games: %w", err)
		}
		a.Mail, a.About, a.At = compose.KindUnreachable, about, now
		jobs = append(jobs, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the player's running games: %w", err)
	}
	if len(jobs) == 0 {
		return nil
	}
	if err := r.outbox.QueueMailsTx(ctx, tx, jobs...); err != nil {
		return fmt.Errorf("enqueue the notices of an undeliverable address: %w", err)
	}
	return nil
}

// toReturnPath tells a mail sent to one of azuld's return paths: by its
// envelope recipients or, without them, by the headers that name where
// it was delivered.
func (r *Receiver) toReturnPath(env Envelope, raw []byte) bool {
	isOurs := func(addr string) bool {
		if a, err := mail.ParseAddress(addr); err == nil {
			addr = a.Address
		}
		return bounce.Token(addr, r.domain) != ""
	}
	if len(env.Rcpts) > 0 {
		return slices.ContainsFunc(env.Rcpts, isOurs)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return false
	}
	for _, h := range []string{"Delivered-To", "X-Original-To", "To"} {
		if v := msg.Header.Get(h); v != "" && isOurs(v) {
			return true
		}
	}
	return false
}
