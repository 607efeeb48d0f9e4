package mailtest

import (
	"fmt"
	"net/mail"
	"net/smtp"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/mail/bounce"
)

// ReplyTo is the Reply-To address of a mail: a seat's address.
func ReplyTo(t testing.TB, m Mail) string {
	t.Helper()
	a, err := mail.ParseAddress(m.Header.Get("Reply-To"))
	if err != nil || !strings.HasPrefix(a.Address, "play+") || !strings.HasSuffix(a.Address, "@"+Domain) {
		t.Fatalf("Reply-To %q: %v", m.Header.Get("Reply-To"), err)
	}
	return a.Address
}

// SendReply answers a mail through azuld's SMTP listener with a real SMTP
// client: body is the text above the quote. An empty messageID is one
// of the Env's making.
func (e *Env) SendReply(from, to, inReplyTo, messageID, body string) error {
	if messageID == "" {
		messageID = fmt.Sprintf("<%d.%d@example.org>", time.Now().UnixNano(), len(body))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: Re: your turn\r\nDate: %s\r\nMessage-ID: %s\r\n", from, to, time.Now().Format(time.RFC1123Z), messageID)
	if inReplyTo != "" {
		fmt.Fprintf(&b, "In-Reply-To: %s\r\nReferences: %s\r\n", inReplyTo, inReplyTo)
	}
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n")
	b.WriteString(strings.ReplaceAll(body, "\n", "\r\n"))
	b.WriteString("\r\n\r\nOn Mon, 23 Nov 2026 at 10:00, azuld <azuld@mail.test> wrote:\r\n> It is your turn.\r\n> 1. something\r\n")
	envelopeFrom := from
	if a, err := mail.ParseAddress(from); err == nil {
		envelopeFrom = a.Address
	}
	return smtp.SendMail(e.Inbound, nil, envelopeFrom, []string{to}, []byte(b.String()))
}

// SendRaw sends a raw message through the SMTP listener at addr.
func SendRaw(addr, from, to, raw string) error {
	return smtp.SendMail(addr, nil, from, []string{to}, []byte(raw))
}

// SendBounce delivers a report to a return path through azuld's SMTP
// listener, from the null sender as reporting servers do.
func (e *Env) SendBounce(to, raw string) error {
	return smtp.SendMail(e.Inbound, nil, "", []string{to}, []byte(raw))
}

// Report reads a bounce of mail/bounce's test data, addressed to
// returnPath instead of its own return path. The test data is found from
// the folder of a package at the top of the repository (notify, mailin),
// where go test runs its tests.
func Report(t testing.TB, file, returnPath string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "mail", "bounce", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]string{
		"postfix-user-unknown.eml": "bounce+k7tq2mxa4rb3@azul.example",
		"mailbox-full.eml":         "bounce+m3zq7vwdp2aa@azul.example",
		"arf-abuse.eml":            "bounce+r4r4ab2cdd7q@azul.example",
		"vacation.eml":             "",
	}[file]
	s := string(raw)
	if old != "" {
		s = strings.ReplaceAll(s, old, returnPath)
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// ReturnPath is the envelope sender of a mail the relay received, which
// must be a return path of azuld's own domain.
func ReturnPath(t testing.TB, m Mail) string {
	t.Helper()
	if bounce.Token(m.From, Domain) == "" || !strings.HasPrefix(m.From, bounce.LocalPrefix) {
		t.Fatalf("mail %s went out with MAIL FROM %q, not a return path bounce+<token>@%s", m.Header.Get("Message-Id"), m.From, Domain)
	}
	return m.From
}
