package play

import "testing"

// Names are shown to players and printed in mails: a link or an address
// in one is refused, ordinary names (with dots, hyphens, numbers) pass.
func TestLinkInName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"Claim prize at http://evil.example/win", "https://x", "hxxp://x", "www.evil", "WWW.Evil",
		"evil.example/win", "evil.example:8080", "evil.com", "go to evil.co.uk now", "Evil.Shop",
		"ana@evil.example", "mail me: a.b@c.de", "evil。com", "evil．com",
	} {
		if !linkInName(name) {
			t.Errorf("%q passes as a name", name)
		}
	}
	for _, name := range []string{
		"Ana", "J.R.R. Tolkien", "Anna.Maria", "Dr. Who", "Bot 3.5", "Ana-Maria", "Ana B.", "v1.2", "@ana", "Ana+Bo", "Zoë",
	} {
		if linkInName(name) {
			t.Errorf("%q is refused as a link", name)
		}
	}
}

// ValidPlayer says why: the code name_link.
func TestValidPlayerRefusesLinks(t *testing.T) {
	t.Parallel()
	_, _, err := ValidPlayer("Hello Claim prize at evil.example/win", "")
	input, ok := err.(*InputError)
	if !ok || input.Code != "name_link" {
		t.Fatalf("error %v, want code name_link", err)
	}
}
