package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/mail"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/azuld/azuld/api"
	"github.com/azuld/azuld/app"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/authcheck"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/mail/dkim"
	"github.com/azuld/azuld/mail/smtpin"
	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/redact"
)

// newService builds the command path of the subcommands that do not
// serve (verify, reports, rebuilding the read models), over a pool.
func newService(pool *pgxpool.Pool, log *slog.Logger) *play.Service {
	return play.New(play.Config{Pool: pool, Store: events.NewStore(pool), Rules: rulesets.All(), Logger: log})
}

// notifyConfig is the notification outbox's part of the settings (the
// app fills in the rest). console is the operator's terminal, where the
// links of link mails are printed when no relay is configured.
func notifyConfig(cfg *config, log *slog.Logger, console io.Writer) (notify.Config, error) {
	sender := compose.Sender{Domain: strings.ToLower(strings.TrimSpace(cfg.MailDomain)), BaseURL: strings.TrimRight(cfg.BaseURL, "/")}
	if sender.BaseURL == "" {
		sender.BaseURL = "http://" + cfg.HTTPAddr
	}
	if cfg.MailFrom != "" {
		from, err := mail.ParseAddress(cfg.MailFrom)
		if err != nil {
			return notify.Config{}, fmt.Errorf("AZUL_MAIL_FROM %q: %w", cfg.MailFrom, err)
		}
		sender.From = *from
	}
	var mailer notify.Mailer
	var linkConsole io.Writer
	if cfg.SMTPURL != "" {
		m, err := notify.NewSMTPMailer(cfg.SMTPURL)
		if err != nil {
			return notify.Config{}, fmt.Errorf("AZUL_SMTP_URL: %w", err)
		}
		mailer = m
	} else {
		linkConsole = console
	}
	workers := cfg.NotifyWorkers
	if !cfg.Notify {
		workers = 0
	} else if workers < 1 {
		return notify.Config{}, fmt.Errorf("AZUL_NOTIFY_WORKERS must be at least 1 (or AZUL_NOTIFY=false)")
	}
	var signer notify.MessageSigner
	if cfg.DKIMKey != "" {
		s, err := dkim.Load(cfg.DKIMKey, sender.Domain, cfg.DKIMSelector)
		if err != nil {
			return notify.Config{}, fmt.Errorf("AZUL_DKIM_KEY: %w", err)
		}
		record, err := s.Record()
		if err != nil {
			return notify.Config{}, fmt.Errorf("AZUL_DKIM_KEY: %w", err)
		}
		log.Info("outgoing mail is signed with DKIM", "record_name", s.RecordName(), "record", record)
		signer = s
	}
	return notify.Config{Sender: sender, Mailer: mailer, Signer: signer, Workers: workers,
		WebhookAllowPrivate: cfg.WebhookAllowPrivate, VerifyAddresses: cfg.VerifyAddresses,
		LinkConsole: linkConsole}, nil
}

// inboundConfig is the inbound mail's part of the settings (the app
// fills in the rest).
func inboundConfig(cfg *config) mailin.Config {
	var in mailin.Config
	if cfg.MailAuth {
		in.MailAuth = authcheck.New(nil)
	}
	return in
}

// serve runs the HTTP server until ctx ends (SIGINT, SIGTERM), then
// drains requests and stops what it started, in reverse order.
func (a *process) serve(ctx context.Context, args []string) error {
	cfg, s, err := a.parseSettings("serve", withDatabase|withHTTP, args)
	if err != nil {
		return err
	}
	log, err := a.newLogger(cfg.LogLevel)
	if err != nil {
		return err
	}
	if cfg.SMTPURL != "" {
		// With a relay, no log line holds a token (a link, a seat's
		// reply address), whichever package wrote it. Without one the
		// log is where mails go, links and all, by design.
		log = slog.New(redact.Handler(log.Handler()))
	}
	proxies, err := api.ParseTrustedProxies(cfg.TrustedProxies)
	if err != nil {
		return err
	}
	policy, err := cfg.limitPolicy()
	if err != nil {
		return err
	}
	log.Info("azuld starting", "version", version())
	log.Info("configuration", s.printable()...)

	db, err := openDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.close(log)
	pool, err := connect(ctx, db, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	log.Info("database ready", "database", maskURL(db.url))
	warnIfHistoryWritable(ctx, pool, log)

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	lang, err := newLanguage()
	if err != nil {
		return err
	}
	ncfg, err := notifyConfig(cfg, log, a.stderr)
	if err != nil {
		return err
	}
	parts, err := app.New(app.Config{
		Pool: pool, DatabaseURL: db.url, Logger: log, Metrics: reg,
		Catalogue: lang.catalogue, Words: lang.words,
		Service: serviceConfig(cfg), Notify: ncfg, Inbound: inboundConfig(cfg),
		// Who is at a game's table, shared by the streams (which record
		// it) and the turn mails (which wait for it): none kept with no
		// delay.
		AwayDelay: cfg.AwayDelay,
		Limits:    limits.Options{Off: !cfg.RateLimits.on}, Policy: policy,
		Bots: cfg.Bots,
	})
	if err != nil {
		return err
	}
	svc, notifier, limiter := parts.Service, parts.Notifier, parts.Limiter
	registerMemoryMetrics(reg, svc)
	registerLimiterMetrics(reg, limiter)
	if limiter.Off() {
		log.Warn("rate limits are off (AZUL_RATE_LIMITS=off): nothing stops a stranger from registering, guessing tokens or flooding mail")
	}

	srv, err := api.New(api.Config{
		App: parts, BodyLimit: cfg.BodyLimit, Version: version(),
		InboundSecret: cfg.InboundSecret, TrustedProxies: proxies,
		StreamsPerClient: cfg.StreamsPerClient, StreamsTotal: cfg.StreamsTotal, MetricsToken: cfg.MetricsToken,
	})
	if err != nil {
		return err
	}

	var pprofLn, metricsLn net.Listener
	closeSide := func() {
		for _, l := range []net.Listener{pprofLn, metricsLn} {
			if l != nil {
				_ = l.Close()
			}
		}
	}
	if cfg.PprofAddr != "" {
		if pprofLn, err = listenPprof(cfg.PprofAddr); err != nil {
			return err
		}
	}
	if cfg.MetricsAddr != "" {
		if metricsLn, err = listenMetrics(cfg.MetricsAddr); err != nil {
			closeSide()
			return err
		}
	}
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		closeSide()
		return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
	}
	// The built-in SMTP listener takes replies for the mail domain.
	var smtpListener *smtpin.Server
	var smtpLn net.Listener
	if cfg.SMTPListen != "" {
		smtpCfg := smtpin.Config{Addr: cfg.SMTPListen, Domain: notifier.Sender().Domain, Logger: log, Handler: mailin.SMTPHandler(parts.Inbound), Bounce: mailin.BounceHandler(parts.Inbound)}
		if parts.Checker != nil {
			smtpCfg.Admit = limits.MailAdmission(parts.Checker, lang.catalogue)
		}
		smtpListener, err = smtpin.New(smtpCfg)
		if err == nil {
			smtpLn, err = net.Listen("tcp", cfg.SMTPListen)
		}
		if err != nil {
			_ = ln.Close()
			closeSide()
			return fmt.Errorf("SMTP listener on %s: %w", cfg.SMTPListen, err)
		}
	}
	httpServer := newHTTPServer(srv.Handler(), log)
	httpServer.RegisterOnShutdown(srv.Close)

	// Background work ends with bg, after the HTTP server has drained.
	bg, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	if pprofLn != nil {
		wg.Go(func() { servePprof(bg, pprofLn, log) })
	}
	if metricsLn != nil {
		wg.Go(func() { serveMetrics(bg, metricsLn, srv.MetricsHandler(), log) })
	}
	if err := parts.Start(ctx); err != nil {
		stopBackground()
		wg.Wait()
		return err
	}
	if smtpListener != nil {
		wg.Go(func() {
			if err := smtpListener.Serve(bg, smtpLn); err != nil && bg.Err() == nil {
				log.Error("the SMTP listener stopped", "err", err.Error())
			}
		})
		log.Info("azuld takes replies by SMTP", "addr", smtpLn.Addr().String(), "domain", notifier.Sender().Domain)
	}

	serveErr := make(chan error, 1)
	go func() { serveErr <- httpServer.Serve(ln) }()
	addr := ln.Addr().String()
	log.Info("azuld is listening", "url", "http://"+addr, "openapi", "http://"+addr+"/openapi.json")
	if a.listening != nil {
		a.listening(addr)
	}

	var runErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down: draining requests", "timeout", cfg.ShutdownTimeout.String())
	case err := <-serveErr:
		runErr = fmt.Errorf("HTTP server: %w", err)
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := httpServer.Shutdown(shutdownCtx); err != nil {
		log.Warn("requests still running at the shutdown deadline were cut", "err", err.Error())
		_ = httpServer.Close()
	}
	// Deliveries in flight get the shutdown timeout to finish; the rest
	// stay queued for the next start (or another replica).
	if err := parts.Stop(shutdownCtx); err != nil {
		log.Warn("the background work stopped uncleanly", "err", err.Error())
	}
	stopBackground()
	wg.Wait()
	if runErr == nil {
		log.Info("azuld stopped")
	}
	return runErr
}

// newHTTPServer sets the timeouts that protect the server from slow or
// idle clients. The write timeout bounds ordinary responses; event
// streams extend it before every write.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// language is the catalogue and move words every part of the server
// shares, loaded once.
type language struct {
	catalogue *i18n.Catalogue
	words     *notation.Words
}

func newLanguage() (language, error) {
	c, err := i18n.New(i18n.Options{})
	if err != nil {
		return language{}, fmt.Errorf("message catalogue: %w", err)
	}
	w, err := notation.New(i18n.Options{})
	if err != nil {
		return language{}, fmt.Errorf("move words: %w", err)
	}
	return language{catalogue: c, words: w}, nil
}
