-- Every move updates its game's row, and since last_move_at changes the
-- update cannot be HOT: each index of games gets a new entry per move.
-- Two of the four served only the lists filtered by status and by rule
-- set; they give way to partial indexes that a move of a running game
-- never touches: the open games (the lobby's free seats) and the
-- finished ones. A list of the running games, or of one rule set, walks
-- games_by_last_move_idx and skips the others.
DROP INDEX IF EXISTS games_by_status_idx;
DROP INDEX IF EXISTS games_by_ruleset_idx;
CREATE INDEX games_open_idx ON games (last_move_at DESC, id DESC) WHERE status = 'open';
CREATE INDEX games_finished_idx ON games (last_move_at DESC, id DESC) WHERE status = 'finished';
