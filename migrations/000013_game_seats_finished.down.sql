DROP INDEX IF EXISTS game_seats_bots_playing_idx;
DROP INDEX IF EXISTS game_seats_playing_idx;
ALTER TABLE game_seats DROP COLUMN IF EXISTS finished;
