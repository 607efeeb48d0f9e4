package reply_test

import (
	"bytes"
	"fmt"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/mail/reply"
)

// TestReplyToOurMail answers a mail azuld sent, the way a mail program
// does (quoting the text part above or below the answer), and reads the
// answer back.
func TestReplyToOurMail(t *testing.T) {
	s := compose.Sender{Domain: "azul.example.org", From: mail.Address{Name: "azuld", Address: "azuld@azul.example.org"}, BaseURL: "https://azul.example.org"}
	now := time.Date(2026, 11, 23, 22, 0, 0, 0, time.UTC)
	r := compose.Recipient{Name: "Ann", Address: "ann@example.net", SeatToken: "abcdefghijklmnopqrstuvwxyz"}
	g := compose.GameInfo{ID: "01935f3c-7b2a-7cde-8f00-1a2b3c4d5e6f", Ruleset: "azul-mini", Version: 4, Board: "F1  1 blue, 3 black"}
	sent := compose.Turn(s, r, g, nil, nil, now)

	quoted := "> " + strings.ReplaceAll(strings.TrimRight(sent.Text, "\n"), "\n", "\n> ")
	attribution := fmt.Sprintf("On %s, azuld <azuld@azul.example.org> wrote:", now.Format("Mon, 2 Jan 2006 at 15:04"))
	for name, body := range map[string]string{
		"top":    "F1 black 2\n\n" + attribution + "\n" + quoted + "\n",
		"bottom": attribution + "\n" + quoted + "\n\nF1 black 2\n",
	} {
		t.Run(name, func(t *testing.T) {
			raw := fmt.Sprintf("From: Ann <ann@example.net>\r\nTo: %s\r\nSubject: Re: %s\r\nIn-Reply-To: %s\r\nReferences: %s %s\r\nMessage-ID: <r1@example.net>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s",
				sent.ReplyTo, "Azul Mini - your turn", sent.MessageID, strings.Join(sent.References, " "), sent.MessageID,
				strings.ReplaceAll(body, "\n", "\r\n"))
			m, err := reply.Parse([]byte(raw), s.Domain, "ann@example.net", nil)
			if err != nil {
				t.Fatal(err)
			}
			if m.Command != "F1 black 2" || m.Token != r.SeatToken || m.Auto {
				t.Errorf("Command %q Token %q Auto %v", m.Command, m.Token, m.Auto)
			}
			gameID, version, seat, ok := compose.ParseMessageID(m.InReplyTo, s.Domain)
			if !ok || gameID != g.ID || version != 4 || seat != 0 {
				t.Errorf("In-Reply-To %q: %q %d %d %v", m.InReplyTo, gameID, version, seat, ok)
			}
		})
	}

	// A vacation responder answering our mail is recognised.
	raw, err := sent.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	m, err := reply.Parse(raw, s.Domain, "azuld@azul.example.org", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Auto {
		t.Error("our own mail (Auto-Submitted) is not Auto")
	}
	if !bytes.Contains(raw, []byte(m.MessageID)) {
		t.Errorf("MessageID %q", m.MessageID)
	}
}
