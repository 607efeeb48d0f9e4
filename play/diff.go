package play

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/azuld/azuld/i18n"
)

// Diff is what changed between two versions of a game.
type Diff struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
	// ToAct before and after.
	ToActFrom []int `json:"to_act_from"`
	ToActTo   []int `json:"to_act_to"`
	// Scores are the seats' score changes.
	Scores []ScoreChange `json:"scores"`
	// Changes are the differing leaves of the state JSON (tiles moved
	// between factories, centre, lines, walls, bag...), by JSON path.
	Changes []Change `json:"changes"`
	// Events are the events between the two versions (from excluded).
	Events []LogEvent `json:"events"`
}

// ScoreChange is one seat's score between two versions.
type ScoreChange struct {
	Seat  int    `json:"seat"`
	Name  string `json:"name,omitempty"`
	From  int    `json:"from"`
	To    int    `json:"to"`
	Delta int    `json:"delta"`
}

// Change is one differing leaf of the state JSON; From or To is absent
// when the leaf exists on one side only.
type Change struct {
	Path string `json:"path"`
	From any    `json:"from,omitempty"`
	To   any    `json:"to,omitempty"`
}

// maxDiffEvents bounds the events a diff lists.
const maxDiffEvents = 1000

// Diff compares the game after version from with the game after to.
// viewer is the player who reads ("" for a visitor), for the table talk
// among the events (see LogQuery.Viewer).
func (s *Service) Diff(ctx context.Context, id string, from, to int64, reader *i18n.Localizer, viewer string) (*Diff, error) {
	if reader == nil {
		cat, err := s.catalogue()
		if err != nil {
			return nil, err
		}
		reader = cat.Localizer(i18n.Default, time.UTC)
	}
	if from < 1 || to < from {
		return nil, fmt.Errorf("%w: need 1 <= from <= to", ErrInvalid)
	}
	a, err := s.GameAt(ctx, id, from)
	if err != nil {
		return nil, err
	}
	// One read of the log after from gives the events, their undone marks
	// and the game at to.
	recs, err := s.Events(ctx, id, from, 0)
	if err != nil {
		return nil, err
	}
	b := a.clone()
	evs := []LogEvent{}
	if to > from {
		if evs, err = describePage(s.rules, b, recs, LogQuery{After: from, Limit: int(min(to-from, maxDiffEvents)), Reader: reader, Viewer: viewer}); err != nil {
			return nil, err
		}
	}
	for _, rec := range recs {
		if rec.Version <= b.Version || rec.Version > to {
			continue
		}
		if err := b.apply(s.rules, rec); err != nil {
			return nil, fmt.Errorf("fold game %s: %w", id, err)
		}
	}
	if b.Version < to {
		return nil, fmt.Errorf("%w: the game is at version %d", ErrInvalid, b.Version)
	}
	d := &Diff{From: from, To: to, ToActFrom: nonNil(a.ToAct()), ToActTo: nonNil(b.ToAct()), Scores: []ScoreChange{}}
	if a.State != nil && b.State != nil {
		sa, sb := a.State.Scores(), b.State.Scores()
		for seat := range min(len(sa), len(sb)) {
			if sa[seat] != sb[seat] {
				d.Scores = append(d.Scores, ScoreChange{Seat: seat, Name: b.Seats[seat].displayName(), From: sa[seat], To: sb[seat], Delta: sb[seat] - sa[seat]})
			}
		}
	}
	va, err := viewTree(a)
	if err != nil {
		return nil, err
	}
	vb, err := viewTree(b)
	if err != nil {
		return nil, err
	}
	d.Changes = []Change{}
	diffTree("", va, vb, &d.Changes)
	d.Events = evs
	return d, nil
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// viewTree is a game's state JSON as generic values, without the fields
// that change with every event.
func viewTree(g *Game) (any, error) {
	b, err := json.Marshal(g.View())
	if err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	var tree map[string]any
	if err := json.Unmarshal(b, &tree); err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	for _, k := range []string{"version", "updated_at", "deadline"} {
		delete(tree, k)
	}
	return tree, nil
}

// diffTree appends the differing leaves of a and b under path.
func diffTree(path string, a, b any, out *[]Change) {
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			keys := make([]string, 0, len(av)+len(bv))
			for k := range av {
				keys = append(keys, k)
			}
			for k := range bv {
				if _, ok := av[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				diffTree(joinPath(path, k), av[k], bv[k], out)
			}
			return
		}
	case []any:
		if bv, ok := b.([]any); ok {
			for i := range max(len(av), len(bv)) {
				var x, y any
				if i < len(av) {
					x = av[i]
				}
				if i < len(bv) {
					y = bv[i]
				}
				diffTree(path+"["+strconv.Itoa(i)+"]", x, y, out)
			}
			return
		}
	}
	if ja, jb := mustJSON(a), mustJSON(b); ja != jb {
		*out = append(*out, Change{Path: path, From: a, To: b})
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
