//go:debug rsa1024min=0

// (The directive above lets a test make a 512-bit key, to see it refused.)

package dkim_test

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	msgdkim "github.com/emersion/go-msgauth/dkim"

	"github.com/azuld/azuld/mail/dkim"
)

const message = "From: azuld <play+x4ab2c@azul.example>\r\n" +
	"To: Ana <ana@example.org>\r\n" +
	"Subject: Your turn: Azul Mini with Ben\r\n" +
	"Message-ID: <turn.3f2a.12@azul.example>\r\n" +
	"Date: Wed, 25 Nov 2026 10:00:00 +0000\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\n" +
	"\r\n" +
	"Ben took 3 red from F2 to line 3.\r\n"

// verify checks raw as a receiver would, with DNS answering the record
// the signer says to publish (DNS is the one part outside our control).
func verify(t *testing.T, s *dkim.Signer, raw []byte) []*msgdkim.Verification {
	t.Helper()
	record, err := s.Record()
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(name string) ([]string, error) {
		if name != s.RecordName() {
			return nil, fmt.Errorf("no TXT record at %s", name)
		}
		return []string{record}, nil
	}
	vs, err := msgdkim.VerifyWithOptions(bytes.NewReader(raw), &msgdkim.VerifyOptions{LookupTXT: lookup})
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

func TestSignedMailVerifies(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for name, key := range map[string]crypto.Signer{"rsa": rsaKey, "ed25519": edKey} {
		t.Run(name, func(t *testing.T) {
			s, err := dkim.New("azul.example", "azuld2026", key)
			if err != nil {
				t.Fatal(err)
			}
			signed, err := s.Sign([]byte(message))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasSuffix(signed, []byte(message)) || !bytes.HasPrefix(signed, []byte("DKIM-Signature: ")) {
				t.Fatalf("the message was changed, or the signature is not in front:\n%s", signed)
			}
			vs := verify(t, s, signed)
			if len(vs) != 1 || vs[0].Err != nil || vs[0].Domain != "azul.example" {
				t.Fatalf("verification: %+v", vs[0])
			}
			// A relay's refolding does not break it (relaxed), a changed
			// subject does.
			refolded := bytes.Replace(signed, []byte("Subject: Your turn"), []byte("Subject:   Your turn"), 1)
			if vs := verify(t, s, refolded); vs[0].Err != nil {
				t.Errorf("refolded header: %v", vs[0].Err)
			}
			forged := bytes.Replace(signed, []byte("Your turn: Azul Mini"), []byte("You won: Azul Mini"), 1)
			if vs := verify(t, s, forged); vs[0].Err == nil {
				t.Error("a changed subject verified")
			}
			forgedBody := bytes.Replace(signed, []byte("3 red"), []byte("4 red"), 1)
			if vs := verify(t, s, forgedBody); vs[0].Err == nil {
				t.Error("a changed body verified")
			}
		})
	}
}

func TestGeneratedKeyLoadsAndPublishes(t *testing.T) {
	pemBytes, _, err := dkim.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dkim.pem")
	if err := os.WriteFile(path, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := dkim.Load(path, "Azul.Example", "s1")
	if err != nil {
		t.Fatal(err)
	}
	if s.RecordName() != "s1._domainkey.azul.example" {
		t.Errorf("record name %q", s.RecordName())
	}
	rec, err := s.Record()
	if err != nil || !strings.HasPrefix(rec, "v=DKIM1; k=rsa; p=MII") {
		t.Errorf("record %q, %v", rec, err)
	}
	signed, err := s.Sign([]byte(message))
	if err != nil {
		t.Fatal(err)
	}
	if vs := verify(t, s, signed); vs[0].Err != nil {
		t.Fatal(vs[0].Err)
	}
}

func TestBadKeysAndNamesAreRefused(t *testing.T) {
	small, err := rsa.GenerateKey(rand.Reader, 512)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dkim.New("azul.example", "s1", small); err == nil {
		t.Error("a 512-bit key accepted")
	}
	good, _ := rsa.GenerateKey(rand.Reader, 2048)
	for _, names := range [][2]string{{"", "s1"}, {"azul.example", ""}, {"azul example", "s1"}, {"azul.example", "s1;x"}, {".azul.example", "s1"}} {
		if _, err := dkim.New(names[0], names[1], good); err == nil {
			t.Errorf("domain %q selector %q accepted", names[0], names[1])
		}
	}
	for _, bad := range []string{"", "not pem", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"} {
		if _, err := dkim.ParseKey([]byte(bad)); err == nil {
			t.Errorf("key %q accepted", bad)
		}
	}
}
