package play

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
)

// Verification outcomes.
const (
	// VerifyPass: every draw and every engine event was re-derived from
	// the seed and the recorded commands and matches the log.
	VerifyPass = "pass"
	// VerifyFail: Mismatch says where the log departs.
	VerifyFail = "fail"
	// VerifyCommitted: the seed is still secret; only its commitment is
	// known, and the log folds.
	VerifyCommitted = "committed"
)

// Verification is the report of a game's fairness check.
type Verification struct {
	GameID         string `json:"game_id"`
	Result         string `json:"result"`
	SeedCommitment string `json:"seed_commitment"`
	// Seed is set once revealed (or for a public seed).
	Seed string `json:"seed,omitempty"`
	// Events is how many events were read; Commands how many recorded
	// commands were replayed through the engine (undone ones included);
	// Reveals how many random reveals were re-derived.
	Events   int `json:"events"`
	Commands int `json:"commands"`
	Reveals  int `json:"reveals"`
	// Mismatch is the first departure from the re-derived log.
	Mismatch *Mismatch `json:"mismatch,omitempty"`
}

// Mismatch is where a log departs from what the engine derives.
type Mismatch struct {
	Version  int64           `json:"version"`
	Reason   string          `json:"reason"`
	Expected json.RawMessage `json:"expected,omitempty"`
	Stored   json.RawMessage `json:"stored,omitempty"`
}

// Verify checks a stored game (see VerifyRecords).
func (s *Service) Verify(ctx context.Context, id string) (*Verification, error) {
	recs, err := s.Events(ctx, id, 0, 0)
	if err != nil {
		return nil, err
	}
	return VerifyRecords(s.rules, recs), nil
}

// VerifyRecords re-derives a game's log from its seed: each batch of
// events is compared, byte for byte, with what the pure engine produces
// for the batch's recorded command (or, for the first deal, for the start)
// on the state folded so far, with the seed's draws. Undone branches are
// checked too (their moves were decided on the branch's state), and the
// take-back then rewinds the fold like the server does. Without a known
// seed only the commitment is reported and the log is only folded.
func VerifyRecords(reg engine.Registry, recs []events.Record) *Verification {
	v := &Verification{Events: len(recs)}
	if len(recs) > 0 {
		v.GameID = recs[0].StreamID
	}
	fail := func(version int64, reason string, expected, stored json.RawMessage) *Verification {
		v.Result, v.Mismatch = VerifyFail, &Mismatch{Version: version, Reason: reason, Expected: expected, Stored: stored}
		return v
	}
	if len(recs) == 0 || recs[0].Type != EvGameCreated {
		return fail(1, "the log does not begin with game.created", nil, nil)
	}
	var created gameCreated
	if err := json.Unmarshal(recs[0].Data, &created); err != nil {
		return fail(1, "game.created does not decode: "+err.Error(), nil, nil)
	}
	v.SeedCommitment = created.SeedCommitment
	seedText := created.Seed
	if seedText == "" {
		seedText = revealedSeed(recs)
	}
	var seed engine.Seed
	known := seedText != ""
	if known {
		var err error
		if seed, err = engine.ParseSeed(seedText); err != nil {
			return fail(0, "the revealed seed is not 64 hex digits", nil, nil)
		}
		v.Seed = seedText
		if seed.Commitment() != created.SeedCommitment {
			sum := sha256.Sum256(seed[:])
			return fail(0, "the seed does not match the commitment published at creation",
				quote(created.SeedCommitment), quote(hex.EncodeToString(sum[:])))
		}
	}
	g := newGame(v.GameID)
	for start := 0; start < len(recs); {
		end := start + 1
		for end < len(recs) && batchKey(recs[end].Meta) == batchKey(recs[start].Meta) {
			end++
		}
		batch := recs[start:end]
		if known {
			if m := checkBatch(reg, g, batch, seed, v); m != nil {
				v.Result, v.Mismatch = VerifyFail, m
				return v
			}
		}
		for _, rec := range batch {
			if err := g.apply(reg, rec); err != nil {
				return fail(rec.Version, "the log does not fold: "+err.Error(), nil, nil)
			}
			if rec.Type == EvSeedRevealed && rec.Data != nil && g.Seed != seedText {
				return fail(rec.Version, "a second, different seed was revealed", quote(seedText), quote(g.Seed))
			}
		}
		start = end
	}
	v.Result = VerifyPass
	if !known {
		v.Result = VerifyCommitted
	}
	return v
}

// checkBatch compares a batch's engine events with the engine's own.
func checkBatch(reg engine.Registry, g *Game, batch []events.Record, seed engine.Seed, v *Verification) *Mismatch {
	var stored []events.Record
	starts := false
	for _, rec := range batch {
		switch {
		case rec.Type == EvGameCreated || rec.Type == EvSeatJoined:
			starts = true
		case !isServerEvent(rec.Type):
			stored = append(stored, rec)
		}
	}
	if len(stored) == 0 {
		return nil
	}
	first := stored[0].Version
	var expected []engine.Event
	var startRules engine.Rules
	var err error
	meta := batch[0].Meta
	switch {
	case starts:
		startRules, expected, err = startEvents(reg, g, batch, seed)
	case len(meta.Command) > 0 && meta.Actor.Seat != nil:
		v.Commands++
		var cmd engine.Command
		if cmd, err = g.Rules.ParseCommand(meta.Command); err == nil {
			expected, err = g.Rules.Decide(g.State, *meta.Actor.Seat, cmd, seed)
		}
	default:
		return &Mismatch{Version: first, Reason: "engine events without a recorded command"}
	}
	if err != nil {
		return &Mismatch{Version: first, Reason: "the recorded command is refused by the engine: " + err.Error()}
	}
	reveals := 0
	if g.State != nil {
		reveals = g.State.Reveals()
	}
	for i, rec := range stored {
		if i >= len(expected) {
			return &Mismatch{Version: rec.Version, Reason: "an event the command does not cause", Stored: recordJSON(rec)}
		}
		data, err := json.Marshal(expected[i])
		if err != nil {
			return &Mismatch{Version: rec.Version, Reason: "internal: encode: " + err.Error()}
		}
		want := events.Record{Version: rec.Version, Type: expected[i].EventType(), Schema: expected[i].SchemaVersion(), Data: data}
		if want.Type != rec.Type || want.Schema != rec.Schema || !sameJSON(want.Data, rec.Data) {
			return &Mismatch{Version: rec.Version, Reason: "the stored event differs from the one the seed and the command derive",
				Expected: recordJSON(want), Stored: recordJSON(rec)}
		}
	}
	if len(expected) > len(stored) {
		return &Mismatch{Version: stored[len(stored)-1].Version, Reason: fmt.Sprintf("the command causes %d events, the log holds %d", len(expected), len(stored))}
	}
	if starts {
		if end, err := engine.Fold(startRules, nil, expected); err == nil && end != nil {
			v.Reveals += end.Reveals()
		}
	} else if end, err := engine.Fold(g.Rules, g.State, expected); err == nil && end != nil {
		v.Reveals += end.Reveals() - reveals
	}
	return nil
}

// startEvents are the engine events the batch that fills the last seat
// must hold: the rules' start with the seed, and those rules. The
// configuration comes from game.created, folded already or at the head
// of this batch.
func startEvents(reg engine.Registry, g *Game, batch []events.Record, seed engine.Seed) (engine.Rules, []engine.Event, error) {
	cfg := g.Config
	if batch[0].Type == EvGameCreated {
		var c gameCreated
		if err := json.Unmarshal(batch[0].Data, &c); err != nil {
			return nil, nil, fmt.Errorf("decode game.created: %w", err)
		}
		cfg = c.Config
	}
	rules, err := reg.Get(cfg.Ruleset)
	if err != nil {
		return nil, nil, err
	}
	evs, err := rules.Start(cfg, seed)
	return rules, evs, err
}

// quote is a JSON string.
func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// recordJSON shows an event in a mismatch report.
func recordJSON(rec events.Record) json.RawMessage {
	b, err := json.Marshal(struct {
		Type   string          `json:"type"`
		Schema int             `json:"schema"`
		Data   json.RawMessage `json:"data"`
	}{rec.Type, rec.Schema, rec.Data})
	if err != nil {
		return nil
	}
	return b
}

// sameJSON compares two JSON texts byte for byte, ignoring only
// insignificant white space.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// revealedSeed is the seed of a log's game.seed_revealed, if any.
func revealedSeed(recs []events.Record) string {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Type == EvSeedRevealed {
			var r seedRevealed
			if json.Unmarshal(recs[i].Data, &r) == nil {
				return r.Seed
			}
		}
	}
	return ""
}
