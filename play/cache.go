package play

import (
	"container/list"
	"sync"

	"github.com/azuld/azuld/engine"
)

// DefaultCacheBytes is the memory a Service lets its folded games take
// when Config.CacheBytes is zero. A cached game takes 1.6 to 13 KiB,
// about 6 KiB on average over every rule set and player count (size.go,
// TestGameSizeEstimate; docs/SCALING.md "Memory"), so 64 MiB holds some
// 10,000 games, 5,000 at the very least: more than the 4,096 games the
// cache was once bounded to (which could take 53 MiB of four-player
// Summer Pavilion), and a small part of a replica's memory.
const DefaultCacheBytes = 64 << 20

// DefaultSeedCacheEntries is how many games' secret seeds a Service keeps
// when Config.SeedCacheEntries is zero: about 200 bytes each, so 3 MiB.
const DefaultSeedCacheEntries = 16384

// CacheStats are a cache's counters since the Service started (for
// /metrics).
type CacheStats struct {
	// Bytes is the estimated memory of the entries held (see size.go),
	// Entries their number; both stay within the cache's limits.
	Bytes   int64
	Entries int
	// MaxBytes is the budget (0 for a cache bounded by entries only).
	MaxBytes int64
	// Hits, Misses and Evictions count lookups and the entries dropped
	// to make room (a game dropped as stale is not an eviction).
	Hits, Misses, Evictions uint64
}

// lru is a least-recently-used map from string keys bounded both in
// entries and in estimated bytes, under one mutex: an operation costs
// well under a microsecond, against a millisecond for the database round
// trip it saves. A nil *lru holds nothing.
type lru[V any] struct {
	mu         sync.Mutex
	maxEntries int   // 0: no bound but the bytes
	maxBytes   int64 // 0: no bound but the entries
	size       func(key string, v V) int64

	order *list.List // front: most recently used; values are *lruEntry[V]
	byKey map[string]*list.Element
	bytes int64

	hits, misses, evictions uint64
}

type lruEntry[V any] struct {
	key   string
	value V
	size  int64
}

// entryOverhead is what the LRU's bookkeeping costs per entry besides
// the value: the list element (48 bytes), the lruEntry (48), the map's
// slot and its share of the buckets (about 48), and the key's bytes are
// added by each size function.
const entryOverhead = 144

func newLRU[V any](maxEntries int, maxBytes int64, size func(string, V) int64) *lru[V] {
	return &lru[V]{maxEntries: maxEntries, maxBytes: maxBytes, size: size, order: list.New(), byKey: make(map[string]*list.Element)}
}

// get returns the value of key and marks it most recently used.
func (c *lru[V]) get(key string) (V, bool) {
	var zero V
	if c == nil {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		c.misses++
		return zero, false
	}
	c.hits++
	c.order.MoveToFront(e)
	return e.Value.(*lruEntry[V]).value, true
}

// put stores v under key, unless keep says the value already held must
// stay (keep may be nil), and evicts the least recently used entries
// until the cache is within its bounds. A value larger than the whole
// budget is not stored.
func (c *lru[V]) put(key string, v V, keep func(old V) bool) {
	if c == nil {
		return
	}
	size := c.size(key, v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		ent := e.Value.(*lruEntry[V])
		c.order.MoveToFront(e)
		if keep != nil && keep(ent.value) {
			return
		}
		c.bytes += size - ent.size
		ent.value, ent.size = v, size
	} else {
		if c.maxBytes > 0 && size > c.maxBytes {
			return
		}
		c.byKey[key] = c.order.PushFront(&lruEntry[V]{key: key, value: v, size: size})
		c.bytes += size
	}
	for (c.maxEntries > 0 && c.order.Len() > c.maxEntries) || (c.maxBytes > 0 && c.bytes > c.maxBytes) {
		c.remove(c.order.Back())
		c.evictions++
	}
}

// forget drops key.
func (c *lru[V]) forget(key string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		c.remove(e)
	}
}

func (c *lru[V]) remove(e *list.Element) {
	ent := e.Value.(*lruEntry[V])
	c.order.Remove(e)
	delete(c.byKey, ent.key)
	c.bytes -= ent.size
}

func (c *lru[V]) stats() CacheStats {
	if c == nil {
		return CacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{
		Bytes: c.bytes, Entries: c.order.Len(), MaxBytes: c.maxBytes,
		Hits: c.hits, Misses: c.misses, Evictions: c.evictions,
	}
}

// keys lists the keys from the most to the least recently used (tests).
func (c *lru[V]) keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, c.order.Len())
	for e := c.order.Front(); e != nil; e = e.Next() {
		out = append(out, e.Value.(*lruEntry[V]).key)
	}
	return out
}

// gameCache keeps the latest folded state of recently played games, so
// that a move usually needs no read of the game's events: deciding against
// a cached game is safe because the append checks the expected version,
// and a game that moved on elsewhere (another replica) makes that append
// fail with a conflict, after which the move reloads the game from the
// store. Reads that must be current (GET of a game) never use it, nor do
// replays of past versions, so serving a long history caches nothing.
//
// Its bound is in bytes (each game's estimate, size.go) so that the
// memory it takes does not depend on the mix of rule sets and player
// counts; an optional bound in entries comes on top.
type gameCache struct{ lru *lru[*Game] }

// newGameCache returns a cache of up to maxBytes (0: DefaultCacheBytes)
// and, when maxEntries > 0, up to maxEntries games; nil when either is
// negative, which every method accepts as "no cache".
func newGameCache(maxEntries int, maxBytes int64) *gameCache {
	if maxEntries < 0 || maxBytes < 0 {
		return nil
	}
	if maxBytes == 0 {
		maxBytes = DefaultCacheBytes
	}
	return &gameCache{lru: newLRU(maxEntries, maxBytes, func(_ string, g *Game) int64 { return entryOverhead + g.memSize() })}
}

// get returns a copy of the cached game, which the caller may fold further.
func (c *gameCache) get(id string) (*Game, bool) {
	if c == nil {
		return nil, false
	}
	g, ok := c.lru.get(id)
	if !ok {
		return nil, false
	}
	return g.clone(), true
}

// private reports a cached game's visibility, without the copy get
// makes (cached games are never changed in place); ok is false when the
// game is not cached.
func (c *gameCache) private(id string) (private, ok bool) {
	if c == nil {
		return false, false
	}
	g, ok := c.lru.get(id)
	if !ok {
		return false, false
	}
	return g.Private(), true
}

// put remembers g unless a newer version of the game is cached already
// (two moves of one game finishing out of order). A finished game takes
// no more moves: it is dropped, leaving its room to the running ones.
func (c *gameCache) put(g *Game) {
	if c == nil || g == nil || g.ID == "" {
		return
	}
	if g.Status == StatusFinished {
		c.lru.forget(g.ID)
		return
	}
	g = g.clone()
	c.lru.put(g.ID, g, func(old *Game) bool { return old.Version > g.Version })
}

// forget drops a game, after a conflict showed the cached copy is stale.
func (c *gameCache) forget(id string) {
	if c != nil {
		c.lru.forget(id)
	}
}

func (c *gameCache) stats() CacheStats {
	if c == nil {
		return CacheStats{}
	}
	return c.lru.stats()
}

// seedCache keeps the immutable secret seed of recently played games, so
// a move reads no secret; bounded in entries, which are all of one size.
type seedCache struct{ lru *lru[engine.Seed] }

// seedEntrySize is a seed entry's estimated memory: the bookkeeping, the
// game id (36 bytes, allocated as 48) and the seed (32, boxed in the
// entry).
const seedEntrySize = entryOverhead + 48 + 32

// newSeedCache returns a cache of up to max seeds (0:
// DefaultSeedCacheEntries); nil when max < 0.
func newSeedCache(max int) *seedCache {
	if max < 0 {
		return nil
	}
	if max == 0 {
		max = DefaultSeedCacheEntries
	}
	return &seedCache{lru: newLRU(max, 0, func(string, engine.Seed) int64 { return seedEntrySize })}
}

func (c *seedCache) get(id string) (engine.Seed, bool) {
	if c == nil {
		return engine.Seed{}, false
	}
	return c.lru.get(id)
}

func (c *seedCache) put(id string, seed engine.Seed) {
	if c != nil {
		c.lru.put(id, seed, nil)
	}
}

func (c *seedCache) stats() CacheStats {
	if c == nil {
		return CacheStats{}
	}
	return c.lru.stats()
}

// GameCacheStats describes the cache of folded games.
func (s *Service) GameCacheStats() CacheStats { return s.cache.stats() }

// SeedCacheStats describes the cache of secret seeds.
func (s *Service) SeedCacheStats() CacheStats { return s.seeds.stats() }
