package compose

import (
	"strings"
	"testing"
	"time"
)

// The verification mail asks to confirm the address, says that nothing
// else comes until then, carries the link, and belongs to no game.
func TestVerification(t *testing.T) {
	s := Sender{Domain: "azul.example.org"}
	link := "https://azul.example.org/signin/link/abcdefghijklmnopqrstuvwxyz234567"
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	m := Verification(s, Recipient{Name: "Ana", Address: "ana@example.org"}, link, 48*time.Hour, at)
	for _, want := range []string{link, "confirm", "2 days", "no mail about games", "nothing more will come"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the text lacks %q:\n%s", want, m.Text)
		}
	}
	if !strings.Contains(m.HTML, `href="`+link+`"`) || m.ReplyTo != "" || m.InReplyTo != "" {
		t.Fatalf("link or threading wrong: reply-to %q\n%s", m.ReplyTo, m.HTML)
	}
	if !strings.HasPrefix(m.MessageID, "<"+KindVerify+".") || strings.Contains(m.MessageID, "abcdefghij") {
		t.Fatalf("Message-ID %q", m.MessageID)
	}
	if Signin(s, Recipient{Name: "Ana", Address: "ana@example.org"}, link, 48*time.Hour, at).MessageID == m.MessageID {
		t.Fatal("the verification and sign-in mails of one link share a Message-ID")
	}
	if _, err := m.Bytes(); err != nil {
		t.Fatal(err)
	}
}

// The notice to the other seats names the player who may not be hearing
// of the game, in a game mail of its own kind.
func TestUnreachable(t *testing.T) {
	s := Sender{Domain: "azul.example.org", BaseURL: "https://azul.example.org"}
	g := GameInfo{ID: gameID, Ruleset: "azul-mini", Version: 9, Board: "board",
		Players: []PlayerScore{{Seat: 0, Name: "Ana"}, {Seat: 1, Name: "Ben"}}}
	r := Recipient{Name: "Ben", Address: "ben@example.org", Seat: 1, SeatToken: token}
	m := Unreachable(s, r, g, 0, time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	if !strings.Contains(m.Text, "Ana may not be hearing of") || !strings.Contains(m.Subject, "may not be hearing of") {
		t.Fatalf("subject %q, text:\n%s", m.Subject, m.Text)
	}
	if gid, v, seat, ok := ParseMessageID(m.MessageID, s.Domain); !ok || gid != gameID || v != 9 || seat != 1 {
		t.Fatalf("Message-ID %q", m.MessageID)
	}
	if strings.Contains(m.Text, "ana@") {
		t.Fatal("the notice shows the player's address")
	}
}
