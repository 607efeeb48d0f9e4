package play

import (
	"reflect"
	"unsafe"
)

// MemSize is memSize for the caches of other packages (the follower of
// the log keeps the games its last batch left).
func (g *Game) MemSize() int64 { return g.memSize() }

// memSize estimates the heap memory a cached *Game keeps alive: the Game
// itself, its seats, the engine state (and the base state of the last
// reveal when it is another value), the events folded since that reveal
// with their batch keys, and a pending take-back. Strings are counted by
// length, so the constant status and rule set names shared by every game
// are counted once per game, a small overestimate.
//
// The engines' states and events are fixed-size values without pointers
// (engine/azul, engine/pavilion), so the size of their dynamic type is
// their memory; reading it with reflect.TypeOf costs a few nanoseconds
// and walks no value. TestGameSizeEstimate checks the estimate against the
// heap growth measured over many games of every rule set.
func (g *Game) memSize() int64 {
	n := allocSize(int64(unsafe.Sizeof(Game{})))
	n += strSize(g.ID) + strSize(g.Status) + strSize(g.SeedCommitment) + strSize(g.Seed) + strSize(g.CreatedBy)
	n += strSize(g.Config.Ruleset) + strSize(g.Config.Options.Wall) + strSize(g.Config.Options.Board)
	if w := g.Config.Options.WildOrder; w != nil {
		n += allocSize(int64(cap(w)) * int64(unsafe.Sizeof("")))
		for _, s := range w {
			n += strSize(s)
		}
	}
	if g.Seats != nil {
		n += allocSize(int64(cap(g.Seats)) * int64(unsafe.Sizeof(Seat{})))
		for _, s := range g.Seats {
			n += strSize(s.PlayerID) + strSize(s.Name) + strSize(s.Bot) + strSize(s.Left) + strSize(s.Budget)
		}
	}
	if tc := g.TimeControl; tc != nil {
		n += allocSize(int64(unsafe.Sizeof(*tc))) + strSize(tc.OnTimeout) + strSize(tc.Bot)
	}
	if g.Deadline != nil {
		n += allocSize(int64(unsafe.Sizeof(*g.Deadline)))
	}
	n += valueSize(g.State)
	if g.fold.base != nil && !samePointer(g.fold.base, g.State) {
		n += valueSize(g.fold.base)
	}
	n += strSize(g.fold.revealCommand)
	if g.fold.tail != nil {
		n += allocSize(int64(cap(g.fold.tail)) * int64(unsafe.Sizeof(tailEvent{})))
		for _, t := range g.fold.tail {
			n += valueSize(t.event) + strSize(t.batch)
		}
	}
	if p := g.fold.pending; p != nil {
		n += allocSize(int64(unsafe.Sizeof(*p))) + strSize(p.Status)
		n += allocSize(int64(cap(p.Undo))*8) + allocSize(int64(cap(p.Needs))*8) + allocSize(int64(cap(p.Consents))*8)
		if p.DeclinedBy != nil {
			n += 8
		}
	}
	for id, name := range g.names {
		// A map slot holds two string headers plus a share of the buckets.
		n += 48 + strSize(id) + strSize(name)
	}
	return n
}

// valueSize is the memory behind an interface holding a pointer to a
// fixed-size value, or a value boxed in it; 0 for nil.
func valueSize(v any) int64 {
	if v == nil {
		return 0
	}
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return allocSize(int64(t.Size()))
}

// samePointer reports whether a and b hold the same pointer: the base
// state is the current state right after a reveal.
func samePointer(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Kind() == reflect.Pointer && vb.Kind() == reflect.Pointer && va.Pointer() == vb.Pointer()
}

// strSize is the memory of a string's bytes (constant strings included).
func strSize(s string) int64 {
	if s == "" {
		return 0
	}
	return allocSize(int64(len(s)))
}

// allocSize rounds a request up roughly as the Go allocator's size
// classes do: to 8 bytes up to 16, to 16 up to 256, then to an eighth of
// the power of two at or below it (the classes are at most 12.5% apart);
// beyond 32 KiB to whole pages.
func allocSize(n int64) int64 {
	switch {
	case n <= 0:
		return 0
	case n <= 16:
		return (n + 7) &^ 7
	case n <= 256:
		return (n + 15) &^ 15
	case n <= 32<<10:
		step := int64(1)
		for step*2 <= n {
			step *= 2
		}
		step /= 8
		return (n + step - 1) / step * step
	default:
		return (n + 8191) &^ 8191
	}
}
