DROP INDEX games_watch_idx;
ALTER TABLE games DROP COLUMN watch_best;
CREATE INDEX games_watch_idx ON games (last_move_at DESC, id DESC)
    WHERE status = 'active' AND visibility = 'public';
