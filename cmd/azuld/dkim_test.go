package main

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azuld/azuld/mail/dkim"
)

// TestDKIMKeygen: the key is written (never over an existing file), and
// the printed record is the key's, at <selector>._domainkey.<domain>.
func TestDKIMKeygen(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "dkim.pem")
	var out, errOut bytes.Buffer
	a := &process{getenv: envOf(map[string]string{"AZUL_MAIL_DOMAIN": "azul.example.org"}), stdout: &out, stderr: &errOut}
	if code := a.run(t.Context(), []string{"dkim", "keygen", "--out", path, "--dkim-selector", "s2026"}); code != 0 {
		t.Fatalf("exit code %d: %s", code, errOut.String())
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v, mode %v", err, info.Mode())
	}
	signer, err := dkim.Load(path, "azul.example.org", "s2026")
	if err != nil {
		t.Fatal(err)
	}
	record, err := signer.Record()
	if err != nil {
		t.Fatal(err)
	}
	printed := out.String()
	if !strings.Contains(printed, "s2026._domainkey.azul.example.org. IN TXT") || !strings.Contains(printed, record) {
		t.Fatalf("the printed record is not the key's %q:\n%s", record, printed)
	}
	before, _ := os.ReadFile(path)
	if code := a.run(t.Context(), []string{"dkim", "keygen", "--out", path}); code != 1 {
		t.Errorf("a second keygen over the same file: exit code %d", code)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("keygen overwrote an existing key")
	}
	if code := a.run(t.Context(), []string{"dkim", "keygen"}); code != 2 {
		t.Errorf("keygen without --out: exit code %d", code)
	}
	if code := a.run(t.Context(), []string{"dkim"}); code != 2 {
		t.Errorf("dkim without keygen: exit code %d", code)
	}
}

// TestAddressSettings: verification is on unless turned off; a DKIM key
// that cannot be read stops the start with the variable's name.
func TestAddressSettings(t *testing.T) {
	t.Parallel()
	var cfg config
	env := envOf(nil)
	s := newSettings("serve", withDatabase|withHTTP, &cfg, env, &bytes.Buffer{})
	if err := s.parse(nil, env); err != nil {
		t.Fatal(err)
	}
	if !cfg.VerifyAddresses || !cfg.MailAuth || cfg.DKIMKey != "" || cfg.DKIMSelector != "azuld" {
		t.Fatalf("defaults: %+v", cfg)
	}
	env = envOf(map[string]string{"AZUL_VERIFY_ADDRESSES": "false", "AZUL_DKIM_KEY": filepath.Join(t.TempDir(), "missing.pem")})
	cfg = config{}
	s = newSettings("serve", withDatabase|withHTTP, &cfg, env, &bytes.Buffer{})
	if err := s.parse(nil, env); err != nil {
		t.Fatal(err)
	}
	if cfg.VerifyAddresses {
		t.Fatal("AZUL_VERIFY_ADDRESSES=false not applied")
	}
	if _, err := notifyConfig(&cfg, slog.New(slog.DiscardHandler), nil); err == nil || !strings.Contains(err.Error(), "AZUL_DKIM_KEY") {
		t.Fatalf("a missing DKIM key: %v", err)
	}
}
