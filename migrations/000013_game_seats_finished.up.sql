-- game_seats knows whether its game is over, so that the queries that
-- want a player's (or a bot's) running games find them through small
-- partial indexes instead of visiting every game a player ever sat in:
-- the turn inbox (who must act is read from the games row, which a move
-- writes at once) and the bots' catch-up. The flag is set by the
-- follower of the log when a game ends (and by a rebuild).
ALTER TABLE game_seats ADD COLUMN finished boolean NOT NULL DEFAULT false;
UPDATE game_seats s SET finished = true FROM games g WHERE g.id = s.game_id AND g.status = 'finished';
CREATE INDEX game_seats_playing_idx ON game_seats (player_id, game_id) WHERE player_id IS NOT NULL AND NOT finished;
CREATE INDEX game_seats_bots_playing_idx ON game_seats (game_id) WHERE bot <> '' AND NOT finished;
