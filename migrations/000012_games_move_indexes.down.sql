DROP INDEX IF EXISTS games_open_idx;
DROP INDEX IF EXISTS games_finished_idx;
CREATE INDEX games_by_status_idx ON games (status, last_move_at DESC, id DESC);
CREATE INDEX games_by_ruleset_idx ON games (ruleset, last_move_at DESC, id DESC);
