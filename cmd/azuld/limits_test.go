package main

import (
	"context"
	"errors"
	"net/http"
	"net/smtp"
	"net/textproto"
	"regexp"
	"strings"
	"testing"
)

// The configured limits reach the API and the SMTP listener: a second
// registration from one address and a second mail from one sender are
// refused for now, with a reason and when to try again.
func TestServeRateLimits(t *testing.T) {
	t.Parallel()
	url := pg.NewDatabase(t)
	r := startServe(t, map[string]string{
		"AZUL_DATABASE_URL": url, "AZUL_HTTP_ADDR": "127.0.0.1:0", "AZUL_NOTIFY_WORKERS": "1",
		"AZUL_SMTP_LISTEN": "127.0.0.1:0", "AZUL_MAIL_DOMAIN": "azul.example.org",
		"AZUL_LIMIT_REGISTRATIONS": "1/h", "AZUL_LIMIT_MAIL_FROM": "1/h", "AZUL_METRICS_TOKEN": "metrics-token-of-the-limits-test",
	})
	defer r.stop(t)
	if status, body := r.call(t, http.MethodPost, "/v1/players", "", `{"name":"Ana"}`); status != http.StatusCreated {
		t.Fatalf("first registration: %d %s", status, body)
	}
	status, body := r.call(t, http.MethodPost, "/v1/players", "", `{"name":"Ben"}`)
	if status != http.StatusTooManyRequests || !strings.Contains(string(body), "rate-limited") || !strings.Contains(string(body), "registrations") {
		t.Fatalf("second registration: %d %s", status, body)
	}
	if status, body := r.call(t, http.MethodGet, "/metrics", "metrics-token-of-the-limits-test", ""); status != http.StatusOK || !strings.Contains(string(body), "azuld_rate_limit_cells") {
		t.Fatalf("metrics: %d", status)
	}

	m := regexp.MustCompile(`"msg":"azuld takes replies by SMTP","addr":"([^"]+)"`).FindStringSubmatch(r.log.String())
	if m == nil {
		t.Fatalf("no SMTP address in the log:\n%s", r.log)
	}
	mail := func() error {
		c, err := smtp.Dial(m[1])
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Hello("mx.example.net"); err != nil {
			t.Fatal(err)
		}
		return c.Mail("flood@example.net")
	}
	if err := mail(); err != nil {
		t.Fatalf("first mail: %v", err)
	}
	err := mail()
	var te *textproto.Error
	if !errors.As(err, &te) || te.Code != 450 || !strings.HasPrefix(te.Msg, "4.7.1 Too many mails from this sender") || !strings.Contains(te.Msg, "try again in") {
		t.Fatalf("second mail from the sender: %v", err)
	}
}

// A bad limit stops the start with a message naming the variable.
func TestServeRefusesBadLimit(t *testing.T) {
	t.Parallel()
	log := &syncBuffer{}
	a := &process{getenv: envOf(map[string]string{"AZUL_LIMIT_MOVES": "fast"}), stdout: log, stderr: log}
	if code := a.run(context.Background(), []string{"serve"}); code == 0 {
		t.Fatal("azuld started with AZUL_LIMIT_MOVES=fast")
	}
	if out := log.String(); !strings.Contains(out, "AZUL_LIMIT_MOVES") || !strings.Contains(out, "not a rate") {
		t.Fatalf("the error does not name the variable and what is wrong:\n%s", out)
	}
}
