package play

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/azuld/azuld/events"
)

// newImportedPlayerID is a fresh opaque id for a player an imported log
// names: a random UUID marked as version 8, a form no account's id takes
// (see projections.ImportedPlayer).
func newImportedPlayerID() string {
	u := uuid.New()
	u[6] = u[6]&0x0f | 0x80
	return u.String()
}

// importedIDs gives every player an imported log names an opaque id of
// its own, the same one for every mention in the log.
type importedIDs map[string]string

// of is the opaque id that stands for id ("" stays "").
func (m importedIDs) of(id string) string {
	if id == "" {
		return ""
	}
	if n, ok := m[id]; ok {
		return n
	}
	n := newImportedPlayerID()
	m[id] = n
	return n
}

// anonymise replaces, in every record of an imported log, the ids of the
// players it names by opaque ids: an exported log is a file anyone can
// write, so the ids it names prove nothing, and a seat that kept one
// would count a game that player never played among their results,
// games and turns. The fairness check never reads these ids (it derives
// the engine events from the seed and the recorded commands, which name
// seats), so the log still verifies; and each player keeps one id, so
// whose command is whose (a take-back's batches) stays as it was.
func anonymise(recs []events.Record) ([]events.Record, error) {
	ids := importedIDs{}
	out := make([]events.Record, len(recs))
	for i, rec := range recs {
		var err error
		switch rec.Type {
		case EvGameCreated:
			rec, err = anonymiseCreated(rec, ids)
		case EvSeatJoined, EvReservationDeclined, EvReservationExpired:
			rec, err = replaceField(rec, "player_id", ids)
		}
		if err != nil {
			return nil, fmt.Errorf("version %d: %w", rec.Version, err)
		}
		rec.Meta.Actor.PlayerID = ids.of(rec.Meta.Actor.PlayerID)
		// The command id the server gives a player's leaving holds their
		// id (see leave.go).
		if id, ok := strings.CutPrefix(rec.Meta.CommandID, leaveCommand); ok && id != "" {
			rec.Meta.CommandID = leaveCommand + ids.of(id)
		}
		out[i] = rec
	}
	return out, nil
}

// anonymiseCreated replaces the players game.created names: the creator
// and each seat's player, or the player a seat is reserved for.
func anonymiseCreated(rec events.Record, ids importedIDs) (events.Record, error) {
	var c map[string]json.RawMessage
	if err := json.Unmarshal(rec.Data, &c); err != nil {
		return rec, fmt.Errorf("decode %s: %w", rec.Type, err)
	}
	if err := replaceString(c, "created_by", ids); err != nil {
		return rec, fmt.Errorf("%s: %w", rec.Type, err)
	}
	if raw, ok := c["seats"]; ok {
		var seats []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &seats); err != nil {
			return rec, fmt.Errorf("decode %s seats: %w", rec.Type, err)
		}
		for _, seat := range seats {
			for _, field := range []string{"player_id", "reserved"} {
				if err := replaceString(seat, field, ids); err != nil {
					return rec, fmt.Errorf("%s seats: %w", rec.Type, err)
				}
			}
			// Not the log's to say: the fold reads it from the id.
			delete(seat, "imported")
		}
		b, err := json.Marshal(seats)
		if err != nil {
			return rec, fmt.Errorf("encode %s seats: %w", rec.Type, err)
		}
		c["seats"] = b
	}
	return withData(rec, c)
}

// replaceField replaces one string field of a record's payload.
func replaceField(rec events.Record, field string, ids importedIDs) (events.Record, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(rec.Data, &m); err != nil {
		return rec, fmt.Errorf("decode %s: %w", rec.Type, err)
	}
	if err := replaceString(m, field, ids); err != nil {
		return rec, fmt.Errorf("%s: %w", rec.Type, err)
	}
	return withData(rec, m)
}

// replaceString replaces the player id in m[field], when there is one.
func replaceString(m map[string]json.RawMessage, field string, ids importedIDs) error {
	raw, ok := m[field]
	if !ok {
		return nil
	}
	var id string
	if err := json.Unmarshal(raw, &id); err != nil {
		return fmt.Errorf("%s is not a string", field)
	}
	b, err := json.Marshal(ids.of(id))
	if err != nil {
		return fmt.Errorf("encode %s: %w", field, err)
	}
	m[field] = b
	return nil
}
