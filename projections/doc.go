// Package projections maintains the read models built from game events:
// the games list, each player's turn inbox, and per-player results. They
// are written in the same transaction as the events that change them
// (Apply, called from the append's hook), and can be dropped and rebuilt
// from the events at any time (Rebuild).
//
// Tables (package migrations, 000003): games (one row per game: the
// GameRow, with seats and final result as JSON), game_seats (one row per
// seat, to find a player's games), turn_inbox (one row per human seat
// that must act now) and results (one row per seat of a finished game).
//
// Every table is a function of the game's latest GameRow, except the
// inbox's since: a seat's row is kept while the seat stays to act, so
// since is when its turn began (the LastMoveAt of the append that made it
// to act), not the latest move of the game. Rebuild reproduces that by
// folding each game's history back to where the seat's turn began, so
// that rebuilt tables equal live ones.
package projections
