// Package mailin is azuld's inbound mail: what comes in to its own
// addresses, from the built-in SMTP listener (mail/smtpin) or a mail
// provider's inbound webhook. Replies to game mails and to the seat
// addresses carry moves, commands ("stop", "undo", "accept", "rematch"…)
// and messages to the table, carried out through the command path
// (play.Service); delivery reports and complaints to the return paths
// change the status of an address. What a reply is answered with (a
// refusal, the news that a message went to the table) is queued in the
// outbox (notify), which writes and sends it.
package mailin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/mail/authcheck"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// Outbox is what the inbound side needs of the outbox: the seats the
// reply tokens name, the reader's language, the stop of a seat's mails,
// the owners of the return paths, and the answers it queues.
// *notify.Notifier is one.
type Outbox interface {
	// Sender is the server's mail identity (its domain above all).
	Sender() compose.Sender
	// SeatOfToken is the game, seat and version a reply token names.
	SeatOfToken(ctx context.Context, token string) (gameID string, seat int, version int64, ok bool, err error)
	// ReaderOf is the language and time zone a player reads in.
	ReaderOf(ctx context.Context, playerID string) (string, *time.Location, error)
	// StopMails stops the mails of a seat in a game.
	StopMails(ctx context.Context, gameID string, seat int) error
	// BounceTokenOwner is the player a return path's token belongs to.
	BounceTokenOwner(ctx context.Context, token string) (playerID string, ok bool, err error)
	// QueueMailsTx enqueues mails in the caller's transaction.
	QueueMailsTx(ctx context.Context, tx pgx.Tx, mails ...notify.MailArgs) error
}

// TalkLimits count and check named limits (api.RateLimits): nil or a
// *limits.Refusal.
type TalkLimits interface {
	Allow(ctx context.Context, name, key string) error
	Peek(ctx context.Context, name, key string) error
}

// Config wires a Receiver.
type Config struct {
	Pool    *pgxpool.Pool
	Service *play.Service
	Outbox  Outbox
	// Catalogue holds the command words of every language; nil: the
	// embedded one (i18n.New).
	Catalogue *i18n.Catalogue
	// Words reads moves in each language's words; nil: the embedded
	// ones (notation.New).
	Words *notation.Words
	// MailAuth checks SPF, DKIM and DMARC of the replies that come by
	// SMTP and records the result with the move (nil: not checked).
	MailAuth *authcheck.Checker
	// TalkLimits are the limits of table talk the API and the pages keep
	// (limits.MessagesGame, limits.Messages): messages sent by mail count
	// against them too. nil: none.
	TalkLimits TalkLimits
	// SoftBounceLimit temporary failures within SoftBounceWindow make an
	// address undeliverable (defaults DefaultSoftBounceLimit,
	// DefaultSoftBounceWindow).
	SoftBounceLimit  int
	SoftBounceWindow time.Duration
	// Metrics registers the inbound counter (none when nil).
	Metrics prometheus.Registerer
	Logger  *slog.Logger
	Now     func() time.Time
}

// Receiver acts on inbound mail: replies (Receive) and delivery reports
// (ReceiveBounce).
type Receiver struct {
	cfg    Config
	pool   *pgxpool.Pool
	svc    *play.Service
	outbox Outbox
	// domain is the mail domain of the reply and return-path addresses.
	domain string
	log    *slog.Logger
	now    func() time.Time
	// commands are the reply's command words of every language
	// (mail.command.*) and the command each names.
	commands map[string]string
	// rematchWords are the words of every language that ask for a
	// rematch or answer an invitation to one (see reply.RematchAnswer).
	rematchWords map[string]string
	// moveWords are the move words of every language, by family (see
	// looksLikeMove).
	moveWords map[notation.Family]map[string]bool
	// inbound counts inbound mails by outcome.
	inbound *prometheus.CounterVec
}

// New builds a Receiver.
func New(cfg Config) (*Receiver, error) {
	switch {
	case cfg.Pool == nil:
		return nil, errors.New("mailin: no database pool")
	case cfg.Service == nil:
		return nil, errors.New("mailin: no command path")
	case cfg.Outbox == nil:
		return nil, errors.New("mailin: no outbox")
	}
	if cfg.Catalogue == nil {
		cat, err := i18n.New(i18n.Options{})
		if err != nil {
			return nil, fmt.Errorf("mailin: %w", err)
		}
		cfg.Catalogue = cat
	}
	words, err := notation.OrNew(cfg.Words, cfg.Catalogue)
	if err != nil {
		return nil, fmt.Errorf("mailin: %w", err)
	}
	cfg.Words = words
	if cfg.SoftBounceLimit <= 0 {
		cfg.SoftBounceLimit = DefaultSoftBounceLimit
	}
	if cfg.SoftBounceWindow <= 0 {
		cfg.SoftBounceWindow = DefaultSoftBounceWindow
	}
	r := &Receiver{cfg: cfg, pool: cfg.Pool, svc: cfg.Service, outbox: cfg.Outbox, domain: cfg.Outbox.Sender().Domain,
		log: cfg.Logger, now: cfg.Now,
		commands: commandWords(cfg.Catalogue), rematchWords: rematchWords(cfg.Catalogue), moveWords: moveWordsOf(cfg.Words)}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.now == nil {
		r.now = time.Now
	}
	r.inbound = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "azuld_inbound_mails_total", Help: "Inbound mails by outcome (applied, message, refused, stopped, duplicate, auto_reply, unknown_token, sender_mismatch, malformed; reports to a return path: bounce_undeliverable, bounce_soft_counted, bounce_soft_limit, bounce_delayed, bounce_already_undeliverable, bounce_unknown_token, bounce_not_report, bounce_malformed).",
	}, []string{"outcome"})
	if cfg.Metrics != nil {
		if err := cfg.Metrics.Register(r.inbound); err != nil {
			return nil, fmt.Errorf("mailin: register metrics: %w", err)
		}
	}
	return r, nil
}

func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// addressOf reads an address for comparisons.
func addressOf(s string) string {
	if a, err := mail.ParseAddress(s); err == nil {
		return strings.ToLower(a.Address)
	}
	return strings.ToLower(strings.TrimSpace(s))
}

func truncateText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "")
}

// The outbox is the notifier.
var _ Outbox = (*notify.Notifier)(nil)
