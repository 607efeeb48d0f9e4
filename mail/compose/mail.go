// Package compose renders the mails azuld sends: whose turn it is,
// reminders, invitations, the start and the end of a game, and the answers
// to a move sent by email (accepted or refused).
//
// It is pure: no I/O and no clock (the time is passed in), so the same
// inputs always give the same bytes, and a retried delivery carries the same
// Message-ID (receivers drop the duplicate).
//
// Every mail about a move carries the table as text (in a <pre> in the HTML
// part), the legal moves numbered from 1 with the version the numbers refer
// to, a link to the game page, Reply-To: play+<seat token>@<domain>, the
// threading headers that make all mails of a game one conversation, and a
// footer (plus List-Unsubscribe) to stop mails for that game.
package compose

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
)

// Sender is the server's mail identity.
type Sender struct {
	// Domain is the mail domain (AZUL_MAIL_DOMAIN), e.g. "azul.example.org":
	// it receives the play+<token>@ replies and names the Message-IDs.
	Domain string
	// From is the visible sender, e.g. {Name: "azuld", Address: "azuld@azul.example.org"}.
	From mail.Address
	// BaseURL is the public web address without a trailing slash; a game's
	// page is BaseURL + "/games/" + id.
	BaseURL string
	// Catalogue writes every mail in its reader's language; Words says
	// the moves in the reader's words. Both are built once by the caller
	// and shared.
	Catalogue *i18n.Catalogue
	Words     *notation.Words
}

// localizer is r's view of the catalogue: their language and zone. A
// Sender without a catalogue (a caller that forgot it) writes English in
// UTC from one built for the call, rather than failing the mail.
func (s Sender) localizer(r Recipient) *i18n.Localizer {
	cat := s.Catalogue
	if cat == nil {
		var err error
		if cat, err = i18n.New(i18n.Options{}); err != nil {
			panic(fmt.Sprintf("compose: the embedded catalogue does not load: %v", err))
		}
	}
	return cat.Localizer(r.Lang, r.Zone)
}

// say writes a canonical move in the reader's words.
func (s Sender) say(l *i18n.Localizer, ruleset, canonical string) string {
	if s.Words == nil {
		return canonical
	}
	return s.Words.Say(l.Lang(), ruleset, canonical)
}

// Recipient is one seat's player.
type Recipient struct {
	Name, Address string
	Seat          int
	// SeatToken is the seat's secret ([a-z2-7]{26,}); it names the reply
	// address and the stop link, so it appears only in mails to this seat.
	SeatToken string
	// Thread is the Message-ID of the first mail this seat was sent about
	// the game, which every later one refers to (In-Reply-To,
	// References); empty when this mail is the first, and so the root.
	Thread string
	// Stopped is set when the seat stopped the mails of the game: the
	// answers to its own replies must not promise turn mails.
	Stopped bool
	// Inviter is who gave the seat to this player ("" when they took it
	// themselves); a game's first mail says it.
	Inviter string
	// Lang is the player's language (i18n.Languages; another reads as
	// English) and Zone their time zone (nil: UTC): every word and time
	// of the mail is theirs.
	Lang string
	Zone *time.Location
	// Confirmed: the address's owner confirmed it (followed a link
	// mailed to it). A sign-in mail names the player only then: until
	// then the name is whatever the registrant typed, and the mail may
	// reach a stranger.
	Confirmed bool
}

// PlayerScore is one seat's current score.
type PlayerScore struct {
	Seat  int
	Name  string
	Score int
}

// GameInfo is what every mail shows about a game.
type GameInfo struct {
	ID, Ruleset string
	// Version the legal moves refer to (the game's event count).
	Version int64
	// View is the table (the engine's State.View()), which the mail
	// draws in the reader's words. Board, the engine's State.Text() in
	// English, is shown only when View is nil.
	View    *engine.View
	Board   string
	Players []PlayerScore
	ToAct   []int
	// Started marks the version at which the game began: a turn mail at
	// it says so (it is the seat's first mail of the game).
	Started bool
	// News is what happened since the reader's last move; the turn,
	// reminder and game-over mails tell it first.
	News []NewsItem
	// Talk are the other players' messages at the table since the
	// reader's last mail, oldest first: the turn, reminder and game-over
	// mails show them after the news, a talk mail is made of them.
	// TalkEarlier counts older ones left out (they are on the game's page).
	Talk        []TalkItem
	TalkEarlier int
}

// Mail is one rendered message. Bytes writes it out.
type Mail struct {
	From, To mail.Address
	// ReplyTo is the bare address the reply goes to (play+<token>@<domain>).
	ReplyTo                       string
	Subject, MessageID, InReplyTo string
	References                    []string
	// ListUnsubscribe is the header value (RFC 2369 / RFC 8058).
	ListUnsubscribe, ListUnsubscribePost string
	Date                                 time.Time
	Text, HTML                           string
}

// ErrHeader is returned by Bytes for a header value that would break the
// message (a line break in it).
var ErrHeader = errors.New("mail header contains a line break")

// Bytes writes the mail as RFC 5322 with MIME: multipart/alternative of a
// text/plain and a text/html part, both UTF-8 and quoted-printable, headers
// with encoded-words where they hold non-ASCII text, CRLF line ends. The
// MIME boundary is derived from the Message-ID so the output is
// reproducible.
//
// Every mail is marked Auto-Submitted: auto-generated (RFC 3834) so that
// vacation responders stay silent, and X-Auto-Response-Suppress for
// Exchange.
func (m *Mail) Bytes() ([]byte, error) {
	var b bytes.Buffer
	h := headerWriter{b: &b}
	h.raw("Date", m.Date.Format(time.RFC1123Z))
	h.raw("From", m.From.String())
	h.raw("To", m.To.String())
	if m.ReplyTo != "" {
		h.raw("Reply-To", m.ReplyTo)
	}
	h.text("Subject", m.Subject)
	h.raw("Message-ID", m.MessageID)
	if m.InReplyTo != "" {
		h.raw("In-Reply-To", m.InReplyTo)
	}
	if len(m.References) > 0 {
		h.raw("References", strings.Join(m.References, " "))
	}
	if m.ListUnsubscribe != "" {
		h.raw("List-Unsubscribe", m.ListUnsubscribe)
	}
	if m.ListUnsubscribePost != "" {
		h.raw("List-Unsubscribe-Post", m.ListUnsubscribePost)
	}
	h.raw("Auto-Submitted", "auto-generated")
	h.raw("X-Auto-Response-Suppress", "All")
	h.raw("MIME-Version", "1.0")
	sum := sha256.Sum256([]byte("azuld boundary " + m.MessageID))
	boundary := "azuld-" + hex.EncodeToString(sum[:12])
	h.raw("Content-Type", `multipart/alternative; boundary="`+boundary+`"`)
	if h.err != nil {
		return nil, h.err
	}
	b.WriteString("\r\n")

	mw := multipart.NewWriter(&b)
	if err := mw.SetBoundary(boundary); err != nil {
		return nil, fmt.Errorf("mime boundary: %w", err)
	}
	for _, p := range []struct{ typ, body string }{
		{"text/plain; charset=utf-8", m.Text},
		{"text/html; charset=utf-8", m.HTML},
	} {
		pw, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {p.typ},
			"Content-Transfer-Encoding": {"quoted-printable"},
		})
		if err != nil {
			return nil, fmt.Errorf("mime part %s: %w", p.typ, err)
		}
		qw := quotedprintable.NewWriter(pw)
		if _, err := qw.Write([]byte(p.body)); err != nil {
			return nil, fmt.Errorf("quoted-printable: %w", err)
		}
		if err := qw.Close(); err != nil {
			return nil, fmt.Errorf("quoted-printable: %w", err)
		}
	}
	if err := mw.Close(); err != nil {
		return nil, fmt.Errorf("mime close: %w", err)
	}
	return b.Bytes(), nil
}

// headerWriter writes folded header fields and remembers the first error.
type headerWriter struct {
	b   *bytes.Buffer
	err error
}

// raw writes a structured field (addresses, ids): already ASCII, folded at
// spaces.
func (h *headerWriter) raw(name, value string) {
	if strings.ContainsAny(value, "\r\n") {
		if h.err == nil {
			h.err = fmt.Errorf("%w: %s", ErrHeader, name)
		}
		return
	}
	h.fold(name, value)
}

// text writes an unstructured field (Subject). Runs of non-ASCII words
// become encoded-words (RFC 2047) and ASCII words stay readable, so the
// field still folds at its spaces. A run keeps its inner spaces inside the
// encoded-word, because whitespace between two encoded-words is dropped
// when they are decoded.
func (h *headerWriter) text(name, value string) {
	plain := func(w string) bool { return isASCII(w) && !strings.Contains(w, "=?") }
	words := strings.Split(value, " ")
	var out []string
	for i := 0; i < len(words); {
		if plain(words[i]) {
			out = append(out, words[i])
			i++
			continue
		}
		j := i
		for j < len(words) && !plain(words[j]) {
			j++
		}
		out = append(out, mime.QEncoding.Encode("utf-8", strings.Join(words[i:j], " ")))
		i = j
	}
	h.raw(name, strings.Join(out, " "))
}

// fold writes "Name: value" with lines of at most 78 characters where the
// value has spaces to break at (RFC 5322 §2.2.3); a longer token (a long
// Message-ID) makes a longer line, the first one beside the field's name.
func (h *headerWriter) fold(name, value string) {
	line := name + ":"
	// The first word stays on the field's own line however long it is:
	// a line with the name alone reads as an empty field to many
	// programs (an empty List-Unsubscribe, say), which then ignore it.
	first := true
	for _, word := range strings.Split(value, " ") {
		if len(line)+1+len(word) > 78 && !first {
			h.b.WriteString(line + "\r\n")
			line = ""
		}
		line += " " + word
		first = false
	}
	h.b.WriteString(line + "\r\n")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
