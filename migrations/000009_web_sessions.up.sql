-- The web client: browser sessions and one-time sign-in links. Only the
-- SHA-256 of a session id or a link token is stored, like API tokens.

-- web_sessions: one row per signed-in browser. csrf_token is the
-- synchronizer token the session's forms and fetches must send back.
CREATE TABLE web_sessions (
    id_hash    bytea PRIMARY KEY,
    player_id  uuid NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    csrf_token text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);
CREATE INDEX web_sessions_player ON web_sessions (player_id);
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);

-- signin_links: the links mailed to sign in. A link works once
-- (used_at) and until expires_at.
CREATE TABLE signin_links (
    token_hash bytea PRIMARY KEY,
    player_id  uuid NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX signin_links_expires ON signin_links (expires_at);
