package play

// Forfeit is the forfeit of a seat whose player left, for tests that
// give it a stale game.
var Forfeit = (*Service).forfeit
