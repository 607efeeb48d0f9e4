package play

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/projections"
)

// FuzzAnonymise: whatever the payloads of an imported log, anonymise
// never panics, and what it lets through names no player by the log's
// ids: every actor and every seat of game.created is an opaque id.
func FuzzAnonymise(f *testing.F) {
	f.Add(`{"config":{"ruleset":"azul-mini","players":2},"seats":[{"seat":0,"player_id":"a"},{"seat":1,"reserved":"b"}],"created_by":"a"}`,
		`{"seat":1,"player_id":"b"}`, "a")
	f.Add(`{"seats":[{"player_id":7}]}`, `{"player_id":null}`, "")
	f.Add(`{"seats":null,"created_by":""}`, `[]`, "leave:a")
	f.Add(`not json`, `{}`, "a")
	f.Fuzz(func(t *testing.T, created, joined, actor string) {
		recs := []events.Record{
			{Version: 1, Type: EvGameCreated, Schema: 1, Data: json.RawMessage(created), Meta: events.Meta{Actor: events.Actor{Kind: "player", PlayerID: actor}, CommandID: "leave:" + actor}},
			{Version: 2, Type: EvSeatJoined, Schema: 1, Data: json.RawMessage(joined), Meta: events.Meta{Actor: events.Actor{Kind: "player", PlayerID: actor}}},
		}
		out, err := anonymise(recs)
		if err != nil {
			return
		}
		for _, rec := range out {
			if id := rec.Meta.Actor.PlayerID; (id != "") != (actor != "") || (id != "" && !projections.ImportedPlayer(id)) {
				t.Fatalf("actor %q became %q", actor, id)
			}
			if id, ok := strings.CutPrefix(rec.Meta.CommandID, leaveCommand); ok && id != "" && !projections.ImportedPlayer(id) {
				t.Fatalf("command id %q names %q", rec.Meta.CommandID, id)
			}
		}
		var c struct {
			Seats []struct {
				PlayerID string `json:"player_id"`
				Reserved string `json:"reserved"`
			} `json:"seats"`
			CreatedBy string `json:"created_by"`
		}
		if json.Unmarshal(out[0].Data, &c) != nil {
			return
		}
		for _, id := range []string{c.CreatedBy} {
			if id != "" && !projections.ImportedPlayer(id) {
				t.Fatalf("created_by %q", id)
			}
		}
		for _, s := range c.Seats {
			for _, id := range []string{s.PlayerID, s.Reserved} {
				if id != "" && !projections.ImportedPlayer(id) {
					t.Fatalf("seat names %q", id)
				}
			}
		}
	})
}
