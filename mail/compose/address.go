package compose

import (
	"crypto/sha256"
	"encoding/hex"
	"html"
	"net/mail"
	"strings"
	"time"
)

// Kinds of the mails about a player's address.
const (
	// KindVerify is the mail that asks a new player to confirm their
	// address: a sign-in link that also verifies it.
	KindVerify = "verify"
	// KindUnreachable tells the other seats of a game that a player's
	// address stopped taking mail.
	KindUnreachable = "unreachable"
)

// Verification is the one mail an unverified address gets: a link that
// confirms the address (and signs the player in to the web client).
// Until it is followed, azuld mails the address nothing else. Like
// Signin, it has no Reply-To and no thread; r's name, address, language
// and zone are used.
func Verification(s Sender, r Recipient, link string, valid time.Duration, now time.Time) Mail {
	sum := sha256.Sum256([]byte("azuld verify " + link))
	id := "<" + KindVerify + "." + hex.EncodeToString(sum[:12]) + "@" + strings.ToLower(s.Domain) + ">"
	// It names nobody: the name is the registrant's choice, and the
	// registrant may be anyone who typed this address.
	r.Name, r.Confirmed = "", false
	return linkMail(s, r, "mail.verify", id, link, valid, now)
}

// linkMail is a mail whose point is one link (sign-in, verification):
// the messages prefix.subject, .intro, .button, .copy and .validity.
func linkMail(s Sender, r Recipient, prefix, id, link string, valid time.Duration, now time.Time) Mail {
	l := s.localizer(r)
	greeting, toName := l.T("mail.greeting_plain"), ""
	if r.Confirmed && cleanName(r.Name, "") != "" {
		// Only its owner, who confirmed the address, chose the name.
		greeting, toName = l.T("mail.greeting", "Name", cleanName(r.Name, l.T("mail.player"))), cleanName(r.Name, "")
	}
	validity := l.T(prefix+".validity", "Valid", l.Span(valid.Round(time.Minute)))
	intro := l.T(prefix + ".intro")
	text := greeting + "\n\n" + wrap(intro, textWidth) + "\n\n" + link + "\n\n" + wrap(validity, textWidth) + "\n"
	htmlBody := `<!doctype html><html lang="` + html.EscapeString(l.Lang()) + `"><body><p>` + html.EscapeString(greeting) + `</p>
<p>` + html.EscapeString(intro) + `</p>
<p><a href="` + html.EscapeString(link) + `">` + html.EscapeString(l.T(prefix+".button")) + `</a></p>
<p>` + html.EscapeString(l.T("mail.link.copy")) + `<br><code>` + html.EscapeString(link) + `</code></p>
<p>` + html.EscapeString(validity) + `</p>
</body></html>
`
	return Mail{
		From:      s.From,
		To:        mail.Address{Name: toName, Address: r.Address},
		Subject:   l.T(prefix + ".subject"),
		MessageID: id,
		Date:      now,
		Text:      text,
		HTML:      htmlBody,
	}
}

// Unreachable tells r that the player at seat may not be hearing of the
// game: mail to their address came back undelivered, or was reported as
// unwanted. It is sent once per game.
func Unreachable(s Sender, r Recipient, g GameInfo, seat int, now time.Time) Mail {
	l := s.localizer(r)
	d := doc{intro: []string{
		l.T("mail.unreachable.line", "Name", nameOf(l, g, seat), "Game", gameName(l, g)),
		l.T("mail.unreachable.hint"),
	}, board: true}
	return build(s, r, g, KindUnreachable, "mail.unreachable.subject", d, now)
}
