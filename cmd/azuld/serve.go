package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/azuld/azuld/api"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// newService builds the command path over a pool.
func newService(pool *pgxpool.Pool, log *slog.Logger) *play.Service {
	return play.New(play.Config{
		Pool:   pool,
		Store:  events.NewStore(pool),
		Rules:  rulesets.All(),
		Logger: log,
	})
}

// serve runs the HTTP server until ctx ends (SIGINT, SIGTERM), then
// drains requests and stops what it started, in reverse order.
func (a *app) serve(ctx context.Context, args []string) error {
	cfg, s, err := a.parseSettings("serve", withDatabase|withHTTP, args)
	if err != nil {
		return err
	}
	log, err := a.newLogger(cfg.LogLevel)
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

	svc := newService(pool, log)
	listener := events.NewListener(db.url, log)

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	srv, err := api.New(api.Config{
		Service: svc, Listener: listener, Pool: pool, Logger: log,
		Metrics: reg, BodyLimit: cfg.BodyLimit, Version: version(),
	})
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
	}
	httpServer := newHTTPServer(srv.Handler(), log)
	httpServer.RegisterOnShutdown(srv.Close)

	// Background work ends with bg, after the HTTP server has drained.
	bg, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := listener.Run(bg); err != nil && bg.Err() == nil {
			log.Error("the event listener stopped", "err", err.Error())
		}
	})
	if cfg.Bots {
		wg.Go(func() {
			if err := svc.RunBots(bg); err != nil && bg.Err() == nil {
				log.Error("the bot runner stopped", "err", err.Error())
			}
		})
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
