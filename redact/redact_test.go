package redact

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestPath(t *testing.T) {
	for _, c := range []struct{ path, route, want string }{
		{"/signin/link/abc123", "/signin/link/:token", "/signin/link/REDACTED"},
		// A route that lands later is redacted by its parameter's name.
		{"/invite/xyz", "/invite/:token", "/invite/REDACTED"},
		{"/v1/things/42/keys/s3cr3t", "/v1/things/:id/keys/:key", "/v1/things/42/keys/REDACTED"},
		// Unmatched (a typo, a trailing slash): the known prefixes still.
		{"/signin/link/abc123/", "", "/signin/link/REDACTED/"},
		{"/invite/xyz", "unmatched", "/invite/REDACTED"},
		{"/v1/games/42", "/v1/games/:id", "/v1/games/42"},
		{"/signin", "/signin", "/signin"},
	} {
		if got := Path(c.path, c.route); got != c.want {
			t.Errorf("Path(%q, %q) = %q, want %q", c.path, c.route, got, c.want)
		}
	}
}

func TestQueryAndURL(t *testing.T) {
	if got := Query("token=abc&game=7"); strings.Contains(got, "abc") || !strings.Contains(got, "game=7") {
		t.Errorf("Query: %q", got)
	}
	for _, raw := range []string{
		"https://azuld.example/v1/mail/stop?token=abc",
		"https://azuld.example/hook?apiKey=abc",
		"https://azuld.example/x?sig=abc",
		"https://user:abc@azuld.example/x",
		"https://azuld.example/signin/link/abc",
	} {
		if got := URL(raw); strings.Contains(got, "abc") {
			t.Errorf("URL(%q) = %q", raw, got)
		}
	}
}

func TestAddressAndText(t *testing.T) {
	if got := Address("play+abc@mail.example"); got != "play+REDACTED@mail.example" {
		t.Errorf("Address: %q", got)
	}
	if got := Address("ana@example.org"); got != "ana@example.org" {
		t.Errorf("an address without a tag changed: %q", got)
	}
	text := `rcpt <bounce+abc@mail.example> via http://azuld.example/signin/link/abc and /v1/mail/stop?token=abc&x=1`
	if got := Text(text); strings.Contains(got, "abc") {
		t.Errorf("Text: %q", got)
	}
}

// Whatever a package logs, through the handler no token reaches the
// output: messages, attributes, groups, errors, lists and With.
func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewJSONHandler(&buf, nil)))
	log = log.With("seat", "play+abc@mail.example")
	log.Info("opened /signin/link/abc",
		"rcpts", []string{"play+abc@mail.example"},
		"err", errors.New("GET /invite/abc: gone"),
		slog.Group("req", "url", "/v1/mail/stop?token=abc"),
		"n", 3)
	out := buf.String()
	if strings.Contains(out, "abc") {
		t.Fatalf("a token in the log: %s", out)
	}
	if !strings.Contains(out, `"n":3`) || !strings.Contains(out, "REDACTED") {
		t.Fatalf("the record lost its other values: %s", out)
	}
}
