// Package dkim signs azuld's outgoing mail with DKIM (RFC 6376), through
// emersion/go-msgauth, and says what to publish in DNS for it.
//
// The key is the operator's: an RSA (2048 bits or more) or Ed25519 private
// key in PEM (PKCS#1 or PKCS#8), named by AZUL_DKIM_KEY_FILE, with the
// selector AZUL_DKIM_SELECTOR; the signing domain is azuld's mail domain.
// `azuld dkim keygen` writes a key and prints its record.
package dkim

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	msgdkim "github.com/emersion/go-msgauth/dkim"
)

// signedHeaders are the header fields the signature covers: those a
// reader relies on, and those that thread a game's mails. From is
// required; the others are signed when present (and, per RFC 6376 §5.4,
// their absence is then signed too, so none can be added on the way).
var signedHeaders = []string{
	"From", "Reply-To", "Subject", "Date", "To", "Cc", "Message-ID",
	"In-Reply-To", "References", "MIME-Version", "Content-Type",
	"Content-Transfer-Encoding", "List-Unsubscribe", "List-Unsubscribe-Post",
}

// Signer signs messages for one domain and selector.
type Signer struct {
	domain, selector string
	key              crypto.Signer
}

// New returns a signer. The selector and domain must be DNS labels.
func New(domain, selector string, key crypto.Signer) (*Signer, error) {
	if !validName(domain) || !validName(selector) {
		return nil, fmt.Errorf("dkim: domain %q and selector %q must be DNS names", domain, selector)
	}
	switch k := key.(type) {
	case *rsa.PrivateKey:
		if k.N.BitLen() < 1024 {
			return nil, fmt.Errorf("dkim: an RSA key of %d bits; receivers ignore keys under 1024 (use 2048)", k.N.BitLen())
		}
	case ed25519.PrivateKey:
	default:
		return nil, fmt.Errorf("dkim: a %T key; want RSA or Ed25519", key)
	}
	return &Signer{domain: strings.ToLower(domain), selector: strings.ToLower(selector), key: key}, nil
}

// Load reads the PEM key in path and returns its signer.
func Load(path, domain, selector string) (*Signer, error) {
	pemBytes, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("dkim: read the key: %w", err)
	}
	key, err := ParseKey(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("dkim: %s: %w", path, err)
	}
	return New(domain, selector, key)
}

// ParseKey reads a private key in PEM: PKCS#1 RSA or PKCS#8 RSA/Ed25519.
func ParseKey(pemBytes []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	switch block.Type {
	case "RSA PRIVATE KEY":
		return x509.ParsePKCS1PrivateKey(block.Bytes)
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, err
		}
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
		return nil, fmt.Errorf("a %T key", k)
	}
	return nil, fmt.Errorf("a PEM block of type %q; want a private key", block.Type)
}

// GenerateKey makes an RSA key of 2048 bits (what every receiver
// verifies; Ed25519 signatures are not yet checked by all) in PKCS#8 PEM.
func GenerateKey() ([]byte, crypto.Signer, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, fmt.Errorf("dkim: generate a key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("dkim: encode the key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), key, nil
}

// RecordName is where the public key is published:
// <selector>._domainkey.<domain>.
func (s *Signer) RecordName() string { return s.selector + "._domainkey." + s.domain }

// Record is the TXT record to publish at RecordName.
func (s *Signer) Record() (string, error) {
	var kind string
	var pub []byte
	switch k := s.key.(type) {
	case *rsa.PrivateKey:
		der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
		if err != nil {
			return "", fmt.Errorf("dkim: encode the public key: %w", err)
		}
		kind, pub = "rsa", der
	case ed25519.PrivateKey:
		kind, pub = "ed25519", k.Public().(ed25519.PublicKey)
	}
	return "v=DKIM1; k=" + kind + "; p=" + base64.StdEncoding.EncodeToString(pub), nil
}

// Sign returns raw with a DKIM-Signature header in front. Bodies are
// canonicalised relaxed/relaxed, which survives the rewrapping of header
// folds and trailing spaces that relays do.
func (s *Signer) Sign(raw []byte) ([]byte, error) {
	var out bytes.Buffer
	opts := &msgdkim.SignOptions{
		Domain:                 s.domain,
		Selector:               s.selector,
		Signer:                 s.key,
		HeaderCanonicalization: msgdkim.CanonicalizationRelaxed,
		BodyCanonicalization:   msgdkim.CanonicalizationRelaxed,
		HeaderKeys:             signedHeaders,
	}
	if err := msgdkim.Sign(&out, bytes.NewReader(raw), opts); err != nil {
		return nil, fmt.Errorf("dkim: sign: %w", err)
	}
	return out.Bytes(), nil
}

// validName: letters, digits, hyphens and dots, as DNS names are.
func validName(s string) bool {
	if s == "" || len(s) > 253 || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") || strings.Contains(s, "..") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return false
		}
	}
	return true
}
