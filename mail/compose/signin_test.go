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
