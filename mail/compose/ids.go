package compose

import (
	"encoding/hex"
	"strconv"
	"strings"
)

// MessageID returns "<azuld.<game>.<version>.<seat>.<kind>@<domain>>".
//
// It is deterministic: a mail rendered again for a retried delivery keeps
// its id, so the receiving side can drop the duplicate. The id is unique
// because a game, a version, a seat and a kind name one mail; a kind that
// may repeat at one version (a reminder, a refusal) carries a suffix that
// tells the occurrences apart (Reminder and Refused add the time). Game ids
// made of letters, digits, '-' and '_' are written as they are, any other
// id hex-encoded behind an 'x'; ParseMessageID reverses both.
func MessageID(s Sender, gameID string, version int64, seat int, kind string) string {
	return "<azuld." + encodeGameID(gameID) + "." + strconv.FormatInt(version, 10) + "." +
		strconv.Itoa(seat) + "." + cleanKind(kind) + "@" + strings.ToLower(s.Domain) + ">"
}

// ParseMessageID reads an id written by MessageID for domain (with or
// without the angle brackets; the domain is compared case-insensitively).
func ParseMessageID(id, domain string) (gameID string, version int64, seat int, ok bool) {
	id = strings.TrimSpace(id)
	id = strings.TrimSuffix(strings.TrimPrefix(id, "<"), ">")
	local, dom, found := strings.Cut(id, "@")
	if !found || !strings.EqualFold(dom, domain) {
		return "", 0, 0, false
	}
	parts := strings.Split(local, ".")
	if len(parts) != 5 || parts[0] != "azuld" {
		return "", 0, 0, false
	}
	gameID, okID := decodeGameID(parts[1])
	v, errV := strconv.ParseInt(parts[2], 10, 64)
	st, errS := strconv.Atoi(parts[3])
	if !okID || errV != nil || errS != nil || v < 0 || st < 0 || parts[4] == "" {
		return "", 0, 0, false
	}
	return gameID, v, st, true
}

func safeIDChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

func encodeGameID(id string) string {
	plain := id != "" && id[0] != 'x'
	for i := 0; i < len(id) && plain; i++ {
		plain = safeIDChar(id[i])
	}
	if plain {
		return id
	}
	return "x" + hex.EncodeToString([]byte(id))
}

func decodeGameID(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	if s[0] == 'x' {
		b, err := hex.DecodeString(s[1:])
		return string(b), err == nil
	}
	for i := 0; i < len(s); i++ {
		if !safeIDChar(s[i]) {
			return "", false
		}
	}
	return s, true
}

// cleanKind keeps a kind to [a-z0-9-] so it cannot break the id.
func cleanKind(kind string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(kind) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "mail"
	}
	return b.String()
}
