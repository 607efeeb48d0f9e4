package play

// Forfeit is the forfeit of a seat whose player left, for tests that
// give it a stale game.
var Forfeit = (*Service).forfeit

// Cached is the game the service keeps folded in memory, if any.
func Cached(s *Service, id string) (*Game, bool) { return s.cache.get(id) }
