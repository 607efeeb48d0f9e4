package compose

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// KindSignin is the kind of the mail that carries a sign-in link.
const KindSignin = "signin"

// Signin is the mail with a one-time link that signs r in to the web
// client, in r's language. link is the whole URL; valid is how long it
// works. The mail has no Reply-To and no thread: it is about no game.
func Signin(s Sender, r Recipient, link string, valid time.Duration, now time.Time) Mail {
	// The Message-ID is derived from the link, so a retried delivery of the
	// same link carries the same id, and nothing of the link leaks in it.
	sum := sha256.Sum256([]byte("azuld signin " + link))
	id := "<" + KindSignin + "." + hex.EncodeToString(sum[:12]) + "@" + strings.ToLower(s.Domain) + ">"
	return linkMail(s, r, "mail.signin", id, link, valid, now)
}
