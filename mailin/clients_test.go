package mailin_test

import (
	"fmt"
	"mime/quotedprintable"
	"net/mail"
	"net/smtp"
	"strings"
	"time"

	"golang.org/x/text/encoding/charmap"
)

// clientStyles are the shapes of replies real mail programs send.
var clientStyles = []string{"plain", "gmail", "outlook", "apple"}

// qp encodes s as quoted-printable.
func qp(s string) string {
	var b strings.Builder
	w := quotedprintable.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return b.String()
}

// sendClientReply answers the mail m through azuld's SMTP listener the
// way a mail program of style does: the answer above the quoted mail, the
// program's attribution line, quoting, signature and MIME structure, and
// its threading headers (In-Reply-To the mail, References the thread).
func (e *env) sendClientReply(style string, from mail.Address, m outMail, answer string) error {
	to := m.Header.Get("Reply-To")
	id := m.Header.Get("Message-Id")
	refs := strings.TrimSpace(m.Header.Get("References") + " " + id)
	subject := m.Header.Get("Subject")
	quoted := "> " + strings.ReplaceAll(strings.TrimRight(m.Text, "\n"), "\n", "\n> ")
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	date := time.Now().Format(time.RFC1123Z)
	var head, body string
	switch style {
	case "gmail":
		boundary := "000000000000a1b2c3d4e5f6"
		head = fmt.Sprintf("Content-Type: multipart/alternative; boundary=%q\r\n", boundary)
		text := answer + "\n\nOn Mon, 23 Nov 2026 at 22:00, azuld <azuld@" + domain + "> wrote:\n\n" + quoted + "\n"
		html := `<div dir="ltr">` + answer + `</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, 23 Nov 2026 at 22:00, azuld &lt;azuld@` + domain +
			`&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">` + strings.ReplaceAll(m.Text, "\n", "<br>") + `</blockquote></div>`
		body = "--" + boundary + "\r\nContent-Type: text/plain; charset=\"UTF-8\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" + qp(crlf(text)) +
			"\r\n--" + boundary + "\r\nContent-Type: text/html; charset=\"UTF-8\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" + qp(html) + "\r\n--" + boundary + "--\r\n"
		subject = "Re: " + subject
	case "outlook":
		// Outlook: Latin-1, non-breaking spaces, a signature without
		// "-- ", the original below a line of underscores, not quoted.
		boundary := "_000_AM0PR01MB1234_"
		text := strings.ReplaceAll(answer, " ", "\u00a0") + "\n\nKind regards\nAnna\n\n________________________________\nFrom: azuld <azuld@" + domain + ">\nSent: Monday, 23 November 2026 21:00\nTo: " + from.String() + "\nSubject: " + subject + "\n\n" + m.Text
		charset, encoded := "iso-8859-1", text
		if latin1, err := charmap.ISO8859_1.NewEncoder().String(text); err == nil {
			encoded = latin1
		} else {
			// The quoted mail holds characters outside Latin-1 (curly
			// quotes): Outlook then sends UTF-8.
			charset = "utf-8"
		}
		head = fmt.Sprintf("Content-Type: multipart/alternative; boundary=%q\r\nThread-Topic: %s\r\n", boundary, subject)
		body = "--" + boundary + "\r\nContent-Type: text/plain; charset=\"" + charset + "\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" + qp(crlf(encoded)) +
			"\r\n--" + boundary + "\r\nContent-Type: text/html; charset=\"utf-8\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" +
			qp(`<html><head><style>p {margin:0}</style></head><body><p>`+answer+`</p><div id="divRplyFwdMsg"><b>From:</b> azuld</div></body></html>`) + "\r\n--" + boundary + "--\r\n"
		subject = "RE: " + subject
	case "apple":
		head = "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n"
		body = qp(crlf(answer + "\n\nSent from my iPhone\n\n> On 23 Nov 2026, at 22:00, azuld <azuld@" + domain + "> wrote:\n>\n" + quoted + "\n"))
		subject = "Re: " + subject
	default:
		head = "Content-Type: text/plain; charset=utf-8\r\n"
		body = crlf(answer + "\n\nOn Mon, 23 Nov 2026 at 10:00, azuld <azuld@" + domain + "> wrote:\n" + quoted + "\n")
		subject = "Re: " + subject
	}
	raw := fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <%d.%s@example.org>\r\nIn-Reply-To: %s\r\nReferences: %s\r\nMIME-Version: 1.0\r\n%s\r\n%s",
		from.String(), to, subject, date, time.Now().UnixNano(), style, id, refs, head, body)
	addr, err := mail.ParseAddress(to)
	if err != nil {
		return err
	}
	return smtp.SendMail(e.Inbound, nil, from.Address, []string{addr.Address}, []byte(raw))
}
