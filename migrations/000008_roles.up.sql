-- The server's role, and indexes for the daily clean-up.
--
-- Migrations run as the schema's owner; the server runs as a role that is
-- a member of azuld_app, which may read and write every table except
-- events, where it may only INSERT and SELECT. It owns nothing, so it
-- cannot drop or disable the triggers that keep events immutable either:
-- a compromised server cannot rewrite a game's history.
--
-- azuld_app is a group role (NOLOGIN): a migration cannot know the name or
-- the password of the role the server logs in as, so the operator (or the
-- embedded cluster's start-up) creates that login role and grants it
-- azuld_app. Roles are cluster-wide: the role is created here only when
-- missing, and a migrating owner without CREATEROLE is told to create it.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'azuld_app') THEN
        CREATE ROLE azuld_app NOLOGIN;
    END IF;
EXCEPTION
    -- Another database of the cluster created it at the same moment.
    WHEN duplicate_object OR unique_violation THEN NULL;
    WHEN insufficient_privilege THEN
        RAISE EXCEPTION 'the role azuld_app does not exist and % may not create it', current_user
            USING HINT = 'As a superuser, run: CREATE ROLE azuld_app NOLOGIN;';
END
$$;

GRANT USAGE ON SCHEMA public TO azuld_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO azuld_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO azuld_app;
-- History is append-only.
REVOKE UPDATE, DELETE, TRUNCATE ON events FROM azuld_app;
-- golang-migrate's bookkeeping: the server reads it at start to see that
-- the schema is up to date, and never writes it.
REVOKE INSERT, UPDATE, DELETE ON schema_migrations FROM azuld_app;

-- Tables and sequences that later migrations create (as this same owner)
-- get the same rights, so a new table needs no GRANT of its own.
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO azuld_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO azuld_app;

-- The daily clean-up deletes by age (notify.Cleanup).
CREATE INDEX inbound_mails_received_at ON inbound_mails (received_at);
CREATE INDEX deliveries_created_at ON deliveries (created_at);
-- deliveries_game (game_id, created_at) stays: the mails of a game
-- thread on the first one sent to a seat, found through it.
