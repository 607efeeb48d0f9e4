// Package notify is azuld's notification outbox and its workers: the
// follower of the event log (Follow) turns every change of who must act
// into jobs (mails, webhook calls, time-control timers, bot moves),
// enqueued exactly once in one transaction with its checkpoint, and river
// workers deliver them at least once, with retries and back-off, across
// restarts and replicas. It also keeps the webhook registry. The mail
// that comes in (replies, delivery reports) is mailin's.
package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/mail"
	"net/netip"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/presence"
)

// DefaultFetchPollInterval is how often the job workers look for jobs
// that no notification announced. River announces a new job to the
// workers at most once per 100 ms per queue and otherwise polls every
// second: at its default, about one turn mail or bot move in ten waited
// up to a second after the move that caused it (docs/LOAD.md, "Latency
// a player feels"). One indexed query every 100 ms is cheap beside that.
const DefaultFetchPollInterval = 100 * time.Millisecond

// Config wires a Notifier.
type Config struct {
	Pool *pgxpool.Pool
	// Sender is the server's mail identity (domain, From, public URL).
	Sender compose.Sender
	// Mailer delivers mails; nil logs them instead.
	Mailer Mailer
	// LinkConsole, with no Mailer, is the operator's terminal: the links
	// of sign-in and verification mails are printed there, one plain
	// line each, and kept out of the log (they are secrets, and the
	// operator has no other way to pass them on). Nil logs them with
	// the mail.
	LinkConsole io.Writer
	// Workers is how many jobs run at once in this process; 0 makes an
	// insert-only notifier (the hook still enqueues, another replica
	// delivers).
	Workers int
	// HTTPClient posts webhooks (default: a client that follows no
	// redirects and, unless WebhookAllowPrivate, connects to public
	// addresses only).
	HTTPClient *http.Client
	// WebhookAllowPrivate lets webhooks reach loopback, private and
	// link-local addresses (a bot on the same host or network).
	WebhookAllowPrivate bool
	// WebhookTimeout bounds one webhook attempt (default 10s).
	WebhookTimeout time.Duration
	// MailTimeout bounds one mail delivery attempt (default 1m).
	MailTimeout time.Duration
	// FetchPollInterval is how often workers look for jobs when no
	// notification woke them (DefaultFetchPollInterval when zero).
	FetchPollInterval time.Duration
	// AnalysisPlayouts is the search behind one analysis of a finished
	// game's position (DefaultAnalysisPlayouts when zero). Tests that
	// check an analysis's shape, not its strength, ask for fewer: under
	// the race detector the default costs the better part of a minute.
	AnalysisPlayouts int
	// RetryPolicy chooses when a failed job runs again (river's
	// exponential back-off when nil).
	RetryPolicy river.ClientRetryPolicy
	// RescueStuckJobsAfter is when a job still marked running (its
	// process died) is run again (river's default, one hour, when zero).
	RescueStuckJobsAfter time.Duration
	// MaxAttempts of a delivery before it is given up (default 25).
	MaxAttempts int
	// Catalogue is the message catalogue every page, mail and message
	// is written with; nil: the embedded one (i18n.New).
	Catalogue *i18n.Catalogue
	// Words reads and writes moves in each language's words; nil: the
	// embedded ones (notation.New).
	Words *notation.Words
	// Signer signs every outgoing mail (DKIM) when set.
	Signer MessageSigner
	// VerifyAddresses keeps every mail but the verification (sign-in)
	// link from addresses their owners have not verified
	// (AZUL_VERIFY_ADDRESSES; azuld's default is true, the zero value here
	// mails every address, as a closed club's server may choose).
	VerifyAddresses bool
	// TalkInterval is the least time between two message mails of one
	// game to one player (DefaultTalkInterval, an hour, when zero).
	TalkInterval time.Duration
	// Presence tells who is at a game's table (its live stream open):
	// their turn mail waits until they have been away AwayDelay (nil:
	// turn mails go at once).
	Presence *presence.Store
	// AwayDelay is how long a player must have been away from a game's
	// table (stream closed, no move of theirs by the API or the pages)
	// before its turn mail is sent (DefaultAwayDelay when zero).
	AwayDelay time.Duration
	// Metrics registers the delivery counters (none when nil).
	Metrics prometheus.Registerer
	Logger  *slog.Logger
	Now     func() time.Time
}

// Notifier enqueues and delivers notifications.
type Notifier struct {
	cfg    Config
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	log    *slog.Logger
	now    func() time.Time
	mailer Mailer
	http   *http.Client
	svc    *play.Service

	// deliveries counts delivery attempts by channel and outcome.
	deliveries *prometheus.CounterVec
	// outboxLag is the time from an append to its jobs (Follow);
	// outboxFailures counts Follow's failed batches (each comes again).
	outboxLag      prometheus.Histogram
	outboxFailures prometheus.Counter
	// followerBytes is the estimated memory of the games the follower
	// keeps between batches.
	followerBytes prometheus.Gauge
}

// New builds a Notifier. Attach the command path with Attach before
// Start and Follow.
func New(cfg Config) (*Notifier, error) {
	if cfg.Pool == nil {
		return nil, errors.New("notify: no database pool")
	}
	if cfg.Sender.Domain == "" {
		return nil, errors.New("notify: no mail domain")
	}
	if cfg.Sender.From.Address == "" {
		cfg.Sender.From = mail.Address{Name: "azuld", Address: "azuld@" + cfg.Sender.Domain}
	}
	if cfg.Catalogue == nil {
		cat, err := i18n.New(i18n.Options{})
		if err != nil {
			return nil, fmt.Errorf("notify: %w", err)
		}
		cfg.Catalogue = cat
	}
	words, err := notation.OrNew(cfg.Words, cfg.Catalogue)
	if err != nil {
		return nil, fmt.Errorf("notify: %w", err)
	}
	cfg.Words = words
	// Every mail is written with them, in its reader's language.
	cfg.Sender.Catalogue, cfg.Sender.Words = cfg.Catalogue, cfg.Words
	n := &Notifier{cfg: cfg, pool: cfg.Pool, log: cfg.Logger, now: cfg.Now, mailer: cfg.Mailer, http: cfg.HTTPClient}
	if n.log == nil {
		n.log = slog.Default()
	}
	if n.now == nil {
		n.now = time.Now
	}
	if n.mailer == nil {
		n.mailer = LogMailer{Logger: n.log}
	}
	if cfg.Signer != nil {
		n.mailer = SigningMailer{Mailer: n.mailer, Signer: cfg.Signer}
	}
	if n.http == nil {
		n.http = webhookClient(cfg.WebhookAllowPrivate)
	}
	if n.cfg.WebhookTimeout <= 0 {
		n.cfg.WebhookTimeout = 10 * time.Second
	}
	if n.cfg.MailTimeout <= 0 {
		n.cfg.MailTimeout = time.Minute
	}
	if n.cfg.AwayDelay <= 0 {
		n.cfg.AwayDelay = DefaultAwayDelay
	}
	n.deliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "azuld_deliveries_total", Help: "Notification delivery attempts by channel (mail, webhook) and outcome (sent, failed, refused, skipped).",
	}, []string{"channel", "outcome"})
	if cfg.Metrics != nil {
		n.outboxLag = prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "azuld_outbox_lag_seconds",
			Help:    "Time from an append to the commit of its read models and jobs by the log's follower.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		})
		n.outboxFailures = prometheus.NewCounter(prometheus.CounterOpts{
			Name: "azuld_outbox_failed_batches_total",
			Help: "Batches of the log's follower that failed and will be tried again (a steady rise means notifications are stuck).",
		})
		n.followerBytes = prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "azuld_follower_games_bytes",
			Help: "Estimated memory of the games the log's follower keeps folded between batches (at most 32 MiB).",
		})
		for _, c := range []prometheus.Collector{n.deliveries, n.outboxLag, n.outboxFailures, n.followerBytes} {
			if err := cfg.Metrics.Register(c); err != nil {
				return nil, fmt.Errorf("notify: register metrics: %w", err)
			}
		}
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &mailWorker{n: n})
	river.AddWorker(workers, &webhookWorker{n: n})
	river.AddWorker(workers, &timeoutWorker{n: n})
	river.AddWorker(workers, &botMoveWorker{n: n})
	river.AddWorker(workers, &analysisWorker{n: n})
	river.AddWorker(workers, &cleanupWorker{n: n})
	river.AddWorker(workers, &signinWorker{n: n})
	river.AddWorker(workers, &talkWorker{n: n})
	if cfg.FetchPollInterval <= 0 {
		cfg.FetchPollInterval = DefaultFetchPollInterval
	}
	rc := &river.Config{
		Workers:              workers,
		Logger:               n.log.With("component", "river"),
		FetchPollInterval:    cfg.FetchPollInterval,
		RetryPolicy:          cfg.RetryPolicy,
		RescueStuckJobsAfter: cfg.RescueStuckJobsAfter,
		MaxAttempts:          cfg.MaxAttempts,
		// Workers set their own timeouts; this is the default for others.
		JobTimeout: n.cfg.MailTimeout,
	}
	if cfg.FetchPollInterval < river.FetchCooldownDefault {
		rc.FetchCooldown = cfg.FetchPollInterval
	}
	if cfg.Workers > 0 {
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}}
		rc.PeriodicJobs = []*river.PeriodicJob{cleanupJob()}
	}
	client, err := river.NewClient(riverpgxv5.New(cfg.Pool), rc)
	if err != nil {
		return nil, fmt.Errorf("notify: river client: %w", err)
	}
	n.client = client
	return n, nil
}

// Attach gives the notifier the command path its workers play through.
//
// The service is told the mail domain too: no player may register an
// address at it, since its mail comes back here.
func (n *Notifier) Attach(svc *play.Service) {
	n.svc = svc
	svc.ReserveMailDomain(n.cfg.Sender.Domain, n.cfg.Sender.From.Address)
}

// Sender is the mail identity the notifier writes with.
func (n *Notifier) Sender() compose.Sender { return n.cfg.Sender }

// Start runs the workers until Shutdown (nothing for an insert-only notifier).
func (n *Notifier) Start(ctx context.Context) error {
	if n.cfg.Workers <= 0 {
		return nil
	}
	if n.svc == nil {
		return errors.New("notify: Start before Attach")
	}
	if err := n.client.Start(ctx); err != nil {
		return fmt.Errorf("notify: start workers: %w", err)
	}
	return nil
}

// Shutdown lets running deliveries finish (until ctx ends, after which they
// are cancelled and retried later) and stops fetching jobs.
func (n *Notifier) Shutdown(ctx context.Context) error {
	if n.cfg.Workers <= 0 {
		return nil
	}
	err := n.client.Stop(ctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = n.client.StopAndCancel(cctx)
	}
	if err != nil {
		return fmt.Errorf("notify: stop workers: %w", err)
	}
	return nil
}

// Kill stops at once, cancelling deliveries in flight, as a crash would
// (they are retried by whichever worker runs next).
func (n *Notifier) Kill(ctx context.Context) error {
	if n.cfg.Workers <= 0 {
		return nil
	}
	return n.client.StopAndCancel(ctx)
}

// fixedRetry retries after a constant delay.
type fixedRetry time.Duration

// FixedRetry is a retry policy with a constant delay (for tests and
// for operators who want no back-off).
func FixedRetry(d time.Duration) river.ClientRetryPolicy { return fixedRetry(d) }

// NextRetry implements river.ClientRetryPolicy.
func (f fixedRetry) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().Add(time.Duration(f))
}

// webhookClient posts webhooks: no redirects (a 3xx is an answer, and
// retried), no proxy from the environment, and unless allowPrivate no
// connection to an address inside the server's networks, so a player
// cannot make the server call its own internals (SSRF). The check runs on
// the address actually dialled, after DNS.
func webhookClient(allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !allowPrivate {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			ip, err := netip.ParseAddr(host)
			if err != nil {
				return fmt.Errorf("webhook address %q: %w", host, err)
			}
			if !publicAddr(ip) {
				return fmt.Errorf("%w: webhooks may not reach %s", ErrPrivateAddress, ip)
			}
			return nil
		}
	}
	return &http.Client{
		Transport: &http.Transport{
			DialContext:           dialer.DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 10 * time.Second,
			MaxIdleConnsPerHost:   2,
			IdleConnTimeout:       time.Minute,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// ErrPrivateAddress refuses a webhook to an internal address.
var ErrPrivateAddress = errors.New("private address")

// publicAddr reports an address on the public internet.
func publicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsGlobalUnicast() && !ip.IsPrivate() && !ip.IsLoopback() && !ip.IsLinkLocalUnicast() &&
		!netip.MustParsePrefix("100.64.0.0/10").Contains(ip) && // carrier-grade NAT
		!netip.MustParsePrefix("fc00::/7").Contains(ip)
}
