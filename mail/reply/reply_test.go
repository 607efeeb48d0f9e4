package reply

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

const domain = "azul.example.org"

func load(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func crlf(raw []byte) []byte {
	return bytes.ReplaceAll(bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
}

func TestRealWorldReplies(t *testing.T) {
	tests := []struct {
		file               string
		envFrom            string
		envRcpts           []string
		command, token     string
		from, fromName     string
		subject, inReplyTo string
		auto               bool
	}{
		{file: "gmail-top.eml", command: "F2 red 3", token: "abcdefghijklmnopqrstuvwxyz234567",
			from: "zoe.nunez@gmail.com", fromName: "Zoë Ñúñez",
			subject:   "Re: Azul Mini — your turn (game 3c4d5e6f)",
			inReplyTo: "azuld.01935f3c-7b2a-7cde-8f00-1a2b3c4d5e6f.17.0.turn@azul.example.org"},
		{file: "gmail-bottom-wrapped.eml", command: "place blue 6 w3", token: "bbbbbbbbbbbbbbbbbbbbbbbbbbbb", from: "bob@gmail.com", fromName: "Bob"},
		{file: "outlook.eml", command: "C blue floor", token: "cccccccccccccccccccccccccc", from: "anna.meier@contoso.example", fromName: "Meier, Anna",
			subject: "AW: Azul Mini – your turn (game 3c4d5e6f)"},
		{file: "outlook-original.eml", command: "", token: "dddddddddddddddddddddddddd", from: "carl@outlook.example", fromName: "Carl"},
		{file: "apple-de.eml", command: "7", token: "eeeeeeeeeeeeeeeeeeeeeeeeee", from: "juergen@icloud.example", fromName: "Jürgen Müller"},
		{file: "apple-attribution-first.eml", command: "F3 red floor", token: "ffffffffffffffffffffffffff", from: "lea@icloud.example", fromName: "Lea"},
		// The soft break joins the lines and keeps the space before it (no DelSp).
		{file: "thunderbird-flowed.eml", command: `{"type":"place","star":4,"space":6, "color":"blue","wilds":3}`, token: "gggggggggggggggggggggggggg", from: "pia@posteo.example", fromName: "Pia"},
		{file: "html-only-latin1.eml", command: "F4 black 2", token: "hhhhhhhhhhhhhhhhhhhhhhhhhh", from: "webmail@example.net", subject: "Réponse"},
		{file: "vacation.eml", command: "I am away until Monday.", token: "iiiiiiiiiiiiiiiiiiiiiiiiii", from: "max@example.net", fromName: "Max", auto: true},
		{file: "nested.eml", command: "Pass keep green green – hope that's ok", token: "jjjjjjjjjjjjjjjjjjjjjjjjjj", from: "nora@example.net", fromName: "Nora"},
		// The envelope decides the token when it names a seat address.
		{file: "nested.eml", envFrom: "nora@example.net", envRcpts: []string{"PLAY+KKKKKKKKKKKKKKKKKKKKKKKKKK@azul.example.org"},
			command: "Pass keep green green – hope that's ok", token: "kkkkkkkkkkkkkkkkkkkkkkkkkk", from: "nora@example.net", fromName: "Nora"},
		// A bounce: null envelope sender.
		{file: "gmail-top.eml", envFrom: "<>", command: "F2 red 3", token: "abcdefghijklmnopqrstuvwxyz234567", from: "zoe.nunez@gmail.com", fromName: "Zoë Ñúñez", auto: true},
	}
	for _, tt := range tests {
		for _, ending := range []string{"LF", "CRLF"} {
			t.Run(tt.file+"/"+ending+"/"+tt.envFrom, func(t *testing.T) {
				raw := load(t, tt.file)
				if ending == "CRLF" {
					raw = crlf(raw)
				}
				m, err := Parse(raw, domain, tt.envFrom, tt.envRcpts)
				if err != nil {
					t.Fatal(err)
				}
				if m.Command != tt.command {
					t.Errorf("Command = %q, want %q\ntext:\n%s", m.Command, tt.command, m.Text)
				}
				if m.Token != tt.token {
					t.Errorf("Token = %q, want %q (recipients %v)", m.Token, tt.token, m.Recipients)
				}
				if m.From != tt.from || m.FromName != tt.fromName {
					t.Errorf("From = %q %q, want %q %q", m.From, m.FromName, tt.from, tt.fromName)
				}
				if tt.subject != "" && m.Subject != tt.subject {
					t.Errorf("Subject = %q, want %q", m.Subject, tt.subject)
				}
				if tt.inReplyTo != "" && m.InReplyTo != tt.inReplyTo {
					t.Errorf("InReplyTo = %q", m.InReplyTo)
				}
				if m.Auto != tt.auto {
					t.Errorf("Auto = %v, want %v", m.Auto, tt.auto)
				}
				if strings.Contains(m.Text, "\r") {
					t.Error("Text keeps CR")
				}
			})
		}
	}
}

func TestHeaders(t *testing.T) {
	m, err := Parse(load(t, "gmail-top.eml"), domain, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.MessageID != "CAHx8=pQ+abc123@mail.gmail.com" {
		t.Errorf("MessageID = %q", m.MessageID)
	}
	if want := []string{"azuld.01935f3c-7b2a-7cde-8f00-1a2b3c4d5e6f.game@azul.example.org"}; !slices.Equal(m.References, want) {
		t.Errorf("References = %q", m.References)
	}
	m, err = Parse(load(t, "nested.eml"), domain, "", []string{"play+jjjjjjjjjjjjjjjjjjjjjjjjjj@azul.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"play+jjjjjjjjjjjjjjjjjjjjjjjjjj@azul.example.org", "someone@else.example", "friend@example.net"}
	if !slices.Equal(m.Recipients, want) {
		t.Errorf("Recipients = %q, want %q", m.Recipients, want)
	}
	// The HTML part of an HTML-only mail: scripts, styles and the title
	// are gone, the quote is quoted.
	m, err = Parse(load(t, "html-only-latin1.eml"), domain, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"alert", "color:red", "Réponse", "<"} {
		if strings.Contains(m.Text, bad) {
			t.Errorf("HTML text keeps %q:\n%s", bad, m.Text)
		}
	}
	if !strings.Contains(m.Text, "> Le 23/11/2026 à 22:00, azuld a écrit :\n> Hello\n> F1 blue 1") {
		t.Errorf("quote not kept as quoted text:\n%q", m.Text)
	}
}

func TestAutoDetection(t *testing.T) {
	base := "From: a@example.net\r\nTo: play+abc@azul.example.org\r\nSubject: x\r\n"
	for _, tt := range []struct {
		header, envFrom string
		auto            bool
	}{
		{"", "a@example.net", false},
		{"Auto-Submitted: no\r\n", "", false},
		{"Auto-Submitted: auto-generated\r\n", "", true},
		{"Precedence: bulk\r\n", "", true},
		{"Precedence: junk\r\n", "", true},
		{"Precedence: list\r\n", "", true},
		{"X-Autorespond: yes\r\n", "", true},
		{"List-Id: <games.example.net>\r\n", "", true},
		{"Return-Path: <>\r\n", "", true},
		{"", "<>", true},
		{"Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n", "", true},
	} {
		m, err := Parse([]byte(base+tt.header+"\r\n1\r\n"), domain, tt.envFrom, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Auto != tt.auto {
			t.Errorf("%q envelope %q: Auto = %v", tt.header, tt.envFrom, m.Auto)
		}
	}
	m, err := Parse([]byte("From: MAILER-DAEMON@mx.example.net\r\nTo: play+abc@azul.example.org\r\n\r\nbounce"), domain, "", nil)
	if err != nil || !m.Auto {
		t.Errorf("mailer-daemon: %v %v", m, err)
	}
}

func TestTokens(t *testing.T) {
	for _, tt := range []struct{ rcpt, token string }{
		{"play+abc234@azul.example.org", "abc234"},
		{"PLAY+ABC234@AZUL.EXAMPLE.ORG", "abc234"},
		{"play+abc@other.example.org", ""},
		{"play+abc@azul.example.org.evil.example", ""},
		{"play+@azul.example.org", ""},
		{"play+ab-c@azul.example.org", ""},
		{"play+abc0@azul.example.org", ""}, // 0, 1, 8, 9 are not base32
		{"player+abc@azul.example.org", ""},
		{"postmaster@azul.example.org", ""},
	} {
		m, err := Parse([]byte("From: a@example.net\r\nTo: "+tt.rcpt+"\r\n\r\n1\r\n"), domain, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Token != tt.token {
			t.Errorf("%s: Token = %q, want %q", tt.rcpt, m.Token, tt.token)
		}
	}
}

func TestErrors(t *testing.T) {
	big := append([]byte("From: a@example.net\r\n\r\n"), bytes.Repeat([]byte("x"), MaxSize)...)
	if _, err := Parse(big, domain, "", nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("large: %v", err)
	}
	for _, bad := range []string{"", "no header here", "From a@b\r\n\r\nx", "\x00\x01\x02"} {
		if _, err := Parse([]byte(bad), domain, "", nil); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestFirstCommandLine(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"3", "3"},
		{"\n\n  F2 red 3  \n", "F2 red 3"},
		{"\ufeffF1   orange\n", "F1 orange"},
		{"F1\u00a0orange", "F1 orange"},
		{"> quoted\n>> deeper\n\nstop\n", "stop"},
		{"-- \nsignature only\n", ""},
		{"--\nsignature only\n", ""},
		{"On Mon, 23 Nov 2026 at 22:00, azuld <a@b> wrote:\n> x\n\n12", "12"},
		{"On Mon, Nov 23, 2026 at 10:00 PM azuld <\na@b> wrote:\n> x\n\n12", "12"},
		{"Op ma 23 nov. 2026 om 22:00 schreef azuld <a@b>:\n> x\n4", "4"},
		{"Il giorno lun 23 nov 2026 alle ore 22:00 azuld <a@b> ha scritto:\n> x\n5", "5"},
		{"Am 23.11.2026 um 22:00 schrieb azuld:\n> x\n6", "6"},
		{"On second thought: F2 red 3\n", "On second thought: F2 red 3"},
		{"-----Original Message-----\nFrom: azuld\n1", ""},
		{"From: azuld <a@b>\nSent: Monday\nTo: x\n\n1", ""},
		{"From: me, the move is 3", "From: me, the move is 3"},
		{"a\rb", "a"},
		{"x\u2028y", "x"},
		{"\u200b\u200b\n7", "7"},
		{"", ""},
	} {
		got := FirstCommandLine(tt.text)
		if got != tt.want {
			t.Errorf("FirstCommandLine(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestUnflow(t *testing.T) {
	got := unflow("a long \nline\n> quoted \n> more\n-- \nsig", false)
	want := "a long line\n> quoted more\n-- \nsig"
	if got != want {
		t.Errorf("unflow = %q, want %q", got, want)
	}
	if got := unflow("ab \ncd", true); got != "abcd" {
		t.Errorf("DelSp unflow = %q", got)
	}
	if got := unflow(" From the start", false); got != "From the start" {
		t.Errorf("space-stuffed = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".eml") {
			f.Add(load(f, e.Name()), "")
		}
	}
	f.Add([]byte("Content-Type: multipart/mixed; boundary=a\r\n\r\n--a\r\nContent-Type: multipart/mixed; boundary=a\r\n\r\n--a\r\n"), "<>")
	f.Add([]byte("Content-Type: text/html\r\n\r\n<blockquote><blockquote>x<br>y</blockquote>z"), "a@b")
	f.Fuzz(func(t *testing.T, raw []byte, envFrom string) {
		m, err := Parse(raw, domain, envFrom, []string{"play+abc@azul.example.org"})
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error of unknown kind: %v", err)
			}
			return
		}
		if strings.ContainsAny(m.Command, "\r\n\u2028\u2029\u0085\v\f") {
			t.Fatalf("Command with a line break: %q", m.Command)
		}
		if m.Command != strings.TrimSpace(m.Command) || !utf8.ValidString(m.Command) {
			t.Fatalf("Command not trimmed valid UTF-8: %q", m.Command)
		}
		if m.Token != "abc" {
			t.Fatalf("Token = %q despite the envelope", m.Token)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"gmail-top.eml", "outlook.eml", "html-only-latin1.eml"} {
		raw := crlf(load(b, name))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := Parse(raw, domain, "a@example.net", nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestHostileShapesStaySmall feeds shapes that could make the text much
// larger than the mail; the text must stay in proportion.
func TestHostileShapesStaySmall(t *testing.T) {
	deep := "Content-Type: text/html\r\n\r\n" + strings.Repeat("<blockquote>", 40000) + strings.Repeat("x<br>", 40000)
	var nested strings.Builder
	nested.WriteString("Content-Type: multipart/mixed; boundary=b0\r\n\r\n")
	for i := 1; i < 50; i++ {
		fmt.Fprintf(&nested, "--b%d\r\nContent-Type: multipart/mixed; boundary=b%d\r\n\r\n", i-1, i)
	}
	nested.WriteString("--b49\r\nContent-Type: text/plain\r\n\r\ndeep\r\n")
	for name, raw := range map[string]string{"blockquotes": deep, "multiparts": nested.String()} {
		m, err := Parse([]byte(raw), domain, "", nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(m.Text) > 4*len(raw) {
			t.Errorf("%s: %d bytes of text from %d bytes of mail", name, len(m.Text), len(raw))
		}
	}
}

func TestHTMLToTextKeepsSpacesAroundInlineTags(t *testing.T) {
	for _, tt := range []struct{ html, want string }{
		{"<p>Take <b>blue</b> from 2</p>", "Take blue from 2\n"},
		{"hello <i>x</i>", "hello x"},
		{"<span>F1</span> <span>red</span>", "F1 red"},
		{"<div>a</div>\n<div>b</div>", "a\nb\n"},
	} {
		if got := htmlToText(tt.html); got != tt.want {
			t.Errorf("htmlToText(%q) = %q, want %q", tt.html, got, tt.want)
		}
	}
}

func TestDecodeCharset(t *testing.T) {
	for _, tt := range []struct{ body, charset, want string }{
		{"caf\xc3\xa9", "utf-8", "café"},
		{"caf\xc3\xa9", "", "café"},
		{"caf\xe9 \x93x\x94", "iso-8859-1", "café “x”"},
		// Mislabelled or unknown: windows-1252.
		{"caf\xe9", "utf-8", "café"},
		{"caf\xe9", "x-no-such-charset", "café"},
		{"\ufeffF1", "UTF8", "F1"},
	} {
		if got := decodeCharset([]byte(tt.body), tt.charset); got != tt.want {
			t.Errorf("decodeCharset(%q, %q) = %q, want %q", tt.body, tt.charset, got, tt.want)
		}
	}
}
