package notify

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/azuld/azuld/mail/bounce"
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
