-- Game settings chosen at creation (the game.created event): whether the
-- game is rated, and whether strangers may see it. The games read model
-- keeps both so that the lists can leave private games out and the
-- ratings skip unrated ones; a rebuild fills them from the events. Games
-- created before the settings existed are rated and public, which is
-- what the defaults say (their game.created has neither field).
ALTER TABLE games
    ADD COLUMN rated boolean NOT NULL DEFAULT true,
    ADD COLUMN visibility text NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'private'));

-- The watch list: running public games. It is ordered by the seats'
-- best rating, computed when read, so the index only finds the games.
CREATE INDEX games_watch_idx ON games (last_move_at DESC, id DESC)
    WHERE status = 'active' AND visibility = 'public';
