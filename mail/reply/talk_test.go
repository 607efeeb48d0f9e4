package reply

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOwnTextOfRealReplies(t *testing.T) {
	for _, tt := range []struct {
		file             string
		first, rest, all string
	}{
		{file: "talk-gmail-nl.eml", first: "F2 rood 3",
			rest: "Sorry dat het zo lang duurde, ik was het hele weekend weg.\nVolgende keer ben ik sneller!",
			all:  "F2 rood 3\n\nSorry dat het zo lang duurde, ik was het hele weekend weg.\nVolgende keer ben ik sneller!"},
		{file: "talk-outlook-de.eml", first: "C blau Boden",
			rest: "Schade um die blauen Fliesen – aber der Boden war leider die einzige Möglichkeit.",
			all:  "C blau Boden\n\nSchade um die blauen Fliesen – aber der Boden war leider die einzige Möglichkeit."},
		{file: "talk-apple-it.eml", first: "Bella partita finora! Non so ancora cosa fare, ci penso stasera.",
			rest: "", all: "Bella partita finora! Non so ancora cosa fare, ci penso stasera."},
		// Bottom-posted between quotes: both own paragraphs, the quote
		// between them a blank line; the signature left out.
		{file: "talk-thunderbird-en.eml", first: "F1 orange 2",
			rest: "Ann, that was a mean move! I had my eye on those orange tiles for two rounds.\n\nGood luck everyone.",
			all:  "F1 orange 2\n\nAnn, that was a mean move! I had my eye on those orange tiles for two rounds.\n\nGood luck everyone."},
		// The corpus of moves: no message beside the move.
		{file: "gmail-top.eml", first: "F2 red 3", all: "F2 red 3"},
		{file: "gmail-bottom-wrapped.eml", first: "place blue 6 w3", all: "place blue 6 w3"},
		{file: "outlook.eml", first: "C blue floor", all: "C blue floor"},
		{file: "outlook-original.eml"},
		{file: "apple-de.eml", first: "7", all: "7"},
		{file: "apple-attribution-first.eml", first: "F3 red floor", all: "F3 red floor"},
		{file: "nested.eml", first: "Pass keep green green – hope that's ok", all: "Pass keep green green – hope that's ok"},
	} {
		for _, ending := range []string{"LF", "CRLF"} {
			t.Run(tt.file+"/"+ending, func(t *testing.T) {
				raw := load(t, tt.file)
				if ending == "CRLF" {
					raw = crlf(raw)
				}
				m, err := Parse(raw, domain, "", nil)
				if err != nil {
					t.Fatal(err)
				}
				o := OwnText(m.Text)
				if o.First != m.Command || o.First != tt.first {
					t.Errorf("First = %q (Command %q), want %q", o.First, m.Command, tt.first)
				}
				if o.Rest != tt.rest {
					t.Errorf("Rest = %q, want %q\ntext:\n%s", o.Rest, tt.rest, m.Text)
				}
				if o.All != tt.all {
					t.Errorf("All = %q, want %q", o.All, tt.all)
				}
			})
		}
	}
}

func TestOwnText(t *testing.T) {
	long := strings.Repeat("é", 600)
	for _, tt := range []struct {
		name, text, first, rest, all string
	}{
		{"move only", "3\n", "3", "", "3"},
		{"move and message", "F2 red 3\nNice one, Bob.\n", "F2 red 3", "Nice one, Bob.", "F2 red 3\nNice one, Bob."},
		{"paragraphs", "\n\nF2 red 3\n\n\n\nfirst\n\n\nsecond\n\n", "F2 red 3", "first\n\nsecond", "F2 red 3\n\nfirst\n\nsecond"},
		{"inner spaces collapsed", "1\n  well   played\t!  ", "1", "well played !", "1\nwell played !"},
		{"signature", "1\nhi\n-- \nAnn\nhttps://ann.example\n", "1", "hi", "1\nhi"},
		{"signature without space", "1\nhi\n--\nAnn", "1", "hi", "1\nhi"},
		{"gmail attribution", "1\nhi\n\nOn Mon, 23 Nov 2026 at 22:00, azuld <a@b> wrote:\n> Hello\n> you", "1", "hi", "1\nhi"},
		{"wrapped attribution", "On Mon, Nov 23, 2026 at 10:00 PM azuld <\na@b> wrote:\n> x\n\n12\ngg", "12", "gg", "12\ngg"},
		{"dutch", "Op ma 23 nov. 2026 om 22:00 schreef azuld <a@b>:\n> x\n4\nleuk spel", "4", "leuk spel", "4\nleuk spel"},
		{"german", "6\nbis morgen\nAm 23.11.2026 um 22:00 schrieb azuld:\n> x", "6", "bis morgen", "6\nbis morgen"},
		{"italian", "5\na domani\n\nIl giorno lun 23 nov 2026 alle ore 22:00 azuld <a@b> ha scritto:\n> x", "5", "a domani", "5\na domani"},
		{"outlook original", "1\nsee you\n-----Original Message-----\nFrom: azuld\nhidden", "1", "see you", "1\nsee you"},
		{"outlook headers", "1\nsee you\nFrom: azuld <a@b>\nSent: Monday\nTo: x\n\nhidden", "1", "see you", "1\nsee you"},
		{"outlook underscores", "1\nsee you\n________________________________\nVon: azuld\nhidden", "1", "see you", "1\nsee you"},
		{"forwarded", "hello\n---------- Forwarded message ---------\nFrom: x\nhidden", "hello", "", "hello"},
		{"iphone en", "1\nok\n\nSent from my iPhone", "1", "ok", "1\nok"},
		{"iphone nl", "1\nok\n\nVerstuurd vanaf mijn iPhone\n", "1", "ok", "1\nok"},
		{"iphone de", "1\nok\nVon meinem iPhone gesendet", "1", "ok", "1\nok"},
		{"iphone it", "1\nok\nInviato da iPhone", "1", "ok", "1\nok"},
		{"outlook mobile", "1\nok\n\nGet Outlook for Android", "1", "ok", "1\nok"},
		{"closing and name", "1\nthanks for the game\n\nKind regards,\nAnna Meier\n", "1", "thanks for the game", "1\nthanks for the game"},
		{"closing nl", "1\nGroeten,\nSanne", "1", "", "1"},
		{"closing it", "1\ngrazie!\nCordiali saluti\nGiulia Rossi", "1", "grazie!", "1\ngrazie!"},
		{"closing then mobile", "1\nLG\nJürgen\n\nVon meinem iPad gesendet", "1", "", "1"},
		{"thanks is a message when it is not at the end with a name", "1\nThanks!\nThat was fun, see you in the next round.", "1", "Thanks!\nThat was fun, see you in the next round.", "1\nThanks!\nThat was fun, see you in the next round."},
		{"a sentence that starts like a mobile line stays", "1\nSent from my phone because I am on the train, sorry for the delay and the short note here today", "1",
			"Sent from my phone because I am on the train, sorry for the delay and the short note here today",
			"1\nSent from my phone because I am on the train, sorry for the delay and the short note here today"},
		{"only quote", "> x\n> y\n", "", "", ""},
		{"empty", "", "", "", ""},
		{"capped", "1\n" + long, "1", strings.Repeat("é", 499) + "…", "1\n" + strings.Repeat("é", 497) + "…"},
		{"invisible characters", "\u200b1\n\u200bhi\u200d\n", "1", "hi", "1\nhi"},
		{"bidi marks dropped", "1\nabc\u202edef\n\u2066\n\nx", "1", "abcdef\n\nx", "1\nabcdef\n\nx"},
		{"line separators", "1\u2028hi\u2029there", "1", "hi\nthere", "1\nhi\nthere"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := OwnText(tt.text)
			if o.First != tt.first || o.Rest != tt.rest || o.All != tt.all {
				t.Errorf("OwnText(%q)\n = %q / %q / %q\nwant %q / %q / %q", tt.text, o.First, o.Rest, o.All, tt.first, tt.rest, tt.all)
			}
			if o.First != FirstCommandLine(tt.text) {
				t.Errorf("First %q is not FirstCommandLine %q", o.First, FirstCommandLine(tt.text))
			}
		})
	}
}

func FuzzOwnText(f *testing.F) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".eml") {
			if m, err := Parse(load(f, e.Name()), domain, "", nil); err == nil {
				f.Add(m.Text)
			}
		}
	}
	f.Add("1\nhi\n-- \nsig")
	f.Add("On a\n\nb wrote:\n> x\n1\n\n\nfoo\nRegards,\nX")
	f.Add("1\u2028\u2029\v\f\u0085x")
	f.Fuzz(func(t *testing.T, text string) {
		o := OwnText(text)
		if o.First != FirstCommandLine(text) {
			t.Fatalf("First %q, FirstCommandLine %q", o.First, FirstCommandLine(text))
		}
		for _, s := range []string{o.Rest, o.All} {
			if !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxMessageRunes {
				t.Fatalf("message not valid or too long: %d runes", utf8.RuneCountInString(s))
			}
			if s != strings.TrimSpace(s) {
				t.Fatalf("message not trimmed: %q", s)
			}
			if strings.Contains(s, "\n\n\n") || strings.ContainsAny(s, "\r\v\f\u2028\u2029\u0085\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c") {
				t.Fatalf("message with bad line breaks: %q", s)
			}
			for _, l := range strings.Split(s, "\n") {
				if strings.HasPrefix(l, ">") {
					t.Fatalf("quoted line in the message: %q", s)
				}
			}
		}
		if o.Rest != "" && o.All == "" {
			t.Fatalf("Rest %q without All", o.Rest)
		}
	})
}
