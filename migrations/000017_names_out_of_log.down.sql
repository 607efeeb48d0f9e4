-- The names removed from the log are not restored: they were removed so
-- that they would exist nowhere. Seats read back as unnamed; the
-- projection's column returns empty (a rebuild fills nothing into it).
ALTER TABLE game_seats ADD COLUMN IF NOT EXISTS name text NOT NULL DEFAULT '';
DROP TABLE IF EXISTS names_removed_audit;
