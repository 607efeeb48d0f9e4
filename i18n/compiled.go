package i18n

import (
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
)

// compiled is a message split into literal text and named placeholders,
// per plural form. Messages are plain {{.Name}} substitutions, so most
// render without text/template (go-i18n's renderer, kept for anything
// richer): a page or mail says hundreds of them.
type compiled struct {
	forms map[plural.Form][]segment
	// rich is set when a form uses more of the template language than
	// {{.Name}}; such messages render through go-i18n.
	rich bool
}

// segment is literal text, or a placeholder when name is set.
type segment struct {
	text, name string
}

var formNames = map[string]plural.Form{
	"zero": plural.Zero, "one": plural.One, "two": plural.Two,
	"few": plural.Few, "many": plural.Many, "other": plural.Other,
}

func compileAll(msgs map[string]map[string]string) map[string]*compiled {
	out := make(map[string]*compiled, len(msgs))
	for id, forms := range msgs {
		c := &compiled{forms: map[plural.Form][]segment{}}
		for name, text := range forms {
			segs, ok := split(text)
			if !ok {
				c.rich = true
			}
			c.forms[formNames[name]] = segs
		}
		out[id] = c
	}
	return out
}

// split cuts text at {{.Name}} placeholders; ok is false when it holds
// any other template action.
func split(text string) (segs []segment, ok bool) {
	for {
		open := strings.Index(text, "{{")
		if open < 0 {
			if text != "" {
				segs = append(segs, segment{text: text})
			}
			return segs, true
		}
		end := strings.Index(text[open:], "}}")
		if end < 0 {
			return nil, false
		}
		action := strings.TrimSpace(text[open+2 : open+end])
		if !strings.HasPrefix(action, ".") || strings.ContainsAny(action[1:], " .|()\"") || len(action) < 2 {
			return nil, false
		}
		if open > 0 {
			segs = append(segs, segment{text: text[:open]})
		}
		segs = append(segs, segment{name: action[1:]})
		text = text[open+end+2:]
	}
}

// render fills the form that count selects (Other without a count);
// value gives a placeholder's text. ok is false when a placeholder has no
// value, so the caller can let go-i18n say what is wrong.
func (c *compiled) render(tag language.Tag, count *int, value func(name string) (string, bool)) (string, bool) {
	form := plural.Other
	if count != nil {
		n := *count
		if n < 0 {
			n = -n
		}
		form = plural.Cardinal.MatchPlural(tag, n, 0, 0, 0, 0)
	}
	segs, ok := c.forms[form]
	if !ok {
		segs, ok = c.forms[plural.Other]
		if !ok {
			return "", false
		}
	}
	if len(segs) == 1 && segs[0].name == "" {
		return segs[0].text, true
	}
	var b strings.Builder
	for _, s := range segs {
		if s.name == "" {
			b.WriteString(s.text)
			continue
		}
		v, ok := value(s.name)
		if !ok {
			return "", false
		}
		b.WriteString(v)
	}
	return b.String(), true
}
