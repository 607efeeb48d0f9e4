package notify

import (
	"errors"
	"strings"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
)

// reasonText is a refusal's reason in the reader's words.
func (n *Notifier) reasonText(l *i18n.Localizer, ruleset string, a MailArgs) string {
	args := a.ReasonArgs
	switch a.ReasonID {
	case "":
		// A job queued by an older server, which wrote the reason in English.
		return a.Reason
	case "rule":
		id := "rule." + args["rule"]
		if !l.Catalogue().Has(id) {
			return l.T("mail.refusal.rule_id", "Rule", args["rule"])
		}
		return l.T("mail.refusal.rule", "Rule", l.T(id))
	case "ambiguous":
		_, err := n.cfg.Words.Read(l.Lang(), ruleset, args["command"])
		var amb *notation.AmbiguousError
		if errors.As(err, &amb) {
			return amb.Message()
		}
		return l.T("mail.refusal.unreadable", "Move", oneLineOf(args["command"]))
	case "unreadable":
		return l.T("mail.refusal.unreadable", "Move", oneLineOf(args["move"]))
	case "moved_on":
		return l.T("mail.refusal.moved_on", "Answered", args["answered"], "Now", args["now"], "Number", args["number"])
	case "no_such_number":
		return l.T("mail.refusal.no_such_number", "Number", args["number"], "Max", args["max"])
	case "undo_count":
		return l.T("mail.refusal.undo_count", "Undo", firstOf(l.T("mail.command.undo")), "Max", args["max"])
	case "talk_limited":
		return l.T("talkmail.refusal.limited")
	case "rematch_answer", "invitation_answer":
		return l.T("mail.refusal."+a.ReasonID, "Accept", firstOf(l.T("mail.command.accept")), "Decline", firstOf(l.T("mail.command.decline")))
	}
	return l.T("mail.refusal." + a.ReasonID)
}

// firstOf is the first of a comma-separated list of words.
func firstOf(list string) string {
	w, _, _ := strings.Cut(list, ",")
	return strings.TrimSpace(w)
}

// oneLineOf keeps what a player wrote to one short line.
func oneLineOf(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return s
}
