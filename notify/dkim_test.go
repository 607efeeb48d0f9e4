package notify_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	msgdkim "github.com/emersion/go-msgauth/dkim"

	"github.com/azuld/azuld/mail/dkim"
	"github.com/azuld/azuld/notify"
)

// TestOutgoingMailIsSignedWithDKIM: with a key configured, the mail the
// relay receives carries a DKIM signature that go-msgauth's verifier
// accepts against the TXT record azuld tells the operator to publish (and
// rejects against another key's).
func TestOutgoingMailIsSignedWithDKIM(t *testing.T) {
	t.Parallel()
	_, key, err := dkim.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	signer, err := dkim.New(domain, "azuld", key)
	if err != nil {
		t.Fatal(err)
	}
	record, err := signer.Record()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWithConfig(t, 2, func(c *notify.Config) { c.Signer = signer })
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	e.WaitOpeningMails(g, ana, ben, 30*time.Second)
	m := e.Relay.All()[0]

	lookup := func(published string) func(string) ([]string, error) {
		return func(name string) ([]string, error) {
			if name != signer.RecordName() {
				return nil, fmt.Errorf("no TXT record at %s", name)
			}
			return []string{published}, nil
		}
	}
	verifs, err := msgdkim.VerifyWithOptions(bytes.NewReader(m.Raw), &msgdkim.VerifyOptions{LookupTXT: lookup(record)})
	if err != nil || len(verifs) != 1 {
		t.Fatalf("verify: %v, %d signatures", err, len(verifs))
	}
	if v := verifs[0]; v.Err != nil || v.Domain != domain || !slices.Contains(v.HeaderKeys, "From") {
		t.Fatalf("the signature does not verify: %+v", v)
	}

	_, other, err := dkim.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	otherSigner, _ := dkim.New(domain, "azuld", other)
	otherRecord, _ := otherSigner.Record()
	verifs, err = msgdkim.VerifyWithOptions(bytes.NewReader(m.Raw), &msgdkim.VerifyOptions{LookupTXT: lookup(otherRecord)})
	if err != nil || len(verifs) != 1 || verifs[0].Err == nil {
		t.Fatalf("the signature verified against another key's record: %v %+v", err, verifs)
	}
}
