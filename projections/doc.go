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
// The ratings (package migrations, 000019; ratings.go): ratings (each
// player's and each bot kind's current rating per rule set and number of
// players) and rating_history (before and after each rated game). Unlike
// the other tables they depend on the order of the games: a game is rated
// when it finishes, in log order, and Rebuild rates the finished games
// again in that order.
//
// Every table is a function of the game's latest GameRow, except the
// inbox's since: a seat's row is kept while the seat stays to act, so
// since is when its turn began (the LastMoveAt of the append that made it
// to act), not the latest move of the game. Rebuild reproduces that by
// folding each game's history back to where the seat's turn began, so
// that rebuilt tables equal live ones.
package projections
