package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// listenMetrics opens the metrics listener of AZUL_METRICS_ADDR: an
// address of the operator's (loopback, or a network only the scraper
// reaches; never the public port), where /metrics needs no token.
func listenMetrics(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("AZUL_METRICS_ADDR: metrics listener on %s: %w", addr, err)
	}
	return ln, nil
}

// serveMetrics serves /metrics on ln until ctx ends.
func serveMetrics(ctx context.Context, ln net.Listener, metrics http.Handler, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	log.Info("azuld serves its metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("the metrics listener stopped", "err", err.Error())
	}
}
