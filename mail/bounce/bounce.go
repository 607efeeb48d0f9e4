// Package bounce reads what comes back to a delivery's return path:
// delivery status notifications (RFC 3464, and the plain-text shapes of
// mail servers that do not send one) and abuse reports (ARF, RFC 5965).
//
// Outgoing mail carries a per-delivery return path on azuld's own domain,
// bounce+<token>@<domain> (VERP), so what comes back names the delivery by
// its token even when the report itself is vague about the recipient.
//
// It is pure: the caller passes the raw message and the SMTP envelope's
// recipients; Parse never does I/O, bounds the work a hostile message can
// cause, and returns ErrNotReport for mail that is neither (an out-of-office
// reply sent to the return path, say), which must be dropped silently.
package bounce

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"net/textproto"
	"regexp"
	"strings"
)

// MaxSize is the largest message Parse reads. Reports carry the original
// message or its headers; azuld's mails are far below this.
const MaxSize = 1 << 20

// Bounds on the MIME tree, so a hostile message cannot make Parse work long.
const (
	maxDepth = 6
	maxParts = 64
	// maxRecipientGroups bounds the per-recipient blocks read of one report.
	maxRecipientGroups = 32
)

// LocalPrefix is the local part's prefix of a return path.
const LocalPrefix = "bounce+"

// Errors of Parse (wrapped with detail).
var (
	ErrMalformed = errors.New("malformed message")
	ErrTooLarge  = errors.New("message too large")
	// ErrNotReport: neither a failure report nor a complaint (a positive
	// delivery report, an auto-reply, a person's mail): nothing to record.
	ErrNotReport = errors.New("not a bounce or complaint")
)

// Type is what the report says happened.
type Type string

// Types of Report.
const (
	// Failed: the mail was not delivered and the sender has given up.
	Failed Type = "failed"
	// Delayed: the mail was not delivered yet; the sender goes on trying.
	Delayed Type = "delayed"
	// Complaint: the recipient (or their provider) reported the mail as
	// abuse or spam.
	Complaint Type = "complaint"
)

// Severity says whether a failure is permanent (the address does not
// work) or transient (full mailbox, greylisting, a server down).
type Severity string

// Severities of Report.
const (
	Hard Severity = "hard"
	Soft Severity = "soft"
)

// Report is what azuld needs of a bounce or complaint.
type Report struct {
	Type     Type
	Severity Severity
	// Token is the delivery's token, from the first recipient
	// bounce+<token>@<domain> (envelope first, then Delivered-To,
	// X-Original-To, To); "" when none names one.
	Token string
	// Recipient is the address the report is about, lower-cased, when it
	// says (Final-Recipient, Original-Rcpt-To, or the text); "" otherwise.
	Recipient string
	// Status is the enhanced status code ("5.1.1"), when known.
	Status string
	// Diagnostic is the remote server's words, one line, at most 300 bytes.
	Diagnostic string
	// FeedbackType is ARF's Feedback-Type ("abuse", "fraud", …) of a
	// complaint.
	FeedbackType string
	// OriginalMessageID is the Message-ID of the mail the report is about,
	// without <>, when the report includes it.
	OriginalMessageID string
	// Shape says how the report was read: "dsn", "arf" or "text".
	Shape string
}

// Address is the return path of one delivery.
func Address(token, domain string) string { return LocalPrefix + token + "@" + domain }

// Parse reads raw, a message that arrived for domain's return paths.
// envelopeRcpts are the SMTP RCPT TO addresses (may be nil).
func Parse(raw []byte, domain string, envelopeRcpts []string) (*Report, error) {
	if len(raw) > MaxSize {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(raw), MaxSize)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(bytes.TrimPrefix(raw, []byte("\ufeff"))))
	if err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrMalformed, err)
	}
	h := textproto.MIMEHeader(msg.Header)
	body, err := io.ReadAll(msg.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: body: %v", ErrMalformed, err)
	}
	token := tokenOf(h, domain, envelopeRcpts)

	parts := &collected{}
	walk(h, body, 0, parts)
	var r *Report
	switch {
	case parts.feedback != nil:
		r = fromFeedback(parts.feedback)
	case parts.status != nil:
		r = fromStatus(parts.status)
	case looksLikeBounce(h):
		r = fromText(parts.text)
	}
	if r == nil {
		return nil, ErrNotReport
	}
	r.Token = token
	if r.OriginalMessageID == "" && parts.original != nil {
		r.OriginalMessageID = firstID(parts.original.Get("Message-Id"))
	}
	if r.Recipient == "" && r.Type == Complaint && parts.original != nil {
		if list, err := mail.ParseAddressList(parts.original.Get("To")); err == nil && len(list) == 1 {
			r.Recipient = strings.ToLower(list[0].Address)
		}
	}
	return r, nil
}

// collected holds the parts of a report that Parse reads.
type collected struct {
	status   []byte // message/delivery-status
	feedback []byte // message/feedback-report
	original textproto.MIMEHeader
	text     string // the human-readable text parts, joined
	parts    int
}

// walk visits the MIME tree depth-first, keeping the first part of each
// kind. Reports are read wherever they are: some servers put a
// delivery-status part in multipart/mixed rather than multipart/report.
func walk(h textproto.MIMEHeader, body []byte, depth int, c *collected) {
	c.parts++
	if depth > maxDepth || c.parts > maxParts {
		return
	}
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		mt = "text/plain"
	}
	body = decodeTransfer(h.Get("Content-Transfer-Encoding"), body)
	switch {
	case strings.HasPrefix(mt, "multipart/"):
		boundary := params["boundary"]
		if boundary == "" {
			return
		}
		mr := multipart.NewReader(bytes.NewReader(body), boundary)
		for c.parts <= maxParts {
			p, err := mr.NextRawPart()
			if err != nil {
				return
			}
			b, err := io.ReadAll(p)
			if err != nil {
				return
			}
			walk(p.Header, b, depth+1, c)
		}
	case mt == "message/delivery-status" || mt == "message/global-delivery-status":
		if c.status == nil {
			c.status = body
		}
	case mt == "message/feedback-report":
		if c.feedback == nil {
			c.feedback = body
		}
	case mt == "message/rfc822" || mt == "text/rfc822-headers" || mt == "message/global" || mt == "message/global-headers":
		if c.original == nil {
			if inner, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(body, "\r\n\r\n"...)))).ReadMIMEHeader(); err == nil || len(inner) > 0 {
				c.original = inner
			}
		}
	case mt == "text/plain" || mt == "":
		if len(c.text) < MaxSize/4 {
			c.text += string(body) + "\n"
		}
	}
}

// fields reads the groups of "Name: value" lines of a delivery-status or
// feedback-report body, separated by blank lines (RFC 3464 §2.1).
func fields(body []byte) []textproto.MIMEHeader {
	var groups []textproto.MIMEHeader
	tr := textproto.NewReader(bufio.NewReader(bytes.NewReader(normalise(body))))
	for len(groups) <= maxRecipientGroups {
		g, err := tr.ReadMIMEHeader()
		if len(g) > 0 {
			groups = append(groups, g)
		}
		if err != nil {
			break
		}
	}
	return groups
}

// normalise trims leading blank lines (some servers start the part with
// one, which would end the first group before it began).
func normalise(body []byte) []byte {
	body = bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	body = bytes.TrimLeft(body, "\n \t")
	return append(body, "\n\n"...)
}

// fromStatus reads an RFC 3464 report: the first recipient block that
// failed, else the first that was delayed. A report of successful
// delivery (delivered, relayed, expanded) is no bounce.
func fromStatus(body []byte) *Report {
	groups := fields(body)
	var delayed *Report
	for i, g := range groups {
		if i == 0 && g.Get("Final-Recipient") == "" && g.Get("Original-Recipient") == "" {
			continue // the per-message fields
		}
		action := strings.ToLower(strings.TrimSpace(g.Get("Action")))
		status := statusCode(g.Get("Status"))
		diag := oneLine(g.Get("Diagnostic-Code"))
		if status == "" {
			status = statusCode(diag)
		}
		r := &Report{
			Recipient:  recipientField(g),
			Status:     status,
			Diagnostic: diag,
			Shape:      "dsn",
		}
		switch {
		case action == "failed" || (action == "" && strings.HasPrefix(status, "5")):
			r.Type = Failed
			r.Severity = severityOf(status, diag, Hard)
			return r
		case action == "delayed" || (action == "" && strings.HasPrefix(status, "4")):
			if delayed == nil {
				r.Type = Delayed
				r.Severity = Soft
				delayed = r
			}
		}
	}
	return delayed
}

// fromFeedback reads an ARF report (RFC 5965 §3.1).
func fromFeedback(body []byte) *Report {
	groups := fields(body)
	if len(groups) == 0 {
		return nil
	}
	g := groups[0]
	ft := strings.ToLower(strings.TrimSpace(g.Get("Feedback-Type")))
	if ft == "" {
		return nil
	}
	r := &Report{Type: Complaint, Severity: Hard, FeedbackType: ft, Shape: "arf"}
	if a, err := mail.ParseAddress(strings.TrimSpace(g.Get("Original-Rcpt-To"))); err == nil {
		r.Recipient = strings.ToLower(a.Address)
	}
	return r
}

// fromText reads a bounce that has no delivery-status part (qmail, old
// Exim, some webmail providers): the failed address and a status code
// found in the text, where there are any. A text that says neither
// permanent nor temporary counts as soft: an address is not given up on
// because of words azuld could not read.
func fromText(text string) *Report {
	r := &Report{Type: Failed, Severity: Soft, Shape: "text"}
	if m := textRecipient.FindStringSubmatch(text); m != nil {
		r.Recipient = strings.ToLower(m[1])
	}
	if m := enhancedCode.FindString(text); m != "" {
		r.Status = m
	} else if m := basicCode.FindStringSubmatch(text); m != nil {
		r.Status = m[1][:1] + ".0.0"
	}
	if m := diagnosticLine.FindString(text); m != "" {
		r.Diagnostic = oneLine(m)
	}
	lower := strings.ToLower(text)
	switch {
	case strings.Contains(lower, "permanent error") || strings.Contains(lower, "permanent failure") || strings.HasPrefix(r.Status, "5"):
		r.Severity = severityOf(r.Status, r.Diagnostic, Hard)
	case strings.Contains(lower, "temporary") || strings.Contains(lower, "will retry") || strings.Contains(lower, "still trying") || strings.HasPrefix(r.Status, "4"):
		r.Type = Delayed
		r.Severity = Soft
	}
	return r
}

var (
	enhancedCode   = regexp.MustCompile(`\b[245]\.\d{1,3}\.\d{1,3}\b`)
	basicCode      = regexp.MustCompile(`(?m)(?:^|[\s:(])([45]\d\d)[\s-]`)
	diagnosticLine = regexp.MustCompile(`(?m)^.*\b[45]\d\d[\s-].*$`)
	// textRecipient: the first address alone on its line, possibly in <>
	// and followed by a colon, as qmail, Exim and most webmail write it.
	textRecipient = regexp.MustCompile(`(?m)^\s*<?([A-Za-z0-9._%+\-=]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,})>?:?\s*$`)
)

// severityOf: a 5.x.x failure is hard, except the codes that say the
// mailbox is full or the message too big (RFC 3463 X.2.2, X.3.4), which
// clear up by themselves; a 4.x.x is soft.
func severityOf(status, diag string, otherwise Severity) Severity {
	switch {
	case strings.HasPrefix(status, "4"):
		return Soft
	case strings.HasSuffix(status, ".2.2") || strings.HasSuffix(status, ".3.4"):
		return Soft
	case strings.Contains(strings.ToLower(diag), "quota") || strings.Contains(strings.ToLower(diag), "mailbox full"):
		return Soft
	}
	return otherwise
}

// statusCode returns the first enhanced status code in v.
func statusCode(v string) string { return enhancedCode.FindString(v) }

// recipientField reads "rfc822; user@example.org" (Final-Recipient first).
func recipientField(g textproto.MIMEHeader) string {
	for _, k := range []string{"Final-Recipient", "Original-Recipient", "X-Actual-Recipient"} {
		v := g.Get(k)
		if _, addr, ok := strings.Cut(v, ";"); ok {
			v = addr
		}
		v = strings.ToLower(strings.Trim(strings.TrimSpace(v), "<>"))
		if strings.Count(v, "@") == 1 && !strings.ContainsAny(v, " \t") {
			return v
		}
	}
	return ""
}

// looksLikeBounce tells a bounce with no delivery-status part from other
// mail that reached a return path (auto-replies, people): it is from a
// mailer daemon or postmaster, or its subject says delivery failed.
// Auto-Submitted tells nothing here: bounces and out-of-office replies
// both carry "auto-replied" (RFC 3834).
func looksLikeBounce(h textproto.MIMEHeader) bool {
	from := strings.ToLower(h.Get("From"))
	if strings.Contains(from, "mailer-daemon@") || strings.Contains(from, "postmaster@") {
		return true
	}
	return bounceSubject.MatchString(h.Get("Subject"))
}

var bounceSubject = regexp.MustCompile(`(?i)undeliver|delivery (status notification|failure|has failed)|returned mail|failure notice|mail delivery (failed|failure|subsystem)|could not be delivered|delivery problem`)

// tokenOf returns the token of the first return path among the envelope
// recipients and the delivery headers.
func tokenOf(h textproto.MIMEHeader, domain string, envelopeRcpts []string) string {
	cands := append([]string(nil), envelopeRcpts...)
	for _, k := range []string{"Delivered-To", "X-Original-To", "To"} {
		for _, v := range h.Values(k) {
			if list, err := mail.ParseAddressList(v); err == nil {
				for _, a := range list {
					cands = append(cands, a.Address)
				}
			} else {
				cands = append(cands, v)
			}
		}
	}
	for _, c := range cands {
		if t := Token(c, domain); t != "" {
			return t
		}
	}
	return ""
}

// Token returns the token of a return path bounce+<token>@<domain> (the
// domain compared case-insensitively, the token lower-cased, of
// [a-z2-7] only), or "".
func Token(addr, domain string) string {
	addr = strings.Trim(strings.TrimSpace(addr), "<>")
	i := strings.LastIndex(addr, "@")
	if i < 0 || domain == "" || !strings.EqualFold(addr[i+1:], domain) {
		return ""
	}
	tok, ok := strings.CutPrefix(strings.ToLower(addr[:i]), LocalPrefix)
	if !ok || tok == "" || len(tok) > 64 {
		return ""
	}
	for _, r := range tok {
		if !(r >= 'a' && r <= 'z' || r >= '2' && r <= '7') {
			return ""
		}
	}
	return tok
}

// firstID returns the first <id> of a header, without the brackets.
func firstID(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, '<'); i >= 0 {
		if j := strings.IndexByte(v[i:], '>'); j > 0 {
			return v[i+1 : i+j]
		}
	}
	if v == "" || strings.ContainsAny(v, " \t<>") {
		return ""
	}
	return v
}

// oneLine folds v to one line of at most 300 bytes of valid UTF-8.
func oneLine(v string) string {
	v = strings.Join(strings.Fields(v), " ")
	if len(v) > 300 {
		v = v[:300]
	}
	return strings.ToValidUTF8(v, "")
}
