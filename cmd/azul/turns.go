package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/azuld/azuld/internal/apiclient"
)

// A command (a move, a join) is stored as one or more events that share
// its command id: first what the command itself did, then what the rules
// did on their own because of it — at a round's end the wall tiling, the
// floors, the next deal. Those follow from the move; nobody made them.

// turn is one command's events: the first, the command's own, and the
// events that followed it automatically.
type turn struct {
	own  apiclient.Event
	auto []apiclient.Event
}

// commandOf tells an event's command: its id and who sent it ("" for an
// event of no command).
func commandOf(ev apiclient.Event) string {
	id := deref(ev.Meta.CommandId)
	if id == "" {
		return ""
	}
	if actor := ev.Meta.Actor; actor != nil {
		id += "\x00" + deref(actor.PlayerId) + "\x00" + deref(actor.Bot)
	}
	return id
}

// followsCommand reports whether ev came automatically from the command
// of prev, the event just before it.
func followsCommand(prev *apiclient.Event, ev apiclient.Event) bool {
	return prev != nil && commandOf(ev) != "" && commandOf(ev) == commandOf(*prev)
}

// byCommand groups events, in version order, into turns.
func byCommand(evs []apiclient.Event) []turn {
	var out []turn
	for i, ev := range evs {
		if i > 0 && len(out) > 0 && followsCommand(&evs[i-1], ev) {
			out[len(out)-1].auto = append(out[len(out)-1].auto, ev)
			continue
		}
		out = append(out, turn{own: ev})
	}
	return out
}

// aftermath sums up the events that followed a move automatically in a
// few words, for the list of a watch: the scores they left and the
// round they began ("scores Ana 9, Bob 3; round 3 began").
func (a *app) aftermath(t turn, names map[int]string) string {
	if len(t.auto) == 0 {
		return ""
	}
	scores := map[int]int{}
	round, over := 0, false
	for _, ev := range t.auto {
		seat, hasSeat := ev.Data["seat"].(float64)
		if score, ok := ev.Data["score"].(float64); ok && hasSeat {
			scores[int(seat)] = int(score)
		}
		if r, ok := ev.Data["round"].(float64); ok {
			round = max(round, int(r))
		}
		if ev.Type == "game_ended" {
			over = true
		}
	}
	var parts []string
	if len(scores) > 0 {
		seats := make([]int, 0, len(scores))
		for s := range scores {
			seats = append(seats, s)
		}
		sort.Ints(seats)
		list := make([]string, len(seats))
		for i, s := range seats {
			list[i] = fmt.Sprintf("%s %d", a.seatName(names, s), scores[s])
		}
		parts = append(parts, a.l.T("cli.watch.scores", "Scores", strings.Join(list, ", ")))
	}
	switch {
	case over:
		parts = append(parts, a.l.T("cli.watch.over"))
	case round > 0:
		parts = append(parts, a.l.T("cli.watch.round_began", "Round", round))
	}
	if len(parts) == 0 {
		return a.l.N("cli.watch.then_events", len(t.auto))
	}
	return a.l.T("cli.watch.then", "What", strings.Join(parts, "; "))
}

// seatName is a seat's name, or "seat N".
func (a *app) seatName(names map[int]string, seat int) string {
	if n := names[seat]; n != "" {
		return n
	}
	return a.l.T("cli.seat.n", "N", seat)
}

// seatNamesOf maps the seats of a state to their names (a bot's: its
// kind).
func (a *app) seatNamesOf(seats []apiclient.Seat) map[int]string {
	names := map[int]string{}
	for _, s := range seats {
		names[s.Seat] = deref(s.Name)
		if names[s.Seat] == "" && s.Bot != nil {
			names[s.Seat] = a.botName(*s.Bot)
		}
	}
	return names
}
