package compose

import (
	"strings"
	"time"

	"github.com/azuld/azuld/i18n"
)

// Mail kinds of rematches.
const (
	// KindRematch invites a player to the rematch that keeps a seat for
	// them.
	KindRematch = "rematch"
	// KindRematchDeclined tells the player who asked for a rematch that
	// another declined it.
	KindRematchDeclined = "rematchdeclined"
	// KindRematchCreated answers the player who asked for a rematch by
	// mail.
	KindRematchCreated = "rematchcreated"
)

// rematchHint is the game-over mail's line on how to have a rematch.
func rematchHint(l *i18n.Localizer) string {
	return l.T("rematch.mail.over_hint", "Word", firstWord(l.T("rematch.mail.command.rematch")))
}

// RematchInvitation invites r to the rematch g, whose seat is kept for
// them; inviter asked for it. They accept or decline by answering.
func RematchInvitation(s Sender, r Recipient, g GameInfo, inviter string, now time.Time) Mail {
	l := s.localizer(r)
	d := doc{intro: []string{
		l.T("rematch.mail.invitation.asks", "Inviter", cleanName(inviter, l.T("mail.someone")), "Game", gameName(l, g)),
		l.T("rematch.mail.invitation.how",
			"Accept", firstWord(l.T("mail.command.accept")), "Yes", firstWord(l.T("rematch.mail.command.yes")),
			"Decline", firstWord(l.T("mail.command.decline")), "No", firstWord(l.T("rematch.mail.command.no"))),
	}}
	return build(s, r, g, KindRematch, "rematch.mail.invitation.subject", d, now)
}

// RematchDeclined tells r, who asked for the rematch g, that who declined
// it: their seat is free for anyone now.
func RematchDeclined(s Sender, r Recipient, g GameInfo, who string, now time.Time) Mail {
	l := s.localizer(r)
	d := doc{intro: []string{
		l.T("rematch.mail.declined.line", "Name", cleanName(who, l.T("mail.a_player")), "Game", gameName(l, g)),
		l.T("rematch.mail.declined.free"),
	}}
	return build(s, r, g, KindRematchDeclined, "rematch.mail.declined.subject", d, now)
}

// RematchCreated answers r's "rematch" by mail: the rematch g exists and
// waits for the players named in awaiting (none: it has started, or
// waits for anyone to take its free seats).
func RematchCreated(s Sender, r Recipient, g GameInfo, awaiting []string, now time.Time) Mail {
	l := s.localizer(r)
	d := doc{intro: []string{l.T("rematch.mail.created.line", "Game", gameName(l, g))}}
	names := make([]string, 0, len(awaiting))
	for _, n := range awaiting {
		if n = strings.TrimSpace(cleanName(n, "")); n != "" {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		d.intro = append(d.intro, l.N("rematch.mail.created.awaiting", len(names), "Names", l.List(names)))
	}
	return build(s, r, g, KindRematchCreated, "rematch.mail.created.subject", d, now)
}
