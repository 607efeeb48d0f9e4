package play

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
)

// An invitation link is an invitation to anyone who holds it: it takes one
// of a game's free seats that is kept for nobody, for whoever opens it
// signed in, as often as such seats are free. Its token is the HMAC of the
// game's id under the server's invitation key: the players at the table
// see the same link every time, and what is stored of it is only its
// SHA-256 (invitation_links), which a link is looked up by. Neither the
// token nor its hash enters the event log: the seat is taken by an
// ordinary game.joined that names the player by id.

// invitationTokenLen is the length of a token: 32 bytes of HMAC in
// unpadded base64url.
var invitationTokenLen = base64.RawURLEncoding.EncodedLen(sha256.Size)

// ErrNoInvitation: the token names no game's invitation (mistyped,
// guessed, or the game's log is gone). It comes wrapped with ErrNotFound.
var ErrNoInvitation = errors.New("no invitation with this link")

// invitationKey is the server's invitation key, read (or made, by the
// first server) on first use and kept: it never changes.
type invitationKey struct {
	mu  sync.Mutex
	key []byte
}

// OpenSeats are the free seats of an open game that are kept for nobody:
// the seats its invitation link gives away.
func (g *Game) OpenSeats() []int {
	if g.Status != StatusOpen {
		return nil
	}
	var open []int
	for _, i := range g.freeSeats() {
		if g.Seats[i].Reserved == "" {
			open = append(open, i)
		}
	}
	return open
}

// InvitationToken is the token of the game's invitation link, for a
// player seated at it to pass on; "" when no seat is free for strangers
// (the game started, or its free seats are reserved). The link's row is
// written the first time.
func (s *Service) InvitationToken(ctx context.Context, g *Game) (string, error) {
	if len(g.OpenSeats()) == 0 {
		return "", nil
	}
	key, err := s.invitationKey(ctx)
	if err != nil {
		return "", err
	}
	token := invitationToken(key, g.ID)
	_, err = s.pool.Exec(ctx, `INSERT INTO invitation_links (token_hash, game_id) VALUES ($1, $2::uuid) ON CONFLICT DO NOTHING`,
		HashToken(token), g.ID)
	if err != nil {
		return "", fmt.Errorf("store the invitation link of game %s: %w", g.ID, err)
	}
	return token, nil
}

// invitationToken derives a game's token from the key.
func invitationToken(key []byte, gameID string) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("azuld invitation\x00" + gameID))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// invitationKey reads the server's key, making it when no server has.
func (s *Service) invitationKey(ctx context.Context) ([]byte, error) {
	s.invite.mu.Lock()
	defer s.invite.mu.Unlock()
	if s.invite.key != nil {
		return s.invite.key, nil
	}
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("draw the invitation key: %w", err)
	}
	// Two servers starting at once both insert: one row wins, and both
	// read it.
	var key []byte
	err := s.pool.QueryRow(ctx, `WITH ins AS (INSERT INTO invitation_key (key) VALUES ($1) ON CONFLICT DO NOTHING RETURNING key)
		SELECT key FROM ins UNION ALL SELECT key FROM invitation_key LIMIT 1`, fresh).Scan(&key)
	if err != nil {
		return nil, fmt.Errorf("read the invitation key: %w", err)
	}
	s.invite.key = key
	return key, nil
}

// plausibleInvitationToken is a cheap check before a lookup: a token has
// one length and base64url's letters.
func plausibleInvitationToken(token string) bool {
	if len(token) != invitationTokenLen {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil
}

// InvitedGame is the game a token invites to, read for display. A token
// that names none is ErrNotFound wrapping ErrNoInvitation (the caller
// counts it as a failed token).
func (s *Service) InvitedGame(ctx context.Context, token string) (*Game, error) {
	id, err := s.invitedGameID(ctx, token)
	if err != nil {
		return nil, err
	}
	g, err := s.Game(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", ErrNotFound, ErrNoInvitation)
	}
	return g, err
}

func (s *Service) invitedGameID(ctx context.Context, token string) (string, error) {
	if !plausibleInvitationToken(token) {
		return "", fmt.Errorf("%w: %w", ErrNotFound, ErrNoInvitation)
	}
	var id string
	err := s.pool.QueryRow(ctx, `SELECT game_id::text FROM invitation_links WHERE token_hash = $1`, HashToken(token)).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("%w: %w", ErrNotFound, ErrNoInvitation)
	}
	if err != nil {
		return "", fmt.Errorf("look up an invitation link: %w", err)
	}
	return id, nil
}

// AcceptInvitation takes a free seat of the game the token invites to for
// p (their reserved seats, if the game keeps any for them), starting the
// game when it was the last one. A game with no seat left for p is
// ErrForbidden, as for Join. channel is how the acceptance came.
func (s *Service) AcceptInvitation(ctx context.Context, token string, p Player, channel string) (*Game, error) {
	id, err := s.invitedGameID(ctx, token)
	if err != nil {
		return nil, err
	}
	g, err := s.JoinVia(ctx, id, p, nil, channel)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", ErrNotFound, ErrNoInvitation)
	}
	return g, err
}
