package reply

import (
	"strings"

	"golang.org/x/net/html"
)

// htmlToText turns an HTML body into the text a reader sees: tags
// dropped, script, style and head content dropped, entities unescaped, a
// line break for <br> and around block elements, and the content of
// <blockquote> (how mail programs quote) prefixed with "> ".
func htmlToText(src string) string {
	z := html.NewTokenizer(strings.NewReader(src))
	var b strings.Builder
	quote := 0 // blockquote depth
	skip := 0  // inside script/style/head/title
	atLineStart := true
	newline := func() {
		b.WriteByte('\n')
		atLineStart = true
	}
	for {
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip > 0 {
				continue
			}
			// Text consumes the token's text: read it once.
			raw := string(z.Text())
			// Source line breaks are not visible breaks in HTML.
			text := strings.Join(strings.FieldsFunc(raw, func(r rune) bool {
				return r == '\n' || r == '\r' || r == '\t' || r == ' '
			}), " ")
			if text == "" {
				if !atLineStart && strings.ContainsAny(raw, " \t\n\r") {
					b.WriteByte(' ')
				}
				continue
			}
			if atLineStart {
				// Capped: the depth only has to say "quoted", and a hostile
				// nesting must not multiply the text.
				b.WriteString(strings.Repeat("> ", min(quote, maxQuoteDepth)))
				atLineStart = false
			} else if startsWithSpace(raw) {
				b.WriteByte(' ')
			}
			b.WriteString(text)
			if endsWithSpace(raw) {
				b.WriteByte(' ')
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch tag := string(name); tag {
			case "script", "style", "head", "title", "template", "noscript":
				if tt == html.StartTagToken {
					skip++
				}
			case "br":
				newline()
			case "blockquote":
				if !atLineStart {
					newline()
				}
				quote++
			default:
				if isBlock(tag) && !atLineStart {
					newline()
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch tag := string(name); tag {
			case "script", "style", "head", "title", "template", "noscript":
				if skip > 0 {
					skip--
				}
			case "blockquote":
				if !atLineStart {
					newline()
				}
				if quote > 0 {
					quote--
				}
			default:
				if isBlock(tag) && !atLineStart {
					newline()
				}
			}
		}
	}
}

// maxQuoteDepth is the deepest quote marker htmlToText writes.
const maxQuoteDepth = 4

func startsWithSpace(s string) bool { return s != "" && strings.ContainsRune(" \t\n\r", rune(s[0])) }
func endsWithSpace(s string) bool {
	return s != "" && strings.ContainsRune(" \t\n\r", rune(s[len(s)-1]))
}

func isBlock(tag string) bool {
	switch tag {
	case "p", "div", "tr", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6",
		"pre", "hr", "section", "article", "header", "footer", "dd", "dt", "dl", "address", "body":
		return true
	}
	return false
}
