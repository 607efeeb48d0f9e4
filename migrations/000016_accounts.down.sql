ALTER TABLE web_sessions DROP COLUMN public_id, DROP COLUMN last_seen_at, DROP COLUMN device;
ALTER TABLE players DROP COLUMN language, DROP COLUMN time_zone;
DROP TABLE auth_generation;

-- Back to one token per player: the oldest live one; a player without a
-- live token gets an unusable hash (the hash of a random value nobody
-- holds).
ALTER TABLE players ADD COLUMN token_hash bytea;
UPDATE players p SET token_hash = (
    SELECT t.hash FROM api_tokens t
    WHERE t.player_id = p.id AND t.revoked_at IS NULL
    ORDER BY t.created_at, t.id LIMIT 1);
UPDATE players SET token_hash = sha256(convert_to(gen_random_uuid()::text, 'UTF8')) WHERE token_hash IS NULL;
ALTER TABLE players ALTER COLUMN token_hash SET NOT NULL, ADD CONSTRAINT players_token_hash_key UNIQUE (token_hash);
DROP TABLE api_tokens;
