// Package app assembles azuld's parts below HTTP — the command path, the
// follower of the log, notifications, presence, limits and the event
// listener — and runs their background work, as `azuld serve` runs them.
//
// `azuld serve` and every test that needs a whole server build it here,
// so that a test runs what production runs: a part added to the server
// is added once, and no set-up can forget it. The HTTP face is
// api.New(api.Config{App: a, …}); the process around it (listeners,
// signals, the embedded database) stays in cmd/azuld.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/presence"
)

// Config is what differs between one server and another: production's
// settings, or a test's.
type Config struct {
	// Pool is the server's connection pool (required); the app does not
	// close it.
	Pool *pgxpool.Pool
	// DatabaseURL is what the event listener dials for LISTEN (its
	// notices wake the follower and the live streams). Empty: no
	// listener; the follower then polls and live streams are off.
	DatabaseURL string
	// Logger (nil: discard).
	Logger *slog.Logger
	// Metrics is the registry every part registers with (nil: a new one).
	Metrics *prometheus.Registry
	// Rules are the rule sets served (nil: rulesets.All()).
	Rules engine.Registry
	// Catalogue and Words are the user-facing text and move words,
	// shared by every part (nil: the embedded ones).
	Catalogue *i18n.Catalogue
	Words     *notation.Words

	// Service tunes the command path. Pool, Store, Rules and Logger are
	// the app's, and BotJobs follows Notify.Workers.
	Service play.Config
	// Notify configures the outbox. Pool, Logger, Metrics, Catalogue,
	// Words and Presence are the app's; Workers > 0 runs the job workers
	// (mails, webhooks, timers, bot moves) in this process.
	Notify notify.Config
	// Follow tunes the follower of the log; Wake is the listener's.
	Follow notify.FollowOptions
	// Inbound configures the inbound mail. Pool, Service, Outbox,
	// Catalogue, Words, Logger, Metrics and TalkLimits are the app's;
	// Now is Notify's unless set.
	Inbound mailin.Config

	// AwayDelay > 0 keeps who is at a game's table (presence) and holds
	// a turn mail for a player who is there until they have been away
	// that long.
	AwayDelay time.Duration

	// Limits configures the shared limiter; Limits.Off turns every limit
	// off. Policy is the limits' rules (nil: the defaults).
	Limits limits.Options
	Policy limits.Policy
	// Limiter, when set, is used instead of one built from Limits (a
	// test's limiter whose database fails).
	Limiter *limits.Limiter

	// Bots runs the catch-up of bot seats (play.Service.RunBots).
	Bots bool
}

// App is a built server's parts. The fields are read-only after New.
type App struct {
	Pool      *pgxpool.Pool
	Logger    *slog.Logger
	Metrics   *prometheus.Registry
	Catalogue *i18n.Catalogue
	Words     *notation.Words
	Service   *play.Service
	Notifier  *notify.Notifier
	// Inbound takes the mail that comes in (the SMTP listener's and the
	// inbound route's): replies to game mails and delivery reports.
	Inbound *mailin.Receiver
	// Listener is nil without Config.DatabaseURL.
	Listener *events.Listener
	// Presence is nil unless Config.AwayDelay > 0.
	Presence *presence.Store
	Limiter  *limits.Limiter
	Policy   limits.Policy
	// Checker applies Policy on Limiter (nil when the limits are off):
	// table talk by mail counts against it, and the SMTP listener's
	// admission asks it (limits.MailAdmission).
	Checker *limits.Checker

	cfg      Config
	mu       sync.Mutex
	started  bool
	stopBg   context.CancelFunc
	stopWake func()
	wg       sync.WaitGroup
}

// New builds the parts; nothing runs until Start.
func New(cfg Config) (*App, error) {
	if cfg.Pool == nil {
		return nil, errors.New("app: no database pool")
	}
	a := &App{Pool: cfg.Pool, Logger: cfg.Logger, Metrics: cfg.Metrics, Catalogue: cfg.Catalogue, Words: cfg.Words, Policy: cfg.Policy, cfg: cfg}
	if a.Logger == nil {
		a.Logger = slog.New(slog.DiscardHandler)
	}
	if a.Metrics == nil {
		a.Metrics = prometheus.NewRegistry()
	}
	if a.Catalogue == nil {
		c, err := i18n.New(i18n.Options{})
		if err != nil {
			return nil, fmt.Errorf("message catalogue: %w", err)
		}
		a.Catalogue = c
	}
	words, err := notation.OrNew(a.Words, a.Catalogue)
	if err != nil {
		return nil, fmt.Errorf("move words: %w", err)
	}
	a.Words = words
	if a.Policy == nil {
		a.Policy = limits.DefaultPolicy()
	}
	rules := cfg.Rules
	if rules == nil {
		rules = rulesets.All()
	}
	if cfg.AwayDelay > 0 {
		a.Presence = presence.New(cfg.Pool, nil)
	}

	ncfg := cfg.Notify
	ncfg.Pool, ncfg.Logger, ncfg.Metrics = cfg.Pool, a.Logger, a.Metrics
	ncfg.Catalogue, ncfg.Words = a.Catalogue, a.Words
	ncfg.Presence, ncfg.AwayDelay = a.Presence, cfg.AwayDelay
	if a.Notifier, err = notify.New(ncfg); err != nil {
		return nil, err
	}

	scfg := cfg.Service
	scfg.Pool, scfg.Store, scfg.Rules, scfg.Logger = cfg.Pool, events.NewStore(cfg.Pool), rules, a.Logger
	// With job workers here, they move every bot seat; without, random
	// and greedy bots move within the command that brings their turn.
	scfg.BotJobs = ncfg.Workers > 0
	a.Service = play.New(scfg)
	a.Notifier.Attach(a.Service)

	if cfg.DatabaseURL != "" {
		a.Listener = events.NewListener(cfg.DatabaseURL, a.Logger)
	}
	// The replicas share their limits through the database.
	a.Limiter = cfg.Limiter
	if a.Limiter == nil {
		a.Limiter = limits.New(cfg.Pool, cfg.Limits)
	}
	a.Checker = limits.NewChecker(a.Limiter, a.Policy, a.Logger)

	icfg := cfg.Inbound
	icfg.Pool, icfg.Service, icfg.Outbox, icfg.Logger, icfg.Metrics = cfg.Pool, a.Service, a.Notifier, a.Logger, a.Metrics
	icfg.Catalogue, icfg.Words, icfg.TalkLimits = a.Catalogue, a.Words, nil
	if icfg.Now == nil {
		// One clock for the answers and the mails they answer.
		icfg.Now = ncfg.Now
	}
	if a.Checker != nil {
		// Messages to the table sent by mail count against the limits of
		// table talk, as those from the pages and the API do.
		icfg.TalkLimits = a.Checker
	}
	if a.Inbound, err = mailin.New(icfg); err != nil {
		return nil, err
	}
	return a, nil
}

// Start runs the background work until Stop: the event listener, the
// follower of the log, the limits' synchronisation, the invitations'
// expiry, the bots' catch-up (Config.Bots) and the job workers.
func (a *App) Start(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.started {
		return errors.New("app: started twice")
	}
	// Background work ends with Stop, not with ctx's cancellation: the
	// HTTP server drains first.
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	a.stopBg = stop
	follow := a.cfg.Follow
	if a.Listener != nil {
		a.wg.Go(func() {
			if err := a.Listener.Run(bg); err != nil && bg.Err() == nil {
				a.Logger.Error("the event listener stopped", "err", err.Error())
			}
		})
		// Every replica follows the log; they take turns batch by batch.
		follow.Wake, a.stopWake = a.Listener.SubscribeAll()
	}
	a.wg.Go(func() {
		if err := a.Notifier.Follow(bg, follow); err != nil && bg.Err() == nil {
			a.Logger.Error("following the log stopped", "err", err.Error())
		}
	})
	a.wg.Go(func() { runLimiter(bg, a.Limiter, a.Logger) })
	a.wg.Go(func() {
		if err := a.Service.RunInvitations(bg); err != nil && bg.Err() == nil {
			a.Logger.Error("the invitation expiry stopped", "err", err.Error())
		}
	})
	if a.cfg.Bots {
		a.wg.Go(func() {
			if err := a.Service.RunBots(bg); err != nil && bg.Err() == nil {
				a.Logger.Error("the bot runner stopped", "err", err.Error())
			}
		})
	}
	// The workers are stopped by Stop's Shutdown, not by a cancelled
	// context (which would cut deliveries in flight).
	if err := a.Notifier.Start(context.WithoutCancel(ctx)); err != nil {
		a.stopLocked()
		return err
	}
	a.started = true
	return nil
}

// Stop gives the deliveries in flight until ctx ends to finish (the rest
// stay queued for the next start, or another replica), then stops the
// background work and waits for it.
func (a *App) Stop(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.started {
		return nil
	}
	a.started = false
	err := a.Notifier.Shutdown(ctx)
	a.stopLocked()
	if err != nil {
		return fmt.Errorf("notification workers: %w", err)
	}
	return nil
}

func (a *App) stopLocked() {
	a.stopBg()
	if a.stopWake != nil {
		a.stopWake()
	}
	a.wg.Wait()
}

// runLimiter synchronises the fast limits with the other replicas until
// ctx ends. A failed round is logged and tried again a second later: the
// limits then hold per replica meanwhile, and play goes on.
func runLimiter(ctx context.Context, l *limits.Limiter, log *slog.Logger) {
	for {
		err := l.Run(ctx)
		if ctx.Err() != nil {
			return
		}
		log.Warn("rate limits not synchronised with the other replicas; trying again", "err", fmt.Sprint(err))
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}
