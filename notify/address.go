package notify

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"

	"github.com/azuld/azuld/mail/bounce"
	"github.com/azuld/azuld/mail/compose"
)

// Defaults of the soft-bounce threshold (Config.SoftBounceLimit,
// Config.SoftBounceWindow): three temporary failures within a week make
// an address undeliverable. One full mailbox is a bad day; three in a
// week is a mailbox nobody reads.
const (
	DefaultSoftBounceLimit  = 3
	DefaultSoftBounceWindow = 7 * 24 * time.Hour
)

// LinkMailsPerDay is how many link mails (the verification mail, sign-in
// links) an address that is unverified or undeliverable gets in a day:
// the verification mail and one more on request. Anyone can type an
// address into a form; the owner of that address must not be flooded.
const LinkMailsPerDay = 2

// ErrLinkMailLimit refuses a link mail to an unverified or undeliverable
// address that had LinkMailsPerDay already.
var ErrLinkMailLimit = errors.New("this address was sent its verification mail and one more today: follow the link in it, or ask again tomorrow")

// execer is a pool or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// AllowLinkMail counts a link mail (verification or sign-in) to a
// player's address against LinkMailsPerDay when the address is
// undeliverable, or unverified while addresses are verified (verifying),
// and returns ErrLinkMailLimit when the day's mails are spent. Any other
// address is not limited here. The check and the count are one
// statement, so two requests at once cannot both pass the last slot.
func AllowLinkMail(ctx context.Context, db execer, playerID string, now time.Time, verifying bool) error {
	tag, err := db.Exec(ctx, `
		UPDATE players SET
			verify_mails = CASE WHEN verify_mails_since IS NULL OR verify_mails_since <= $2 THEN 1 ELSE verify_mails + 1 END,
			verify_mails_since = CASE WHEN verify_mails_since IS NULL OR verify_mails_since <= $2 THEN $3 ELSE verify_mails_since END
		WHERE id = $1 AND ((NOT email_verified AND $5) OR email_undeliverable_at IS NOT NULL)
		  AND (verify_mails_since IS NULL OR verify_mails_since <= $2 OR verify_mails < $4)`,
		playerID, now.Add(-24*time.Hour), now, LinkMailsPerDay, verifying)
	if err != nil {
		return fmt.Errorf("count link mails: %w", err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	// Nothing updated: either the address needs no limit, or the limit is
	// reached.
	var limited bool
	err = db.QueryRow(ctx, `SELECT (NOT email_verified AND $2) OR email_undeliverable_at IS NOT NULL FROM players WHERE id = $1`, playerID, verifying).Scan(&limited)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check link mails: %w", err)
	}
	if limited {
		return ErrLinkMailLimit
	}
	return nil
}

// MarkVerified records that a player followed a link mailed to their
// address: it is verified, and a bounce or complaint recorded before is
// forgotten (the owner just showed that the address reads mail), with the
// notices to the other seats, so that a later bounce tells them again.
func MarkVerified(ctx context.Context, db execer, playerID string) error {
	_, err := db.Exec(ctx, `
		WITH p AS (
			UPDATE players SET email_verified = true, email_undeliverable_at = NULL, email_undeliverable_reason = '',
				email_soft_bounces = 0, email_soft_bounce_since = NULL, verify_mails = 0, verify_mails_since = NULL
			WHERE id = $1 RETURNING id)
		DELETE FROM undeliverable_notices n USING p WHERE n.player_id = p.id`, playerID)
	if err != nil {
		return fmt.Errorf("mark address verified: %w", err)
	}
	return nil
}

// VerifyAddresses reports whether unverified addresses are kept from mail
// (Config.VerifyAddresses).
func (n *Notifier) VerifyAddresses() bool { return n.cfg.VerifyAddresses }

// errUnverified and errUndeliverable are why a mail to a player is
// skipped (the delivery log says which).
var (
	errUnverified    = fmt.Errorf("%w: the address is not verified yet", errSkip)
	errUndeliverable = fmt.Errorf("%w: the address is undeliverable (a bounce or complaint came back)", errSkip)
)

// mayMail decides at send time whether a player's address is mailed:
// not while it is undeliverable, nor, when verification is on, before it
// is verified. A player who is gone (erased) is not mailed either.
func (n *Notifier) mayMail(ctx context.Context, playerID string) error {
	if playerID == "" {
		return nil
	}
	var verified, undeliverable bool
	err := n.pool.QueryRow(ctx, `SELECT email_verified, email_undeliverable_at IS NOT NULL FROM players WHERE id = $1`, playerID).
		Scan(&verified, &undeliverable)
	if isNoRows(err) {
		return fmt.Errorf("%w: the player is gone", errSkip)
	}
	if err != nil {
		return fmt.Errorf("check the address of player %s: %w", playerID, err)
	}
	switch {
	case undeliverable:
		return errUndeliverable
	case n.cfg.VerifyAddresses && !verified:
		return errUnverified
	}
	return nil
}

// returnPath draws the VERP return path of one delivery to a player,
// bounce+<token>@<mail domain>, and stores the token's hash with the
// player; without a player it is the From address.
func (n *Notifier) returnPath(ctx context.Context, playerID string) (string, error) {
	if playerID == "" {
		return n.cfg.Sender.From.Address, nil
	}
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("draw bounce token: %w", err)
	}
	token := tokenEncoding.EncodeToString(b[:])
	_, err := n.pool.Exec(ctx, `INSERT INTO bounce_tokens (token_hash, player_id) VALUES ($1, $2)`, hashBounceToken(token), playerID)
	if err != nil {
		return "", fmt.Errorf("store bounce token: %w", err)
	}
	return bounce.Address(token, n.cfg.Sender.Domain), nil
}

func hashBounceToken(token string) []byte {
	sum := sha256.Sum256([]byte("bounce:" + strings.ToLower(token)))
	return sum[:]
}

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
func (n *Notifier) ReceiveBounce(ctx context.Context, rcpts []string, raw []byte) (BounceOutcome, error) {
	out, err := n.receiveBounce(ctx, rcpts, raw)
	switch {
	case errors.Is(err, ErrMalformed):
		n.inbound.WithLabelValues("bounce_malformed").Inc()
	case err == nil:
		n.inbound.WithLabelValues("bounce_" + string(out)).Inc()
	}
	return out, err
}

func (n *Notifier) receiveBounce(ctx context.Context, rcpts []string, raw []byte) (BounceOutcome, error) {
	rep, err := bounce.Parse(raw, n.cfg.Sender.Domain, rcpts)
	if errors.Is(err, bounce.ErrNotReport) {
		n.log.InfoContext(ctx, "mail to a return path dropped: not a bounce or complaint")
		return BounceNotReport, nil
	}
	if err != nil {
		n.log.InfoContext(ctx, "bounce unreadable", "err", err)
		return "", fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if rep.Token == "" || len(rep.Token) > 64 {
		n.log.InfoContext(ctx, "bounce dropped: no return-path token", "type", rep.Type)
		return BounceNoToken, nil
	}
	var playerID string
	err = n.pool.QueryRow(ctx, `SELECT player_id::text FROM bounce_tokens WHERE token_hash = $1`, hashBounceToken(rep.Token)).Scan(&playerID)
	if isNoRows(err) {
		n.log.InfoContext(ctx, "bounce dropped: unknown return-path token", "type", rep.Type)
		return BounceNoToken, nil
	}
	if err != nil {
		return "", fmt.Errorf("look up bounce token: %w", err)
	}
	log := n.log.With("player", playerID, "type", rep.Type, "severity", rep.Severity, "status", rep.Status, "shape", rep.Shape)
	if rep.Type == bounce.Delayed {
		log.InfoContext(ctx, "delivery delayed: the sending server goes on trying")
		return BounceDelayed, nil
	}
	now := n.now()
	reason := string(rep.Type)
	if rep.Status != "" {
		reason += " " + rep.Status
	}
	if rep.Type == bounce.Complaint && rep.FeedbackType != "" {
		reason += " " + rep.FeedbackType
	}
	tx, err := n.pool.Begin(ctx)
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
			WHERE id = $1 RETURNING email_soft_bounces`, playerID, now.Add(-n.cfg.SoftBounceWindow), now).Scan(&count)
		if err != nil {
			return "", fmt.Errorf("count soft bounce: %w", err)
		}
		if count < n.cfg.SoftBounceLimit {
			if err := tx.Commit(ctx); err != nil {
				return "", fmt.Errorf("count soft bounce: %w", err)
			}
			log.InfoContext(ctx, "soft bounce counted", "count", count, "limit", n.cfg.SoftBounceLimit)
			return BounceSoftCounted, nil
		}
		outcome = BounceSoftLimit
		reason = fmt.Sprintf("%d soft bounces within %s (last: %s)", count, n.cfg.SoftBounceWindow, reason)
	}
	if _, err := tx.Exec(ctx, `UPDATE players SET email_undeliverable_at = $2, email_undeliverable_reason = $3 WHERE id = $1`,
		playerID, now, truncateText(reason, 200)); err != nil {
		return "", fmt.Errorf("mark address undeliverable: %w", err)
	}
	if err := n.tellOthers(ctx, tx, playerID); err != nil {
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
func (n *Notifier) tellOthers(ctx context.Context, tx pgx.Tx, playerID string) error {
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
	var jobs []river.InsertManyParams
	now := n.now()
	for rows.Next() {
		var a MailArgs
		var about int
		if err := rows.Scan(&a.GameID, &a.Seat, &about, &a.PlayerID, &a.Name, &a.To); err != nil {
			rows.Close()
			return fmt.Errorf("read the player's running games: %w", err)
		}
		a.Mail, a.About, a.At = compose.KindUnreachable, about, now
		jobs = append(jobs, river.InsertManyParams{Args: a})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the player's running games: %w", err)
	}
	if len(jobs) == 0 {
		return nil
	}
	if _, err := n.client.InsertManyTx(ctx, tx, jobs); err != nil {
		return fmt.Errorf("enqueue the notices of an undeliverable address: %w", err)
	}
	return nil
}

func truncateText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "")
}

// toReturnPath tells a mail sent to one of azuld's return paths: by its
// envelope recipients or, without them, by the headers that name where
// it was delivered.
func (n *Notifier) toReturnPath(env Envelope, raw []byte) bool {
	isOurs := func(addr string) bool {
		if a, err := mail.ParseAddress(addr); err == nil {
			addr = a.Address
		}
		return bounce.Token(addr, n.cfg.Sender.Domain) != ""
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
