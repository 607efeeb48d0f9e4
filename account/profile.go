package account

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/play"
)

// Languages are the languages a player may choose (one message catalogue
// each); the first is the default. They are the catalogue's: one source.
var Languages = i18n.Languages

// DefaultTimeZone is a new player's zone.
const DefaultTimeZone = "UTC"

// Profile is what GET and PATCH /v1/me answer.
type Profile struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email,omitempty"`
	Language  string    `json:"language"`
	TimeZone  string    `json:"time_zone"`
	CreatedAt time.Time `json:"created_at"`
	// EmailVerified and EmailStatus are the address's state (see
	// play.Player); Profile fills them, Update does not.
	EmailVerified bool   `json:"email_verified"`
	EmailStatus   string `json:"email_status,omitempty"`
	// HideGames hides the player's game lists (recent and running games,
	// head-to-head) on their public profile from everyone but them.
	HideGames bool `json:"hide_games"`
}

// Update is a change of profile: nil fields stay as they are.
type Update struct {
	Name     *string `json:"name,omitempty"`
	Email    *string `json:"email,omitempty"`
	Language *string `json:"language,omitempty"`
	TimeZone *string `json:"time_zone,omitempty"`
	// HideGames: see Profile.HideGames.
	HideGames *bool `json:"hide_games,omitempty"`
}

// Empty reports whether the update changes nothing.
func (u Update) Empty() bool {
	return u.Name == nil && u.Email == nil && u.Language == nil && u.TimeZone == nil && u.HideGames == nil
}

// ValidTimeZone checks an IANA zone name (play.ValidTimeZone: the same
// check as at registration). Its error is a *play.InputError with code
// time_zone or time_zone_form.
func ValidTimeZone(zone string) error { return play.ValidTimeZone(zone) }

// ValidLanguage checks a language code (play.ValidLanguage). Its error is
// a *play.InputError with code language.
func ValidLanguage(lang string) error { return play.ValidLanguage(lang) }

// Profile reads a player's profile.
func (s *Service) Profile(ctx context.Context, playerID string) (Profile, error) {
	var p Profile
	var undeliverable bool
	err := s.pool.QueryRow(ctx, `
		SELECT id::text, name, email, language, time_zone, created_at, email_verified,
			email_undeliverable_at IS NOT NULL, hide_games
		FROM players WHERE id = $1`, playerID).
		Scan(&p.ID, &p.Name, &p.Email, &p.Language, &p.TimeZone, &p.CreatedAt, &p.EmailVerified, &undeliverable, &p.HideGames)
	if errors.Is(err, pgx.ErrNoRows) {
		return Profile{}, play.Invalid(play.ErrNotFound, "no_player", "player "+playerID)
	}
	if err != nil {
		return Profile{}, fmt.Errorf("read profile: %w", err)
	}
	p.EmailStatus = play.EmailStatusOf(p.Email, p.EmailVerified, undeliverable)
	return p, nil
}

// Update changes a profile. Every field is checked before anything is
// written, so a bad field changes nothing. A new address is stored and
// then handed to the Verifier; an empty update is refused.
func (s *Service) Update(ctx context.Context, playerID string, u Update) (Profile, error) {
	if u.Empty() {
		return Profile{}, play.Invalid(play.ErrInvalid, "nothing_to_change", "nothing to change: send name, email, language, time_zone or hide_games")
	}
	// The checks first, on the fields alone.
	var name, email string
	var err error
	if u.Name != nil {
		if name, _, err = play.ValidPlayer(*u.Name, ""); err != nil {
			return Profile{}, err
		}
	}
	if u.Email != nil {
		if _, email, err = play.ValidPlayer("-", *u.Email); err != nil {
			return Profile{}, err
		}
	}
	if u.Language != nil {
		if err := ValidLanguage(*u.Language); err != nil {
			return Profile{}, err
		}
	}
	if u.TimeZone != nil {
		if err := ValidTimeZone(*u.TimeZone); err != nil {
			return Profile{}, err
		}
	}
	var cur, next Profile
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		// Read under the row's lock: two updates of different fields at
		// once both land, and whether the address changed is decided
		// against what is committed.
		err := tx.QueryRow(ctx, `
			SELECT id::text, name, email, language, time_zone, created_at, hide_games FROM players WHERE id = $1 FOR UPDATE`, playerID).
			Scan(&cur.ID, &cur.Name, &cur.Email, &cur.Language, &cur.TimeZone, &cur.CreatedAt, &cur.HideGames)
		if errors.Is(err, pgx.ErrNoRows) {
			return play.Invalid(play.ErrNotFound, "no_player", "player "+playerID)
		}
		if err != nil {
			return fmt.Errorf("lock profile: %w", err)
		}
		next = cur
		if u.Name != nil {
			next.Name = name
		}
		if u.Email != nil {
			next.Email = email
		}
		if u.Language != nil {
			next.Language = *u.Language
		}
		if u.TimeZone != nil {
			next.TimeZone = *u.TimeZone
		}
		if u.HideGames != nil {
			next.HideGames = *u.HideGames
		}
		if next == cur {
			return nil
		}
		// A new address is unverified, and what was known of the old
		// one's deliveries (bounces, the undeliverable mark, the link
		// mails counted) does not carry over.
		if _, err := tx.Exec(ctx, `UPDATE players SET name = $2, email = $3, language = $4, time_zone = $5, hide_games = $6,
				email_verified = CASE WHEN lower(email) = lower($3) THEN email_verified ELSE false END,
				email_undeliverable_at = CASE WHEN lower(email) = lower($3) THEN email_undeliverable_at END,
				email_undeliverable_reason = CASE WHEN lower(email) = lower($3) THEN email_undeliverable_reason ELSE '' END,
				email_soft_bounces = CASE WHEN lower(email) = lower($3) THEN email_soft_bounces ELSE 0 END,
				email_soft_bounce_since = CASE WHEN lower(email) = lower($3) THEN email_soft_bounce_since END
			WHERE id = $1`,
			playerID, next.Name, next.Email, next.Language, next.TimeZone, next.HideGames); play.IsAddressTaken(err) {
			return play.ErrAddressTaken()
		} else if err != nil {
			return fmt.Errorf("update profile: %w", err)
		}
		// Cached authentications carry the name and address.
		return RaiseGeneration(ctx, tx)
	})
	if err != nil {
		return Profile{}, err
	}
	if next == cur {
		return cur, nil
	}
	s.notifyChanged(ctx)
	if next.Email != "" && !strings.EqualFold(next.Email, cur.Email) && s.verifier != nil {
		if err := s.verifier.SendVerification(ctx, playerID); err != nil {
			return Profile{}, fmt.Errorf("the address is changed, but its verification mail could not be sent: %w", err)
		}
	}
	return next, nil
}
