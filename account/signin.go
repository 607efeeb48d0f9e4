package account

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// MaxOpenLinks bounds the unused, unexpired sign-in links of a player:
// asking again and again must not flood a mailbox.
const MaxOpenLinks = 3

// ErrTooManyLinks: the player has MaxOpenLinks links waiting already.
var ErrTooManyLinks = errors.New("sign-in links already on their way")

// ErrLinkUsed: the link is unknown, used or expired. One message for all
// three, so a guesser learns nothing.
var ErrLinkUsed = errors.New("this sign-in link is used up, expired or unknown: ask for a new one")

// NewSigninLink stores a one-time sign-in link for a player, valid for
// ttl (a verification link lives longer than one asked for on the
// sign-in form), and returns its token; only the token's hash is
// stored. It also deletes the links and web sessions that have expired:
// asking for a link is rare enough to carry the clean-up.
func (s *Service) NewSigninLink(ctx context.Context, playerID string, ttl time.Duration) (string, error) {
	now := s.now()
	if _, err := s.pool.Exec(ctx, `DELETE FROM signin_links WHERE expires_at < $1`, now.Add(-24*time.Hour)); err != nil {
		return "", fmt.Errorf("delete old sign-in links: %w", err)
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM web_sessions WHERE expires_at < $1`, now); err != nil {
		return "", fmt.Errorf("delete old web sessions: %w", err)
	}
	var open int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM signin_links WHERE player_id = $1 AND used_at IS NULL AND expires_at > $2`,
		playerID, now).Scan(&open)
	if err != nil {
		return "", fmt.Errorf("count sign-in links: %w", err)
	}
	if open >= MaxOpenLinks {
		return "", ErrTooManyLinks
	}
	token := RandomToken()
	_, err = s.pool.Exec(ctx, `INSERT INTO signin_links (token_hash, player_id, expires_at) VALUES ($1, $2, $3)`,
		play.HashToken(token), playerID, now.Add(ttl))
	if err != nil {
		return "", fmt.Errorf("store sign-in link: %w", err)
	}
	return token, nil
}

// UseSigninLink spends a link and returns its player's id: it works
// once, before it expires, else ErrLinkUsed. The UPDATE is the check, so
// two uses at the same moment cannot both win. The link was mailed to the
// player's address and followed, so the address is marked verified;
// confirmed reports that it was not before.
func (s *Service) UseSigninLink(ctx context.Context, token string) (playerID string, confirmed bool, err error) {
	if token == "" || len(token) > 128 {
		return "", false, ErrLinkUsed
	}
	err = s.pool.QueryRow(ctx, `
		UPDATE signin_links SET used_at = $2
		WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
		RETURNING player_id::text`, play.HashToken(token), s.now()).Scan(&playerID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, ErrLinkUsed
	}
	if err != nil {
		return "", false, fmt.Errorf("use sign-in link: %w", err)
	}
	before, err := s.Profile(ctx, playerID)
	if err != nil {
		return "", false, fmt.Errorf("sign-in link's player: %w", err)
	}
	if err := notify.MarkVerified(ctx, s.pool, playerID); err != nil {
		return "", false, err
	}
	after, err := s.Profile(ctx, playerID)
	if err != nil {
		return "", false, fmt.Errorf("sign-in link's player: %w", err)
	}
	return playerID, before.EmailStatus != play.EmailOK && after.EmailStatus == play.EmailOK, nil
}
