// Package azul is the rules engine of Azul Mini (rule set "azul-mini",
// docs/rules.md §2): 2–4 players, the coloured wall or the grey wall
// (Options.Wall "grey").
//
// New returns the type-erased engine.Rules the server uses. Hot loops
// (self-play, bots, benchmarks) use the typed fast path instead, which
// neither boxes nor allocates per move:
//
//	evs, err := azul.Start(cfg, seed, buf[:0])       // game_started + first deal
//	var s azul.State                                  // a plain value: copy it to branch
//	for _, e := range evs { s.Apply(e) }              // the typed Evolve
//	legal = azul.AppendLegal(legal[:0], &s, seat)     // legal moves (without resign)
//	evs, err = azul.Decide(&s, seat, cmd, seed, evs[:0])
//
// State is a fixed-size value (no pointers), so == compares two games and
// assignment copies one. Cmd and Event are small comparable values too;
// Event is a flat union whose Kind says which fields mean something.
// ToActMask, PendingLine and the accessors (Factory, Center, Bag, Lid,
// Board, Score, ...) read a state without allocating.
//
// Randomness: the deal of round r draws from seed.Rand(r-1), that is
// seed.Rand(s.Reveals()) of the state before it; Evolve (Apply) never
// draws. docs/notation-azul.md lists the move JSON, the text notation,
// the event types and every decision docs/rules.md leaves open.
package azul
