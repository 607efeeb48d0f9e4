package account

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/play"
)

// MaxTokens bounds a player's live tokens: enough for every device and
// bot, few enough that a leaked session cannot mint tokens without end.
const MaxTokens = 20

// Token is a token as listed: never its secret.
type Token struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
}

// NewToken is a created token: the only time its secret is shown.
type NewToken struct {
	Token
	Secret string `json:"token"`
}

// validTokenName checks a token's name like a player's name.
func validTokenName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 64 || !utf8.ValidString(name) || strings.ContainsAny(name, "\r\n\x00") {
		return "", play.Invalid(play.ErrInvalid, "token_name", "a token's name must be 1 to 64 characters on one line")
	}
	return name, nil
}

// validID checks a path id; a malformed one names nothing (404).
func validID(kind, id string) error {
	if u, err := uuid.Parse(id); err != nil || len(id) != 36 || u.String() != strings.ToLower(id) {
		if len(id) > 64 {
			id = strings.ToValidUTF8(id[:64], "") + "…"
		}
		return play.Invalid(play.ErrNotFound, "no_"+kind, fmt.Sprintf("no %s %q", kind, id), "ID", id)
	}
	return nil
}

// Tokens lists a player's live tokens, oldest first.
func (s *Service) Tokens(ctx context.Context, playerID string) ([]Token, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT id::text, name, created_at, last_used_at FROM api_tokens
		WHERE player_id = $1 AND revoked_at IS NULL ORDER BY created_at, id`, playerID)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Token, error) {
		var t Token
		err := r.Scan(&t.ID, &t.Name, &t.CreatedAt, &t.LastUsedAt)
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

// CreateToken adds a named token and returns its secret, shown once.
func (s *Service) CreateToken(ctx context.Context, playerID, name string) (NewToken, error) {
	name, err := validTokenName(name)
	if err != nil {
		return NewToken{}, err
	}
	secret, hash, err := play.NewToken()
	if err != nil {
		return NewToken{}, err
	}
	t := NewToken{Secret: secret}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		// The player's row serialises the creations: two at once cannot
		// both pass the count. The count is a statement of its own, after
		// the lock: in one statement it would read the snapshot taken
		// before the wait and miss the token the lock's holder added.
		var id string
		err := tx.QueryRow(ctx, `SELECT id::text FROM players WHERE id = $1 FOR UPDATE`, playerID).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return play.Invalid(play.ErrNotFound, "no_player", "player "+playerID)
		}
		if err != nil {
			return fmt.Errorf("lock the player: %w", err)
		}
		var live int
		err = tx.QueryRow(ctx, `SELECT count(*) FROM api_tokens WHERE player_id = $1 AND revoked_at IS NULL`, playerID).Scan(&live)
		if err != nil {
			return fmt.Errorf("count tokens: %w", err)
		}
		if live >= MaxTokens {
			return play.Invalid(play.ErrInvalid, "too_many_tokens",
				fmt.Sprintf("you have %d tokens, the most an account may hold: revoke one first", live), "Count", live)
		}
		err = tx.QueryRow(ctx, `
			INSERT INTO api_tokens (player_id, name, hash) VALUES ($1, $2, $3)
			RETURNING id::text, name, created_at`, playerID, name, hash).Scan(&t.ID, &t.Name, &t.CreatedAt)
		if err != nil {
			return fmt.Errorf("store token: %w", err)
		}
		return nil
	})
	if err != nil {
		return NewToken{}, err
	}
	return t, nil
}

// RevokeToken ends one of the player's tokens. It stops working on this
// replica at once and on every other within the auth generation's
// polling bound. The token in use may be revoked: the next request with
// it is refused.
func (s *Service) RevokeToken(ctx context.Context, playerID, tokenID string) error {
	if err := validID("token", tokenID); err != nil {
		return err
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND player_id = $2 AND revoked_at IS NULL`,
			tokenID, playerID)
		if err != nil {
			return fmt.Errorf("revoke token: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return play.Invalid(play.ErrNotFound, "no_token", "you have no live token "+tokenID, "ID", tokenID)
		}
		return RaiseGeneration(ctx, tx)
	})
	if err != nil {
		return err
	}
	s.notifyChanged(ctx)
	return nil
}
