package compose

import (
	"bytes"
	"io"
	"mime/quotedprintable"
	"strings"
	"testing"
	"time"
)

// The sign-in mail carries the link in both parts, says how long it works,
// and keeps its Message-ID across retries without revealing the link.
func TestSignin(t *testing.T) {
	s := Sender{Domain: "Azul.Example.org", BaseURL: "https://azul.example.org"}
	link := "https://azul.example.org/signin/link/abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrst"
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	m := Signin(s, Recipient{Name: "Ana <\r\nBcc: x>", Address: "ana@example.org"}, link, 15*time.Minute, at)
	if !strings.Contains(m.Text, link) || !strings.Contains(m.HTML, `href="`+link+`"`) {
		t.Fatalf("the link is missing:\n%s\n%s", m.Text, m.HTML)
	}
	if !strings.Contains(m.Text, "15 minutes") || !strings.Contains(m.Text, "works once") {
		t.Fatalf("no lifetime in:\n%s", m.Text)
	}
	if m.ReplyTo != "" || m.InReplyTo != "" {
		t.Fatal("a sign-in mail is about no game: no reply address, no thread")
	}
	if strings.Contains(m.MessageID, "abcdefghij") || !strings.HasSuffix(m.MessageID, "@azul.example.org>") {
		t.Fatalf("Message-ID %q", m.MessageID)
	}
	if again := Signin(s, Recipient{Name: "Ana", Address: "ana@example.org"}, link, 15*time.Minute, at); again.MessageID != m.MessageID {
		t.Fatal("the Message-ID changes between renderings")
	}
	if other := Signin(s, Recipient{Name: "Ana", Address: "ana@example.org"}, link+"x", 15*time.Minute, at); other.MessageID == m.MessageID {
		t.Fatal("two links share a Message-ID")
	}
	raw, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	head, body, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	if bytes.Contains(head, []byte("\r\nBcc:")) {
		t.Fatalf("a name broke the header:\n%s", head)
	}
	decoded, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(decoded, []byte(link)) {
		t.Fatal("the encoded mail lost the link")
	}
}

// A name is the registrant's choice, and a registrant may type anyone's
// address: a link mail names the player only to an address its owner
// confirmed, and the verification mail, which goes to addresses nobody
// confirmed yet, names nobody at all (not in its text, its HTML or its
// To header).
func TestLinkMailsNameOnlyConfirmedOwners(t *testing.T) {
	s := Sender{Domain: "azul.example.org", BaseURL: "https://azul.example.org"}
	link := "https://azul.example.org/signin/link/abcdefghijklmnopqrstuvwxyz234567"
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	advert := "Claim prize at http://evil.example/win"
	for lang, hello := range map[string]string{"en": "Hello,", "nl": "Hallo,", "de": "Hallo,", "it": "Buongiorno,"} {
		stranger := Recipient{Name: advert, Address: "victim@example.org", Lang: lang}
		owner := Recipient{Name: advert, Address: "victim@example.org", Confirmed: true, Lang: lang}
		for what, m := range map[string]Mail{
			"sign-in to an unconfirmed address": Signin(s, stranger, link, 15*time.Minute, at),
			"verification":                      Verification(s, stranger, link, 48*time.Hour, at),
			"verification, confirmed":           Verification(s, owner, link, 48*time.Hour, at),
		} {
			raw, err := m.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(m.Text, "Claim") || strings.Contains(m.HTML, "Claim") || m.To.Name != "" || bytes.Contains(raw, []byte("Claim")) {
				t.Errorf("%s (%s) names the registrant:\n%s", what, lang, raw)
			}
			if !strings.HasPrefix(m.Text, hello+"\n") {
				t.Errorf("%s (%s) does not start with %q:\n%s", what, lang, hello, m.Text)
			}
		}
		if m := Signin(s, Recipient{Name: "Ana", Address: "ana@example.org", Confirmed: true, Lang: lang}, link, 15*time.Minute, at); !strings.Contains(m.Text, "Ana,") || m.To.Name != "Ana" {
			t.Errorf("a sign-in mail to a confirmed address (%s) does not greet its owner:\n%s", lang, m.Text)
		}
	}
}
