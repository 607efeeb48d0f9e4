-- Player profiles (docs/ratings.md, "Profiles"): a player may hide their
-- game lists (recent and running games, head-to-head) from everyone but
-- themselves; their ratings and results stay public. Personal data beside
-- the log, like the name: not event-sourced, erased with the row.
ALTER TABLE players ADD COLUMN hide_games boolean NOT NULL DEFAULT false;
