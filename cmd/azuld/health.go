package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// healthTimeout bounds one health check: /readyz itself gives the
// database two seconds, and a container runtime kills a slower check.
const healthTimeout = 5 * time.Second

// errNotReady marks a server that answered not ready or did not answer
// (exit status 1).
var errNotReady = errors.New("not ready")

// health asks the server at the configured HTTP address for /readyz. It
// is the container image's health check, which has no shell or curl.
func (a *process) health(ctx context.Context, args []string) error {
	cfg, _, err := a.parseSettings("health", withAddr, args)
	if err != nil {
		return err
	}
	url, err := readyzURL(cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("%w: %w", errNotReady, err)
	}
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("%w: %w", errNotReady, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", errNotReady, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: %s answered %s: %s", errNotReady, url, resp.Status, strings.TrimSpace(string(body)))
	}
	fmt.Fprintf(a.stdout, "ready: %s\n", url)
	return nil
}

// readyzURL is the /readyz URL of a server listening on addr: a wildcard
// or empty host (":8080", "0.0.0.0:8080", "[::]:8080") is asked on
// loopback, where the check runs.
func readyzURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("HTTP address %q: %w", addr, err)
	}
	if port == "" || port == "0" {
		return "", fmt.Errorf("HTTP address %q has no fixed port to ask", addr)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/readyz", nil
}
