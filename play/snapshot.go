package play

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/azuld/azuld/engine"
)

// snapshot is the stored form of a Game at a version right after a random
// reveal (where no take-back can reach behind it).
type snapshot struct {
	Game          *Game           `json:"game"`
	Config        engine.Config   `json:"config"`
	State         json.RawMessage `json:"state"`
	RevealVersion int64           `json:"reveal_version"`
}

// maybeSnapshot writes a snapshot when enough events have passed since the
// last one and the game sits at a reveal (no move after it that a take-back
// could undo). Snapshots are an optimisation: failures are only logged.
func (s *Service) maybeSnapshot(ctx context.Context, g *Game) {
	if s.snapshotEvery < 0 || g.State == nil || len(g.fold.tail) > 0 {
		return
	}
	if g.Version-g.fold.snapshotVersion < int64(s.snapshotEvery) {
		return
	}
	state, err := g.State.MarshalJSON()
	if err != nil {
		s.log.WarnContext(ctx, "snapshot encode failed", "game", g.ID, "err", err)
		return
	}
	data, err := SnapshotData(g, state, g.fold.revealVersion)
	if err != nil {
		s.log.WarnContext(ctx, "snapshot encode failed", "game", g.ID, "err", err)
		return
	}
	if err := s.store.SaveSnapshot(ctx, g.ID, g.Version, s.snapshotFormat, data); err != nil {
		s.log.WarnContext(ctx, "snapshot write failed", "game", g.ID, "err", err)
		return
	}
	g.fold.snapshotVersion = g.Version
}

// decodeSnapshot rebuilds a Game from a snapshot.
func (s *Service) decodeSnapshot(id string, version int64, data []byte) (*Game, error) {
	var snap snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return nil, fmt.Errorf("decode snapshot: %w", err)
	}
	if snap.Game == nil || snap.Game.ID != id || snap.Game.Version != version {
		return nil, fmt.Errorf("snapshot does not belong to game %s version %d", id, version)
	}
	rules, err := s.rules.Get(snap.Config.Ruleset)
	if err != nil {
		return nil, err
	}
	state, err := rules.DecodeState(snap.State)
	if err != nil {
		return nil, fmt.Errorf("decode snapshot state: %w", err)
	}
	g := snap.Game
	g.Config, g.Rules, g.State = snap.Config, rules, state
	g.fold = foldState{base: state, revealVersion: snap.RevealVersion, snapshotVersion: version}
	g.refreshStatus()
	return g, nil
}
