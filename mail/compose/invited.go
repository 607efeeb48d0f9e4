package compose

import "time"

// Mail kinds of invitations to a seat of a new game (a rematch's have
// their own: see KindRematch).
const (
	// KindInvited invites a player to the seat a new game keeps for them.
	KindInvited = "invited"
	// KindInviteDeclined tells the game's creator that an invited player
	// declined.
	KindInviteDeclined = "invitedeclined"
	// KindInviteExpired tells the game's creator that an invitation
	// expired unanswered.
	KindInviteExpired = "inviteexpired"
)

// SeatInvitation invites r to the game g, whose seat is kept for them
// until they accept or decline by answering, or it expires.
func SeatInvitation(s Sender, r Recipient, g GameInfo, inviter string, expires, now time.Time) Mail {
	l := s.localizer(r)
	d := doc{intro: []string{
		l.T("invited.mail.invitation.asks", "Inviter", cleanName(inviter, l.T("mail.someone")), "Game", gameName(l, g)),
		l.T("invited.mail.invitation.how", "Accept", firstWord(l.T("mail.command.accept")), "Decline", firstWord(l.T("mail.command.decline"))),
		l.T("invited.mail.invitation.expires", "When", when(l, expires, now)),
	}}
	return build(s, r, g, KindInvited, "invited.mail.invitation.subject", d, now)
}

// InvitationEnded tells r, who created the game g, that the invitation
// of who ended without a seat taken: declined, or expired when expired
// is set. Their seat is free for anyone now.
func InvitationEnded(s Sender, r Recipient, g GameInfo, who string, expired bool, now time.Time) Mail {
	l := s.localizer(r)
	kind, id := KindInviteDeclined, "invited.mail.declined"
	if expired {
		kind, id = KindInviteExpired, "invited.mail.expired"
	}
	d := doc{intro: []string{
		l.T(id+".line", "Name", cleanName(who, l.T("mail.a_player")), "Game", gameName(l, g)),
		l.T("rematch.mail.declined.free"),
	}}
	return build(s, r, g, kind, id+".subject", d, now)
}
