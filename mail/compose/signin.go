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

// KindSignin is the kind of the mail that carries a sign-in link.
const KindSignin = "signin"

// Signin is the mail with a one-time link that signs r in to the web
// client. link is the whole URL; valid is how long it works. The mail has
// no Reply-To and no thread: it is about no game.
func Signin(s Sender, name, address, link string, valid time.Duration, now time.Time) Mail {
	// The Message-ID is derived from the link, so a retried delivery of the
	// same link carries the same id, and nothing of the link leaks in it.
	sum := sha256.Sum256([]byte("azuld signin " + link))
	id := "<" + KindSignin + "." + hex.EncodeToString(sum[:12]) + "@" + strings.ToLower(s.Domain) + ">"
	greeting := "Hello " + cleanName(name, "player") + ","
	minutes := int(valid.Round(time.Minute) / time.Minute)
	text := fmt.Sprintf("%s\n\nOpen this link to sign in to azuld:\n\n%s\n\n"+
		"The link works once, for %d minutes. If you did not ask to sign in, ignore this mail: nobody can use it without access to your mailbox.\n",
		greeting, link, minutes)
	htmlBody := fmt.Sprintf(`<!doctype html><html><body><p>%s</p>
<p><a href="%s">Sign in to azuld</a></p>
<p>Or copy this address into your browser:<br><code>%s</code></p>
<p>The link works once, for %d minutes. If you did not ask to sign in, ignore this mail: nobody can use it without access to your mailbox.</p>
</body></html>
`, html.EscapeString(greeting), html.EscapeString(link), html.EscapeString(link), minutes)
	return Mail{
		From:      s.From,
		To:        mail.Address{Name: cleanName(name, ""), Address: address},
		Subject:   "azuld — your sign-in link",
		MessageID: id,
		Date:      now,
		Text:      text,
		HTML:      htmlBody,
	}
}
