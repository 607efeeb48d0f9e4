package compose

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
// Signin, it has no Reply-To and no thread.
func Verification(s Sender, name, address, link string, valid time.Duration, now time.Time) Mail {
	sum := sha256.Sum256([]byte("azuld verify " + link))
	id := "<" + KindVerify + "." + hex.EncodeToString(sum[:12]) + "@" + strings.ToLower(s.Domain) + ">"
	greeting := "Hello " + cleanName(name, "player") + ","
	hours := int(valid.Round(time.Hour) / time.Hour)
	validity := fmt.Sprintf("%d hours", hours)
	if hours < 2 {
		validity = fmt.Sprintf("%d minutes", int(valid.Round(time.Minute)/time.Minute))
	}
	text := fmt.Sprintf("%s\n\nSomeone, probably you, gave this address to azuld to play Azul. "+
		"Open this link to confirm that it is yours:\n\n%s\n\n"+
		"Until you do, azuld sends this address no mail about games (you can still play on the web, with the CLI or the API). "+
		"The link works once, for %s, and also signs you in. If it was not you, ignore this mail: nothing more will come.\n",
		greeting, link, validity)
	htmlBody := fmt.Sprintf(`<!doctype html><html><body><p>%s</p>
<p>Someone, probably you, gave this address to azuld to play Azul. Confirm that it is yours:</p>
<p><a href="%s">Confirm my address</a></p>
<p>Or copy this address into your browser:<br><code>%s</code></p>
<p>Until you do, azuld sends this address no mail about games (you can still play on the web, with the CLI or the API). The link works once, for %s, and also signs you in. If it was not you, ignore this mail: nothing more will come.</p>
</body></html>
`, html.EscapeString(greeting), html.EscapeString(link), html.EscapeString(link), html.EscapeString(validity))
	return Mail{
		From:      s.From,
		To:        mail.Address{Name: cleanName(name, ""), Address: address},
		Subject:   "azuld — confirm your address",
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
	who := nameOf(g, seat)
	d := doc{intro: []string{
		fmt.Sprintf("%s may not be hearing of %s: mail to their address came back undelivered, so azuld has stopped mailing them.", who, gameName(g)),
		"They can still play on the web. If you know them, you may want to tell them to sign in and confirm their address again.",
	}, board: true}
	return build(s, r, g, KindUnreachable, "A player may not be hearing of %s", d, now)
}
