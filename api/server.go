// Package api is azuld's HTTP interface (docs/architecture.md §5): the REST handlers
// over the play command path, bearer-token authentication, RFC 9457
// problem responses, server-sent events, operational endpoints and the
// OpenAPI document that describes them.
package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/account"
	"github.com/azuld/azuld/api/web"
	"github.com/azuld/azuld/app"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/presence"
	"github.com/azuld/azuld/ttlcache"
)

// DefaultBodyLimit bounds request bodies when Config.BodyLimit is zero.
// The largest legitimate body (a game creation) is well under 4 KiB.
const DefaultBodyLimit = 64 << 10

// DefaultHeartbeat is how often an idle event stream sends a comment, so
// proxies and clients notice a dead connection.
const DefaultHeartbeat = 15 * time.Second

// Config wires a Server.
type Config struct {
	// App, when set, is the server's parts (app.New): it gives Service,
	// Listener, Pool, Logger, Metrics, Notifier, Catalogue, Words,
	// Limiter, Limits and Presence, which must then be left unset. This
	// is how `azuld serve` and the tests that need a whole server build
	// one; the fields one by one are for tests of the HTTP layer alone.
	App *app.App
	// Service is the command path every handler calls.
	Service *play.Service
	// Listener delivers change notices for the event streams; nil
	// disables GET /v1/games/{id}/stream (it answers 503).
	Listener *events.Listener
	// Pool is pinged by /readyz; nil makes /readyz report ready.
	Pool *pgxpool.Pool
	// Logger receives one JSON line per request; nil discards logs.
	Logger *slog.Logger
	// Metrics is the Prometheus registry /metrics serves and the HTTP
	// metrics are registered with; nil creates a private one.
	Metrics *prometheus.Registry
	// BodyLimit is the largest accepted request body in bytes
	// (0: DefaultBodyLimit).
	BodyLimit int64
	// Heartbeat is the event stream's keep-alive interval
	// (0: DefaultHeartbeat).
	Heartbeat time.Duration
	// Version is the build version /healthz reports.
	Version string
	// AuthCacheTTL is how long a verified bearer token is trusted without
	// a database lookup (0: DefaultAuthCacheTTL; negative: no cache).
	AuthCacheTTL time.Duration
	// Notifier serves webhooks and the stop link; nil answers those
	// routes with 503.
	Notifier *notify.Notifier
	// Inbound takes the mail of POST /v1/inbound/email; nil answers the
	// route with 503.
	Inbound *mailin.Receiver
	// InboundSecret authenticates POST /v1/inbound/email; empty disables
	// the route (503).
	InboundSecret string
	// WebNow is the web client's clock (sessions, sign-in links); nil:
	// time.Now.
	WebNow func() time.Time
	// TrustedProxies are the proxies whose X-Forwarded-For names the
	// client (AZUL_TRUSTED_PROXIES); none: the peer is the client.
	TrustedProxies []netip.Prefix
	// Verifier is told when a player's address changes (PATCH /v1/me,
	// the account page); nil: a sign-in link is mailed to the new
	// address (when Notifier is set).
	Verifier account.Verifier
	// Catalogue is the message catalogue every page, mail and message
	// is written with; nil: the embedded one (i18n.New).
	Catalogue *i18n.Catalogue
	// Words reads and writes moves in each language's words; nil: the
	// embedded ones (notation.New).
	Words *notation.Words
	// Limiter keeps the rate limits across replicas; nil or off: no
	// limits. Its Run is the caller's to start.
	Limiter *limits.Limiter
	// Limits are the rules (AZUL_LIMIT_*); nil: limits.DefaultPolicy.
	Limits limits.Policy
	// MetricsToken, when set, serves /metrics on this handler to requests
	// that send it as a bearer token (AZUL_METRICS_TOKEN); empty: /metrics
	// is not served here (404), only by MetricsHandler on an operator's
	// address (AZUL_METRICS_ADDR).
	MetricsToken string
	// StreamsPerClient and StreamsTotal cap the live streams this server
	// keeps open per client address and in all (0: DefaultStreamsPerClient,
	// DefaultStreamsTotal; negative: no cap).
	StreamsPerClient, StreamsTotal int
	// Presence records the players who have a game's live stream open,
	// so that their turn mails wait (the notifier's Presence); nil:
	// none recorded.
	Presence *presence.Store
}

// Server is azuld's HTTP handler.
type Server struct {
	svc       *play.Service
	listener  *events.Listener
	pool      *pgxpool.Pool
	log       *slog.Logger
	metrics   *httpMetrics
	gatherer  prometheus.Gatherer
	bodyLimit int64
	heartbeat time.Duration
	version   string
	auth      *authCache
	echo      *echo.Echo
	notifier  *notify.Notifier
	inbound   *mailin.Receiver
	// web serves the pages and signs browsers in; its session cookie
	// also authenticates API calls.
	web *web.Web
	// inboundSecret authenticates mail providers.
	inboundSecret string
	// accounts manages profiles, tokens and sessions (nil without a
	// database: those routes answer 503).
	accounts *account.Service
	// limits are the rate limits (nil: none).
	limits *RateLimits
	// cat writes problems in their reader's language.
	cat   *i18n.Catalogue
	words *notation.Words
	// metricsToken lets /metrics be read on the public handler.
	metricsToken string
	// streams caps the open live streams.
	streams *streamGate
	// presence records who has a game's stream open (nil: nobody).
	presence *presence.Store
	// leaders keeps the leaderboard's recent pages (see listRatings).
	leaders *ttlcache.Cache[leaderPage]

	// closing is closed by Close: it ends the long-lived event streams so
	// a graceful shutdown does not wait for them.
	closing   chan struct{}
	closeOnce sync.Once
}

// New builds the server and its routes.
func New(cfg Config) (*Server, error) {
	if cfg.App != nil {
		var err error
		if cfg, err = fromApp(cfg); err != nil {
			return nil, err
		}
	}
	if cfg.Service == nil {
		return nil, errors.New("api: Config.Service is required")
	}
	s := &Server{
		svc: cfg.Service, listener: cfg.Listener, pool: cfg.Pool, log: cfg.Logger,
		bodyLimit: cfg.BodyLimit, heartbeat: cfg.Heartbeat, version: cfg.Version,
		closing: make(chan struct{}), notifier: cfg.Notifier, inbound: cfg.Inbound, inboundSecret: cfg.InboundSecret, presence: cfg.Presence,
		metricsToken: cfg.MetricsToken,
		leaders:      ttlcache.New[leaderPage](leadersTTL, leadersEntries),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	perClient, total := cfg.StreamsPerClient, cfg.StreamsTotal
	if perClient == 0 {
		perClient = DefaultStreamsPerClient
	}
	if total == 0 {
		total = DefaultStreamsTotal
	}
	s.streams = newStreamGate(perClient, total)
	if s.bodyLimit <= 0 {
		s.bodyLimit = DefaultBodyLimit
	}
	if s.heartbeat <= 0 {
		s.heartbeat = DefaultHeartbeat
	}
	switch {
	case cfg.AuthCacheTTL == 0:
		s.auth = newAuthCache(DefaultAuthCacheTTL)
	case cfg.AuthCacheTTL > 0:
		s.auth = newAuthCache(cfg.AuthCacheTTL)
	}
	reg := cfg.Metrics
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	m, err := newHTTPMetrics(reg)
	if err != nil {
		return nil, err
	}
	s.metrics, s.gatherer = m, reg
	if err := s.registerMemoryMetrics(reg); err != nil {
		return nil, err
	}
	if cfg.Pool != nil {
		verify := cfg.Verifier
		if verify == nil {
			// The web client mails the links; it is built just below.
			verify = verifierFunc(func(ctx context.Context, playerID string) error { return s.web.AddressChanged(ctx, playerID) })
		}
		s.accounts, err = account.New(account.Config{
			Pool: cfg.Pool, Verifier: verify, Now: cfg.WebNow,
			// A revocation here holds at once on this replica, whichever
			// page or route made it.
			Changed: func(ctx context.Context) { _ = s.auth.sync(ctx, s.authGeneration, true) },
		})
		if err != nil {
			return nil, err
		}
	}
	if s.cat = cfg.Catalogue; s.cat == nil {
		if s.cat, err = i18n.New(i18n.Options{}); err != nil {
			return nil, fmt.Errorf("api: %w", err)
		}
		cfg.Catalogue = s.cat
	}
	if s.words, err = notation.OrNew(cfg.Words, cfg.Catalogue); err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	cfg.Words = s.words
	s.limits = NewRateLimits(cfg.Limiter, cfg.Limits, s.log)
	wcfg := web.Config{Service: cfg.Service, Pool: cfg.Pool, Logger: s.log, Now: cfg.WebNow, Accounts: s.accounts, TrustedProxies: cfg.TrustedProxies,
		Catalogue: cfg.Catalogue, Words: cfg.Words}
	if s.limits != nil {
		wcfg.Limits = s.limits
	}
	if cfg.Notifier != nil {
		wcfg.Mailer, wcfg.BaseURL = cfg.Notifier, cfg.Notifier.Sender().BaseURL
		wcfg.VerifyAddresses = cfg.Notifier.VerifyAddresses()
	}
	if s.web, err = web.New(wcfg); err != nil {
		return nil, err
	}

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.IPExtractor = clientIP(cfg.TrustedProxies)
	e.HTTPErrorHandler = s.handleError
	e.Pre(requestID(), retryAfterOn503)
	e.Use(compress(), s.observe, s.recoverPanics, hsts(cfg.TrustedProxies), s.limitBody, s.gameAccess)
	s.routes(e)
	s.echo = e
	return s, nil
}

// routes registers every endpoint. Each must be documented in
// openapi.json (TestOpenAPICoversRoutes checks both ways).
func (s *Server) routes(e *echo.Echo) {
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", s.publicMetrics)
	e.GET("/openapi.json", s.openAPI)
	s.web.Register(e)

	v1 := e.Group("/v1")
	v1.POST("/players", s.registerPlayer)
	v1.GET("/players/:id", s.getPlayer)
	v1.GET("/players/:id/ratings", s.getPlayerRatings)
	v1.GET("/players/:id/games", s.getPlayerGames)
	v1.GET("/ratings", s.listRatings)
	v1.GET("/bots", s.listBots)
	v1.GET("/me", s.me)
	v1.DELETE("/me", s.deleteMe)
	v1.GET("/me/turns", s.myTurns)
	s.accountRoutes(v1)
	v1.POST("/me/verification", s.resendVerification)
	v1.POST("/games", s.createGame)
	v1.GET("/games", s.listGames)
	v1.GET("/games/:id", s.getGame)
	v1.POST("/games/:id/join", s.joinGame)
	v1.POST("/invitations/accept", s.acceptInvitation)
	v1.POST("/games/:id/rematch", s.rematch)
	v1.POST("/games/:id/decline", s.declineGame)
	v1.GET("/games/:id/legal-moves", s.legalMoves)
	v1.POST("/games/:id/moves", s.postMove)
	v1.GET("/games/:id/events", s.gameEvents)
	v1.GET("/games/:id/state", s.gameState)
	v1.GET("/games/:id/stream", s.stream)
	v1.GET("/games/:id/diff", s.gameDiff)
	v1.GET("/games/:id/rounds", s.gameRounds)
	v1.GET("/games/:id/export", s.exportGame)
	v1.GET("/games/:id/verify", s.verifyGame)
	v1.GET("/games/:id/analysis", s.gameAnalysis)
	v1.GET("/games/:id/hint", s.gameHint)
	v1.POST("/games/import", s.importGame)
	v1.GET("/games/:id/messages", s.listMessages)
	v1.POST("/games/:id/messages", s.postMessage)
	v1.PUT("/games/:id/messages/mute", s.muteMessages)
	v1.POST("/games/:id/messages/:version/report", s.reportMessage)
	v1.POST("/games/:id/takebacks", s.requestTakeback)
	v1.GET("/games/:id/takebacks", s.listTakebacks)
	v1.GET("/games/:id/takebacks/:tid", s.getTakeback)
	v1.POST("/games/:id/takebacks/:tid/accept", s.acceptTakeback)
	v1.POST("/games/:id/takebacks/:tid/decline", s.declineTakeback)
	v1.POST("/webhooks", s.createWebhook)
	v1.GET("/webhooks", s.listWebhooks)
	v1.DELETE("/webhooks/:id", s.deleteWebhook)
	v1.POST("/inbound/email", s.inboundEmail)
	v1.GET("/mail/stop", s.mailStop)
	v1.POST("/mail/stop", s.mailStop)
}

// Handler is the http.Handler to serve.
func (s *Server) Handler() http.Handler { return s.echo }

// Close ends the open event streams. Call it when the HTTP server starts
// shutting down (http.Server.RegisterOnShutdown), so draining does not
// wait for clients that never hang up.
func (s *Server) Close() { s.closeOnce.Do(func() { close(s.closing) }) }

// Routes lists the registered routes as "METHOD /path" with OpenAPI-style
// {parameters}.
func (s *Server) Routes() []string {
	var out []string
	for _, r := range s.echo.Routes() {
		out = append(out, r.Method+" "+openAPIPath(r.Path))
	}
	return out
}

// handleError turns any error into a problem response and logs server
// faults.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	p := toProblem(err)
	if p.about == "not_found" && strings.HasPrefix(c.Path(), "/v1/games/:id") && !strings.Contains(c.Path(), ":tid") {
		// The game of the route is what was not found: name it.
		p = newProblem(http.StatusNotFound, ProblemNotFound, "no_game", "ID", truncate(c.Param("id"), 64))
	}
	if p.Status >= 500 && !errors.Is(c.Request().Context().Err(), context.Canceled) {
		// A database that does not answer is no fault of this server's
		// (a fail-over makes one such line per request): a warning.
		level := slog.LevelError
		if p.Status == http.StatusServiceUnavailable {
			level = slog.LevelWarn
		}
		s.log.Log(c.Request().Context(), level, "request failed",
			"request_id", c.Response().Header().Get(echo.HeaderXRequestID),
			"method", c.Request().Method, "route", routeOf(c), "err", err.Error())
	}
	if isPagePath(c.Request().URL.Path) {
		if p.RetryAfter > 0 {
			c.Response().Header().Set("Retry-After", strconv.Itoa(p.RetryAfter))
		}
		say := func(l *i18n.Localizer) string {
			p.localize(l)
			return p.Title
		}
		if werr := s.web.ErrorPage(c, p.Status, err, say); werr != nil {
			s.log.WarnContext(c.Request().Context(), "writing an error page failed", "err", werr.Error())
		}
		return
	}
	if werr := writeProblem(c, s.reader(c), p); werr != nil {
		s.log.WarnContext(c.Request().Context(), "writing a problem response failed", "err", werr.Error())
	}
}

// isPagePath reports whether a path is the web client's, whose errors
// are HTML pages, rather than the API's (/v1 and the operational
// endpoints), whose errors are problem+json.
func isPagePath(path string) bool {
	switch path {
	case "/v1", "/healthz", "/readyz", "/metrics", "/openapi.json":
		return false
	}
	return !strings.HasPrefix(path, "/v1/")
}

// healthz answers as long as the process serves HTTP.
func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "version": s.version})
}

// readyz answers 200 when a primary database answers: a session that
// can write. A standby (a demoted primary, a multi-host URL that found no
// primary) answers 503, so that a proxy sends requests to replicas that
// can take moves.
func (s *Server) readyz(c echo.Context) error {
	if s.pool != nil {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
		defer cancel()
		var readOnly bool
		err := s.pool.QueryRow(ctx, `SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'`).Scan(&readOnly)
		if err == nil && readOnly {
			err = errors.New("the database session is read-only: no primary")
		}
		if err != nil {
			s.log.WarnContext(ctx, "readiness check failed", "err", err.Error())
			return unavailable("no_database")
		}
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}

// playerKey is where a request's authenticated player id is kept (see
// authenticate; "" when authentication failed), so that its problems can
// be written in the player's language.
const playerKey = "azuld.player"

// reader is the localizer of a request's reader: the best match of its
// Accept-Language; a client that sends none gets the language and time
// zone of the signed-in player's account, and a stranger English. The
// header wins over the account because it is what this client asks for
// now (a shared script, a browser set to another language).
func (s *Server) reader(c echo.Context) *i18n.Localizer {
	if h := strings.TrimSpace(c.Request().Header.Get("Accept-Language")); h != "" {
		return s.cat.Localizer(s.cat.Match(h), nil)
	}
	id, tried := c.Get(playerKey).(string)
	if !tried {
		// The request failed before its handler looked at its token (a
		// malformed id, a bad body): look now, as any route would, so a
		// wrong token counts against the failed-token limit once.
		if token, ok := bearerToken(c.Request()); ok {
			if p, err := s.verifyToken(c, token); err == nil {
				id = p.ID
			}
		}
	}
	if id != "" && s.accounts != nil {
		// A problem is rare, so one read of the profile costs little;
		// a failed read falls back to English rather than fail twice.
		if prof, err := s.accounts.Profile(c.Request().Context(), id); err == nil {
			return s.cat.For(prof.Language, prof.TimeZone)
		}
	}
	return s.cat.Localizer(i18n.Default, nil)
}

// fromApp fills the parts of cfg from cfg.App, refusing a part set both
// ways (which would wire two of it).
func fromApp(cfg Config) (Config, error) {
	a := cfg.App
	if cfg.Service != nil || cfg.Listener != nil || cfg.Pool != nil || cfg.Logger != nil || cfg.Metrics != nil ||
		cfg.Notifier != nil || cfg.Inbound != nil || cfg.Catalogue != nil || cfg.Words != nil || cfg.Limiter != nil || cfg.Limits != nil ||
		cfg.Presence != nil {
		return cfg, errors.New("api: Config.App and the parts it gives are both set")
	}
	cfg.Service, cfg.Listener, cfg.Pool, cfg.Logger, cfg.Metrics = a.Service, a.Listener, a.Pool, a.Logger, a.Metrics
	cfg.Notifier, cfg.Inbound, cfg.Catalogue, cfg.Words = a.Notifier, a.Inbound, a.Catalogue, a.Words
	cfg.Limiter, cfg.Limits, cfg.Presence = a.Limiter, a.Policy, a.Presence
	return cfg, nil
}
