// Package redact keeps secrets out of logs: the tokens that sit in paths
// (sign-in links, invitations), in query values (stop links) and in the
// local parts of azuld's own addresses (play+<token>@, bounce+<token>@).
// A token read from a log line would otherwise work for whoever reads it.
package redact

import (
	"context"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
)

// Mark replaces a secret.
const Mark = "REDACTED"

// secretWords are the parts of a route parameter's or query value's
// name that say it holds a secret.
var secretWords = []string{"token", "key", "secret", "sig", "password", "passwd", "auth", "code"}

// SecretName tells whether a parameter named name holds a secret:
// token, key, secret, sig… in any case, as the whole name or a part of
// it (invite_token, apiKey, signature).
func SecretName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// secretPrefixes are paths whose next segment is a secret whether or not
// the router matched the request: a link pasted with a typo (a 404) is
// still a live token.
var secretPrefixes = []string{"/signin/link/", "/invite/"}

// Path is path with its secret segments replaced by Mark. route is the
// router's pattern for it ("/signin/link/:token"; "" or anything without
// parameters when unmatched): each segment bound to a parameter with a
// secret name is replaced, and so is the segment after each of
// secretPrefixes.
func Path(path, route string) string {
	segs := strings.Split(path, "/")
	if route != "" {
		rsegs := strings.Split(route, "/")
		for i, r := range rsegs {
			if i >= len(segs) {
				break
			}
			switch {
			case strings.HasPrefix(r, ":") && SecretName(r[1:]):
				segs[i] = Mark
			case r == "*" && SecretName(route):
				// A wildcard under a secret-looking route: all of the rest.
				segs = append(segs[:i], Mark)
			}
		}
	}
	out := strings.Join(segs, "/")
	for _, p := range secretPrefixes {
		out = redactAfter(out, p)
	}
	return out
}

// redactAfter replaces the segment after every occurrence of prefix.
func redactAfter(s, prefix string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, prefix)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+len(prefix)])
		rest := s[i+len(prefix):]
		end := strings.IndexAny(rest, "/?#\" \t\r\n")
		if end < 0 {
			end = len(rest)
		}
		if end > 0 {
			b.WriteString(Mark)
		}
		s = rest[end:]
	}
}

// Query is a raw query with the value of every secret-named parameter
// replaced by Mark; a query that does not parse is replaced whole.
func Query(raw string) string {
	if raw == "" {
		return ""
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return Mark
	}
	for name, vs := range q {
		if SecretName(name) {
			for i := range vs {
				vs[i] = Mark
			}
		}
	}
	return q.Encode()
}

// URL is a URL (absolute or a path with a query) with its secret path
// segments and query values replaced.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return Text(raw)
	}
	u.Path = Path(u.Path, "")
	u.RawPath = ""
	u.RawQuery = Query(u.RawQuery)
	u.User = nil
	return u.String()
}

// taggedLocal is a local part with a tag: play+<token>@, bounce+<token>@.
// The tag of azuld's own addresses is a token; of a player's address a
// mere label, but which is which the log cannot tell, and the tag is
// not needed to read a log.
var taggedLocal = regexp.MustCompile(`([A-Za-z0-9._%-]+)\+[^@\s"<>,;]+@`)

// secretQuery is name=value in a query or a form with a secret name.
var secretQuery = regexp.MustCompile(`(?i)([?&;](?:[a-z0-9_.-]*(?:token|key|secret|sig|password|auth|code)[a-z0-9_.-]*)=)[^&#\s"]+`)

// Address is an address with its tag, if any, replaced:
// play+abc@mail.example is logged as play+REDACTED@mail.example.
func Address(addr string) string {
	return taggedLocal.ReplaceAllString(addr, "${1}+"+Mark+"@")
}

// Addresses applies Address to each.
func Addresses(addrs []string) []string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = Address(a)
	}
	return out
}

// Text is free text (a message, an error) with every secret shape this
// package knows replaced: the segments after the secret paths, secret
// query values, address tags.
func Text(s string) string {
	for _, p := range secretPrefixes {
		if strings.Contains(s, p) {
			s = redactAfter(s, p)
		}
	}
	if strings.ContainsRune(s, '=') {
		s = secretQuery.ReplaceAllString(s, "${1}"+Mark)
	}
	if strings.ContainsRune(s, '+') {
		s = Address(s)
	}
	return s
}

// Handler wraps h so that every string in a record (its message, its
// attributes, in groups and in the attributes of With) goes through
// Text first: whatever a package logs, a token in it does not reach the
// log. It is the net under the places that redact what they log
// themselves.
func Handler(h slog.Handler) slog.Handler { return handler{h} }

type handler struct{ next slog.Handler }

func (h handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, Text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = attr(a)
	}
	return handler{h.next.WithAttrs(clean)}
}

func (h handler) WithGroup(name string) slog.Handler { return handler{h.next.WithGroup(name)} }

// attr redacts one attribute, resolving LogValuers and errors to text.
func attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, Text(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, x := range g {
			clean[i] = attr(x)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, Text(x.Error()))
		case []string:
			clean := make([]string, len(x))
			for i, s := range x {
				clean[i] = Text(s)
			}
			return slog.Any(a.Key, clean)
		case interface{ String() string }:
			return slog.String(a.Key, Text(x.String()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
