package reply

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
)

// Bounds on the MIME tree, so a hostile message cannot make Parse work for
// long: real replies nest two or three levels and have a handful of parts.
const (
	maxDepth = 8
	maxParts = 100
)

// decodeHeader decodes the encoded-words of an unstructured header. The
// standard decoder reads iso-8859-1 itself; mail programs mean
// windows-1252 by that label (Outlook's dashes and quotes), so the label is
// rewritten first.
func decodeHeader(dec *mime.WordDecoder, v string) string {
	v = latin1Label.ReplaceAllString(v, "=?windows-1252?")
	if s, err := dec.DecodeHeader(v); err == nil {
		return s
	}
	return v
}

var latin1Label = regexp.MustCompile(`(?i)=\?(iso-8859-1|us-ascii|latin1)(\*[a-z-]+)?\?`)

// wordDecoder decodes RFC 2047 encoded-words in any charset we know.
func wordDecoder() *mime.WordDecoder {
	return &mime.WordDecoder{CharsetReader: func(charset string, input io.Reader) (io.Reader, error) {
		enc, err := lookupCharset(charset)
		if err != nil {
			return nil, err
		}
		return enc.NewDecoder().Reader(input), nil
	}}
}

// lookupCharset maps a MIME charset name to its decoder, using the WHATWG
// table browsers use (so "iso-8859-1" and "us-ascii" decode as
// windows-1252, as mail programs effectively do).
func lookupCharset(name string) (encoding.Encoding, error) {
	// htmlindex knows UTF-8's labels ("utf8", "unicode-1-1-utf-8", …);
	// only a missing charset is left to say UTF-8.
	if strings.TrimSpace(name) == "" {
		return unicode.UTF8, nil
	}
	return htmlindex.Get(name)
}

// decodeCharset turns body into UTF-8. An unknown charset, or bytes that
// are not UTF-8 although they claim to be, fall back to windows-1252 (the
// usual truth of mislabelled mail); the result is always valid UTF-8.
func decodeCharset(body []byte, charset string) string {
	body = bytes.TrimPrefix(body, []byte("\ufeff"))
	enc, err := lookupCharset(charset)
	if err == nil && enc != unicode.UTF8 {
		if out, err := enc.NewDecoder().Bytes(body); err == nil {
			return strings.ToValidUTF8(string(out), "\uFFFD")
		}
	}
	if utf8.Valid(body) {
		return string(body)
	}
	// Every byte is a character in windows-1252: this cannot fail.
	out, _ := charmap.Windows1252.NewDecoder().Bytes(body)
	return string(out)
}

// decodeTransfer undoes the Content-Transfer-Encoding, leniently: what
// decodes is kept, a broken tail is dropped.
func decodeTransfer(body []byte, cte string) []byte {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "quoted-printable":
		out, _ := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
		return out
	case "base64":
		clean := make([]byte, 0, len(body))
		for _, c := range body {
			if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' {
				clean = append(clean, c)
			}
		}
		if len(clean)%4 == 1 {
			clean = clean[:len(clean)-1] // a lone sixth of a byte
		}
		out := make([]byte, base64.RawStdEncoding.DecodedLen(len(clean)))
		n, _ := base64.RawStdEncoding.Decode(out, clean)
		return out[:n]
	}
	return body
}

// walker collects the first inline text/plain and text/html bodies.
type walker struct {
	plain, html         string
	havePlain, haveHTML bool
	parts               int
}

func bodyText(h textproto.MIMEHeader, body []byte) string {
	var w walker
	w.walk(h, body, 0)
	text := w.plain
	if !w.havePlain || strings.TrimSpace(w.plain) == "" {
		if w.haveHTML {
			text = htmlToText(w.html)
		}
	}
	return normalise(text)
}

func (w *walker) walk(h textproto.MIMEHeader, body []byte, depth int) {
	w.parts++
	if w.parts > maxParts || depth > maxDepth {
		return
	}
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil { // a missing Content-Type too
		mt, params = "text/plain", map[string]string{}
	}
	if isAttachment(h, params) {
		return
	}
	switch {
	case strings.HasPrefix(mt, "multipart/"):
		boundary := params["boundary"]
		if boundary == "" {
			return
		}
		mr := multipart.NewReader(bytes.NewReader(body), boundary)
		for {
			p, err := mr.NextRawPart()
			if err != nil {
				return
			}
			data, err := io.ReadAll(io.LimitReader(p, MaxSize))
			// A truncated part (err != nil): use what arrived, then stop.
			w.walk(p.Header, data, depth+1)
			if err != nil || w.havePlain && w.haveHTML {
				return
			}
		}
	case mt == "text/plain" && !w.havePlain:
		text := decodeCharset(decodeTransfer(body, h.Get("Content-Transfer-Encoding")), params["charset"])
		if strings.EqualFold(params["format"], "flowed") {
			text = unflow(text, strings.EqualFold(params["delsp"], "yes"))
		}
		w.plain, w.havePlain = text, true
	case mt == "text/html" && !w.haveHTML:
		w.html = decodeCharset(decodeTransfer(body, h.Get("Content-Transfer-Encoding")), params["charset"])
		w.haveHTML = true
	}
}

// isAttachment tells parts that are files rather than the message text;
// ctParams are the parameters of the part's Content-Type.
func isAttachment(h textproto.MIMEHeader, ctParams map[string]string) bool {
	disp, params, err := mime.ParseMediaType(h.Get("Content-Disposition"))
	if err == nil && (disp == "attachment" || params["filename"] != "") {
		return true
	}
	return ctParams["name"] != ""
}

// unflow joins the soft line breaks of format=flowed (RFC 3676): a line
// ending in a space continues on the next one, unless it is the signature
// separator; quoted lines join only lines of the same depth; a leading
// space is space-stuffing and removed.
func unflow(text string, delSp bool) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []string
	var cur strings.Builder
	curDepth, open := 0, false
	flush := func() {
		if open {
			out = append(out, strings.Repeat(">", curDepth)+prefixSpace(curDepth)+cur.String())
			cur.Reset()
			open = false
		}
	}
	for _, line := range lines {
		depth := 0
		for depth < len(line) && line[depth] == '>' {
			depth++
		}
		content := line[depth:]
		content = strings.TrimPrefix(content, " ") // space-stuffing
		if open && depth != curDepth {
			flush()
		}
		if content == "-- " || content == "--" {
			flush()
			out = append(out, strings.Repeat(">", depth)+prefixSpace(depth)+content)
			continue
		}
		curDepth, open = depth, true
		if strings.HasSuffix(content, " ") {
			if delSp {
				content = content[:len(content)-1]
			}
			cur.WriteString(content)
			continue
		}
		cur.WriteString(content)
		flush()
	}
	flush()
	return strings.Join(out, "\n")
}

func prefixSpace(depth int) string {
	if depth > 0 {
		return " "
	}
	return ""
}

// normalise gives every text the same shape: LF line ends, no BOM, and
// non-breaking spaces as plain spaces.
func normalise(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.ReplaceAll(s, "\ufeff", "")
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\u00a0', '\u202f', '\u2007':
			return ' '
		}
		return r
	}, s)
	return s
}

// oneLine makes a header value safe to show: one line, trimmed.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
}
