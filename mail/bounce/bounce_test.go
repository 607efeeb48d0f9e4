package bounce

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const domain = "azul.example"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	// The samples are stored with LF; mail arrives with CRLF.
	return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
}

func TestParseSamples(t *testing.T) {
	cases := []struct {
		file string
		want Report
	}{
		{"postfix-user-unknown.eml", Report{Type: Failed, Severity: Hard, Token: "k7tq2mxa4rb3", Recipient: "ana.nowhere@example.net", Status: "5.1.1", OriginalMessageID: "turn.3f2a.12@azul.example", Shape: "dsn"}},
		{"mailbox-full.eml", Report{Type: Failed, Severity: Soft, Token: "m3zq7vwdp2aa", Recipient: "bram@example.org", Status: "5.2.2", OriginalMessageID: "reminder.77a1.9@azul.example", Shape: "dsn"}},
		{"exchange-delayed.eml", Report{Type: Delayed, Severity: Soft, Token: "c2dgh4kk5qaa", Recipient: "carla@example.com", Status: "4.4.7", Shape: "dsn"}},
		{"qmail.eml", Report{Type: Failed, Severity: Hard, Token: "p5pq2ab7xyzz", Recipient: "dora@example.com", Status: "5.0.0", Shape: "text"}},
		{"exim-text.eml", Report{Type: Delayed, Severity: Soft, Token: "w3w3w3w3w3w3", Recipient: "elena@example.it", Status: "4.7.1", Shape: "text"}},
		{"arf-abuse.eml", Report{Type: Complaint, Severity: Hard, Token: "r4r4ab2cdd7q", Recipient: "frank@example.com", FeedbackType: "abuse", OriginalMessageID: "turn.aa11.4@azul.example", Shape: "arf"}},
		{"arf-redacted.eml", Report{Type: Complaint, Severity: Hard, Token: "g2g2g2g2g2g2", Recipient: "gina@example.com", FeedbackType: "abuse", OriginalMessageID: "turn.bb22.7@azul.example", Shape: "arf"}},
		{"mixed-status.eml", Report{Type: Failed, Severity: Hard, Token: "h7h7h7h7h7h7", Recipient: "jan@example.be", Status: "5.7.1", Shape: "dsn"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got, err := Parse(read(t, c.file), domain, nil)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			diag := got.Diagnostic
			got.Diagnostic = ""
			if *got != c.want {
				t.Errorf("got  %+v\nwant %+v", *got, c.want)
			}
			if c.want.Type == Failed && diag == "" {
				t.Errorf("no diagnostic read")
			}
			if strings.ContainsAny(diag, "\r\n") || len(diag) > 300 {
				t.Errorf("diagnostic not one short line: %q", diag)
			}
		})
	}
}

func TestParseIgnoresWhatIsNoReport(t *testing.T) {
	for _, file := range []string{"delivered.eml", "vacation.eml"} {
		if r, err := Parse(read(t, file), domain, nil); !errors.Is(err, ErrNotReport) {
			t.Errorf("%s: got %+v, %v; want ErrNotReport", file, r, err)
		}
	}
	person := []byte("From: someone@example.org\r\nTo: bounce+abc@azul.example\r\nSubject: hello\r\n\r\nAre you there?\r\n")
	if _, err := Parse(person, domain, nil); !errors.Is(err, ErrNotReport) {
		t.Errorf("a person's mail: %v, want ErrNotReport", err)
	}
}

// The envelope comes first: a report forwarded by a provider may keep an
// old To header, but the SMTP recipient is where it was delivered.
func TestParseTokenFromEnvelope(t *testing.T) {
	raw := read(t, "postfix-user-unknown.eml")
	got, err := Parse(raw, domain, []string{"<BOUNCE+ZZ2ZZ2@Azul.Example>"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Token != "zz2zz2" {
		t.Errorf("token %q, want the envelope's zz2zz2", got.Token)
	}
	// Another domain's return path is not ours.
	got, err = Parse(raw, "other.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Token != "" {
		t.Errorf("token %q for another domain, want none", got.Token)
	}
}

func TestToken(t *testing.T) {
	cases := map[string]string{
		"bounce+abc2@azul.example":                            "abc2",
		"<Bounce+ABC2@AZUL.example>":                          "abc2",
		"bounce+abc1@azul.example":                            "", // 1 is not base32
		"bounce+@azul.example":                                "",
		"play+abc2@azul.example":                              "",
		"bounce+abc2@evil.example":                            "",
		"bounce+abc2":                                         "",
		"bounce+" + strings.Repeat("a", 65) + "@azul.example": "",
	}
	for in, want := range cases {
		if got := Token(in, domain); got != want {
			t.Errorf("Token(%q) = %q, want %q", in, got, want)
		}
	}
	if a := Address("abc2", domain); Token(a, domain) != "abc2" {
		t.Errorf("Address %q does not read back", a)
	}
}

func TestParseRejectsBadInput(t *testing.T) {
	if _, err := Parse(bytes.Repeat([]byte("a"), MaxSize+1), domain, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized: %v", err)
	}
	if _, err := Parse([]byte("no header at all"), domain, nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("no header: %v", err)
	}
}

// A report nested deeper than any real one, or with thousands of parts,
// is read only as far as the bounds allow, without failing.
func TestParseBoundsTheMIMETree(t *testing.T) {
	var b strings.Builder
	b.WriteString("From: MAILER-DAEMON@x.example\r\nTo: bounce+aa@azul.example\r\nContent-Type: multipart/mixed; boundary=b0\r\n\r\n")
	for i := range 40 {
		b.WriteString("--b" + itoa(i) + "\r\nContent-Type: multipart/mixed; boundary=b" + itoa(i+1) + "\r\n\r\n")
	}
	b.WriteString("--b40\r\nContent-Type: message/delivery-status\r\n\r\nFinal-Recipient: rfc822; x@y.example\r\nAction: failed\r\nStatus: 5.1.1\r\n")
	r, err := Parse([]byte(b.String()), domain, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Shape != "text" || r.Recipient == "x@y.example" {
		t.Errorf("the part below the depth bound was read: %+v", r)
	}
}

func itoa(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

func FuzzParse(f *testing.F) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".eml") {
			f.Add(read(f, e.Name()))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := Parse(raw, domain, []string{"bounce+aa@azul.example"})
		if err != nil {
			if r != nil {
				t.Fatal("a report with an error")
			}
			return
		}
		switch r.Type {
		case Failed, Delayed, Complaint:
		default:
			t.Fatalf("type %q", r.Type)
		}
		if r.Severity != Hard && r.Severity != Soft {
			t.Fatalf("severity %q", r.Severity)
		}
		if r.Type == Delayed && r.Severity != Soft {
			t.Fatal("a delay is hard")
		}
		if len(r.Diagnostic) > 300 || strings.ContainsAny(r.Diagnostic, "\r\n") {
			t.Fatalf("diagnostic %q", r.Diagnostic)
		}
		if r.Token != "aa" {
			t.Fatalf("token %q, the envelope says aa", r.Token)
		}
	})
}
