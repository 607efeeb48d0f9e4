-- One account per address: two accounts sharing an address (ana@ and
-- ANA@) would each be mailed the other's sign-in links. Addresses are
-- compared case-insensitively, as mail providers do in practice.
--
-- A database that already holds accounts sharing an address keeps the
-- address on one of them: the one whose owner confirmed it (the oldest
-- such, when several did), else the oldest account. The others lose the
-- address (and its verification and bounce state) but nothing else:
-- their games, ratings, API tokens and web sessions stay, and their
-- owners may give another address on their profile.
WITH ranked AS (
    SELECT id, row_number() OVER (PARTITION BY lower(email)
                                  ORDER BY email_verified DESC, created_at, id) AS rank
    FROM players WHERE email <> ''
)
UPDATE players p
SET email = '', email_verified = false, email_undeliverable_at = NULL,
    email_undeliverable_reason = '', email_soft_bounces = 0, email_soft_bounce_since = NULL
FROM ranked r
WHERE p.id = r.id AND r.rank > 1;

CREATE UNIQUE INDEX players_email_unique ON players (lower(email)) WHERE email <> '';

-- server_secrets: secrets generated once per database, shared by every
-- replica. limits_salt salts the keys of the rate limits (rate_limits
-- holds hashes of client and email addresses): without it a hash could
-- be matched by hashing a guessed, or an erased, address. 32 bytes from
-- two version-4 UUIDs: gen_random_uuid uses the server's strong random
-- source and needs no extension (244 random bits).
CREATE TABLE server_secrets (
    name       text PRIMARY KEY,
    secret     bytea NOT NULL CHECK (length(secret) >= 16),
    created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO server_secrets (name, secret)
VALUES ('limits_salt', decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
-- The old rows' keys were unsalted: they would never match again.
DELETE FROM rate_limits;
-- The server reads its secrets; only a migration makes or changes them.
REVOKE INSERT, UPDATE, DELETE ON server_secrets FROM azuld_app;
