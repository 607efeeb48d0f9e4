-- Accounts: several named API tokens per player, the player's language and
-- time zone, and what a player sees of their web sessions. None of this is
-- event-sourced (docs/architecture.md §9): it is personal data beside the log.

-- api_tokens replaces players.token_hash: a player may hold several
-- tokens, each named, listed, and revoked on its own. Only the SHA-256 of
-- a token is stored. last_used_at is coarse (see account.UsedEvery): it is
-- written at most every few minutes, never on each request. A revoked
-- token keeps its row (revoked_at), so the player's list of what happened
-- stays honest until the account is deleted.
CREATE TABLE api_tokens (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    player_id    uuid NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
    hash         bytea NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_tokens_player_live ON api_tokens (player_id) WHERE revoked_at IS NULL;

-- Each player's one token so far becomes a token named "registration".
INSERT INTO api_tokens (player_id, name, hash, created_at)
SELECT id, 'registration', token_hash, created_at FROM players;
ALTER TABLE players DROP COLUMN token_hash;

-- auth_generation is one counter, raised in the transaction of anything
-- that must end a cached authentication (a token revoked, a profile
-- changed). Each replica reads it at most every second and empties its
-- token cache when it moved: a revocation holds on every replica within
-- that bound although tokens are cached for a minute.
CREATE TABLE auth_generation (
    only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    generation bigint NOT NULL DEFAULT 0
);
INSERT INTO auth_generation DEFAULT VALUES;

-- The language of the player's pages and mails (one of the catalogues)
-- and the time zone dates are shown in (an IANA name).
ALTER TABLE players
    ADD COLUMN language text NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'nl', 'de', 'it')),
    ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC' CHECK (char_length(time_zone) BETWEEN 1 AND 64);

-- Web sessions get a public id (id_hash is the hash of the cookie: a
-- secret's shadow, never shown), when they were last seen (coarse, like a
-- token's last use) and a short description of the browser ("Firefox on
-- Linux"), never the raw user agent nor an IP address.
ALTER TABLE web_sessions
    ADD COLUMN public_id uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
    ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN device text NOT NULL DEFAULT '' CHECK (char_length(device) <= 64);
