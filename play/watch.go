package play

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/azuld/azuld/projections"
)

// watchTTL is how long a page of the watch list is served again without
// a query: anyone may ask for it, with no account to limit, and it ranks
// every running public game; a move shows there a second later at most.
const watchTTL = time.Second

// watchEntries bounds the pages kept (each cursor is a page).
const watchEntries = 256

// watchCache keeps the watch list's recent pages.
type watchCache struct {
	mu    sync.Mutex
	pages map[string]watchPage
}

type watchPage struct {
	at   time.Time
	rows []projections.GameRow
	next string
}

// watchList is ListGames for the watch list as anyone sees it, a page
// read at most once per watchTTL.
func (s *Service) watchList(ctx context.Context, f projections.Filter) ([]projections.GameRow, string, error) {
	key := f.Ruleset + "\x00" + strconv.Itoa(f.Limit) + "\x00" + f.Cursor
	now := s.now()
	c := &s.watch
	c.mu.Lock()
	if p, ok := c.pages[key]; ok && now.Sub(p.at) < watchTTL {
		c.mu.Unlock()
		return p.rows, p.next, nil
	}
	c.mu.Unlock()
	rows, next, err := projections.ListGames(ctx, s.pool, f)
	if err != nil {
		return nil, "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pages == nil || len(c.pages) >= watchEntries {
		c.pages = map[string]watchPage{}
	}
	c.pages[key] = watchPage{at: now, rows: rows, next: next}
	return rows, next, nil
}
