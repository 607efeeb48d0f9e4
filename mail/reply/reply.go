// Package reply reads the mails players send back: who sent it, to which
// seat address (play+<token>@<domain>), in reply to what, and the move —
// the first line of the reply that is the player's own text.
//
// It is pure: the caller passes the raw message and the SMTP envelope.
// Parse accepts what real mail programs send: multipart/alternative and
// mixed (attachments ignored), nested multiparts, quoted-printable and
// base64, the common charsets, HTML-only mails, format=flowed, CRLF or LF
// line ends, a byte-order mark and non-breaking spaces.
package reply

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/mail"
	"net/textproto"
	"strings"
)

// MaxSize is the largest message Parse reads; a move needs a few bytes, and
// a reply that quotes a mail with its HTML part stays far below.
const MaxSize = 1 << 20

// Message is what azuld needs of an inbound mail.
type Message struct {
	// MessageID is the message's id without <>, as sent.
	MessageID string
	// From is the header sender's address, lower-cased; FromName its name.
	From, FromName string
	// Recipients are lower-cased and without duplicates, in this order: the
	// envelope recipients passed to Parse, Delivered-To, X-Original-To, To,
	// Cc. The envelope comes first because it is where the mail was really
	// delivered.
	Recipients []string
	// Token is taken from the first recipient play+<token>@<domain> (domain
	// compared case-insensitively; token lower-cased, [a-z2-7] only); ""
	// if none.
	Token string
	// InReplyTo and References are message ids without <>.
	InReplyTo  string
	References []string
	// Subject is decoded.
	Subject string
	// Text is the decoded plain text: the text/plain body if there is one,
	// else the HTML body converted to text.
	Text string
	// Command is the move: FirstCommandLine(Text).
	Command string
	// Auto marks an auto-reply, a bounce or a list mail: it is to be
	// ignored without answering (answering could start a mail loop).
	Auto bool
}

// Errors of Parse (wrapped with detail).
var (
	ErrMalformed = errors.New("malformed message")
	ErrTooLarge  = errors.New("message too large")
)

// Parse reads raw (an RFC 5322 message). domain is the mail domain of the
// seat addresses. envelopeFrom is the SMTP MAIL FROM ("<>" for a bounce,
// "" when not known); envelopeRcpts the RCPT TO addresses (may be nil).
func Parse(raw []byte, domain string, envelopeFrom string, envelopeRcpts []string) (*Message, error) {
	if len(raw) > MaxSize {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(raw), MaxSize)
	}
	raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrMalformed, err)
	}
	h := msg.Header
	dec := wordDecoder()
	m := &Message{
		MessageID:  firstID(h.Get("Message-Id")),
		InReplyTo:  firstID(h.Get("In-Reply-To")),
		References: allIDs(h.Get("References")),
	}
	m.Subject = oneLine(decodeHeader(dec, h.Get("Subject")))
	if from := parseAddresses(h.Get("From"), dec); len(from) > 0 {
		m.From = strings.ToLower(from[0].Address)
		m.FromName = oneLine(from[0].Name)
	}
	var rcpts []string
	rcpts = append(rcpts, envelopeRcpts...)
	for _, key := range []string{"Delivered-To", "X-Original-To", "To", "Cc"} {
		for _, v := range textproto.MIMEHeader(h).Values(key) {
			for _, a := range parseAddresses(v, dec) {
				rcpts = append(rcpts, a.Address)
			}
		}
	}
	seen := map[string]bool{}
	for _, r := range rcpts {
		r = strings.ToLower(strings.Trim(strings.TrimSpace(r), "<>"))
		if r == "" || seen[r] {
			continue
		}
		seen[r] = true
		m.Recipients = append(m.Recipients, r)
		if m.Token == "" {
			m.Token = tokenOf(r, domain)
		}
	}
	m.Auto = isAuto(h, envelopeFrom, m.From)

	body, err := io.ReadAll(msg.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: body: %v", ErrMalformed, err)
	}
	m.Text = bodyText(textproto.MIMEHeader(h), body)
	m.Command = FirstCommandLine(m.Text)
	return m, nil
}

// tokenOf returns the token of a seat address play+<token>@<domain>, or "".
func tokenOf(addr, domain string) string {
	local, dom, ok := cutLast(addr, "@")
	if !ok || domain == "" || !strings.EqualFold(dom, domain) {
		return ""
	}
	tok, ok := strings.CutPrefix(strings.ToLower(local), "play+")
	if !ok || tok == "" {
		return ""
	}
	for _, r := range tok {
		if !(r >= 'a' && r <= 'z' || r >= '2' && r <= '7') {
			return ""
		}
	}
	return tok
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// isAuto tells mail that no person wrote (RFC 3834 and the de-facto
// headers of vacation responders, bounces and mailing lists).
func isAuto(h mail.Header, envelopeFrom, from string) bool {
	if v := strings.ToLower(strings.TrimSpace(h.Get("Auto-Submitted"))); v != "" && !strings.HasPrefix(v, "no") {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(h.Get("Precedence"))) {
	case "bulk", "junk", "list", "auto_reply":
		return true
	}
	for _, k := range []string{"X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress-Reply", "List-Id", "X-Failed-Recipients"} {
		if _, ok := h[textproto.CanonicalMIMEHeaderKey(k)]; ok {
			return true
		}
	}
	if strings.TrimSpace(envelopeFrom) == "<>" || strings.TrimSpace(h.Get("Return-Path")) == "<>" {
		return true
	}
	if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err == nil && mt == "multipart/report" {
		return true
	}
	local, _, _ := cutLast(from, "@")
	switch local {
	case "mailer-daemon", "postmaster":
		return true
	}
	return false
}

// firstID returns the first <id> of a header, without the brackets.
func firstID(v string) string {
	ids := allIDs(v)
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

// allIDs splits a list of message ids ("<a@b> <c@d>"), tolerating missing
// brackets and commas as some programs write them.
func allIDs(v string) []string {
	var ids []string
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == '\r' || r == '\n' }) {
		f = strings.TrimSuffix(strings.TrimPrefix(f, "<"), ">")
		if f != "" && !strings.ContainsAny(f, "<>") {
			ids = append(ids, f)
		}
	}
	return ids
}

// parseAddresses reads an address list, falling back to a lenient split
// when the header is not strictly RFC 5322 (which happens in the wild).
func parseAddresses(v string, dec *mime.WordDecoder) []*mail.Address {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	p := mail.AddressParser{WordDecoder: dec}
	if list, err := p.ParseList(v); err == nil {
		return list
	}
	var out []*mail.Address
	for _, part := range strings.Split(v, ",") {
		if a, err := p.Parse(part); err == nil {
			out = append(out, a)
			continue
		}
		// Last resort: the text between the last < and >, or a bare word with @.
		s := strings.TrimSpace(part)
		if i := strings.LastIndex(s, "<"); i >= 0 {
			s = strings.TrimSuffix(s[i+1:], ">")
		}
		if strings.Count(s, "@") == 1 && !strings.ContainsAny(s, " \t<>\"") {
			out = append(out, &mail.Address{Address: s})
		}
	}
	return out
}
