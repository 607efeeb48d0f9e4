// Package pavilion is the rules engine of Azul: Summer Pavilion
// ("summer-pavilion", score floor 1) and Azul: Summer Pavilion Mini
// ("summer-pavilion-mini", score floor 0), 2–4 players, with the
// monochrome board (Options.Board "monochrome") and a custom order of wild
// colours (Options.WildOrder). docs/rules.md §3 is the specification; the move
// JSON, the text notation, the events and the decisions this package takes
// are in docs/notation-pavilion.md.
//
// New returns the type-erased engine.Rules the server uses. Hot loops
// (self-play, bots, benchmarks) use the typed functions, which work on
// fixed-size values and allocate nothing but the random source of a deal:
//
//	evs, err := pavilion.Start(cfg, seed, nil)   // game_started + first deal
//	var s pavilion.State
//	for i := range evs { s.Apply(&evs[i]) }      // fold (checks every event)
//	moves := pavilion.AppendLegal(nil, &s, seat) // legal Cmds of a seat
//	evs, err = pavilion.Decide(&s, seat, moves[0], seed, evs[:0])
//
// State is a value: copying it copies the game. Decide never changes the
// state it is given; the caller applies the returned events.
package pavilion
