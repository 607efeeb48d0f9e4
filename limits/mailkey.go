package limits

import "strings"

// dotlessDomains are the providers that document that dots in the local
// part do not matter (ana.b@ and anab@ are one mailbox), each with the
// domain its mailboxes are known by.
var dotlessDomains = map[string]string{
	"gmail.com":      "gmail.com",
	"googlemail.com": "gmail.com",
}

// MailboxKey is the key of an email address for the limits counted per
// address: the mailbox that receives it, so that the variants of one
// address share a limit. Case is ignored, a sub-address tag (+…) is
// removed, and the dots of providers that ignore them too: victim+1@,
// Victim+2@ and, at Gmail, vic.tim@ all count as victim@.
func MailboxKey(email string) string {
	e := strings.ToLower(strings.TrimSpace(email))
	at := strings.LastIndexByte(e, '@')
	if at < 0 {
		return e
	}
	local, domain := e[:at], strings.TrimSuffix(e[at+1:], ".")
	if tag := strings.IndexByte(local, '+'); tag > 0 {
		local = local[:tag]
	}
	if d, ok := dotlessDomains[domain]; ok {
		local, domain = strings.ReplaceAll(local, ".", ""), d
	}
	return local + "@" + domain
}
