package play

import (
	"container/list"
	"sync"
)

// DefaultCacheSize is how many games a Service keeps folded in memory when
// Config.CacheSize is zero.
const DefaultCacheSize = 4096

// gameCache keeps the latest folded state of recently played games, so
// that a move usually needs no read of the game's events: deciding against
// a cached game is safe because the append checks the expected version,
// and a game that moved on elsewhere (another replica) makes that append
// fail with a conflict, after which the move reloads the game from the
// store. Reads that must be current (GET of a game) never use it.
//
// It is a plain LRU under one mutex: a cache operation costs well under a
// microsecond, against a millisecond for the move's append.
type gameCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recently used; values are *Game
	byID  map[string]*list.Element
}

// newGameCache returns a cache of up to max games; nil when max < 0,
// which every method accepts as "no cache".
func newGameCache(max int) *gameCache {
	if max < 0 {
		return nil
	}
	if max == 0 {
		max = DefaultCacheSize
	}
	return &gameCache{max: max, order: list.New(), byID: make(map[string]*list.Element)}
}

// get returns a copy of the cached game, which the caller may fold further.
func (c *gameCache) get(id string) (*Game, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byID[id]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*Game).clone(), true
}

// put remembers g unless a newer version of the game is cached already
// (two moves of one game finishing out of order).
func (c *gameCache) put(g *Game) {
	if c == nil || g == nil || g.ID == "" {
		return
	}
	g = g.clone()
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byID[g.ID]; ok {
		if e.Value.(*Game).Version <= g.Version {
			e.Value = g
		}
		c.order.MoveToFront(e)
		return
	}
	c.byID[g.ID] = c.order.PushFront(g)
	for c.order.Len() > c.max {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.byID, oldest.Value.(*Game).ID)
	}
}

// forget drops a game, after a conflict showed the cached copy is stale.
func (c *gameCache) forget(id string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byID[id]; ok {
		c.order.Remove(e)
		delete(c.byID, id)
	}
}
