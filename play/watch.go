package play

import (
	"context"
	"strconv"
	"time"

	"github.com/azuld/azuld/projections"
	"github.com/azuld/azuld/ttlcache"
)

// watchTTL is how long a page of the watch list is served again without
// a query: anyone may ask for it, with no account to limit, and it ranks
// every running public game; a move shows there a second later at most.
const watchTTL = time.Second

// watchEntries bounds the pages kept (each cursor is a page).
const watchEntries = 256

// watchPage is a page of the watch list as it was read.
type watchPage struct {
	rows []projections.GameRow
	next string
}

// newWatchCache is the cache of the watch list's recent pages.
func newWatchCache() *ttlcache.Cache[watchPage] {
	return ttlcache.New[watchPage](watchTTL, watchEntries)
}

// watchList is ListGames for the watch list as anyone sees it, a page
// read at most once per watchTTL.
func (s *Service) watchList(ctx context.Context, f projections.Filter) ([]projections.GameRow, string, error) {
	key := f.Ruleset + "\x00" + strconv.Itoa(f.Limit) + "\x00" + f.Cursor
	now := s.now()
	if p, ok := s.watch.Get(key, now); ok {
		return p.rows, p.next, nil
	}
	rows, next, err := projections.ListGames(ctx, s.pool, f)
	if err != nil {
		return nil, "", err
	}
	s.watch.Put(key, now, watchPage{rows: rows, next: next})
	return rows, next, nil
}
