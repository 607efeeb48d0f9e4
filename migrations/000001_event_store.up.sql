-- The event store. One stream per game; every move is an immutable event.

-- streams lists the streams (games), one row written by each stream's
-- first append. Appends are serialised by the primary key of events, not
-- by a version row here: bumping such a row would cost every append an
-- extra UPDATE.
CREATE TABLE streams (
    id         uuid PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- events is append-only. The primary key (stream_id, version) makes
-- appends at the same expected version conflict: the second one waits
-- for the first and fails with a unique violation. An append at version
-- v > 1 also requires v - 1 to exist, so a stream never has holes.
-- global_position orders events across streams (increasing, with gaps);
-- tx_id is the writing transaction, which the gap-safe consumer orders by
-- (see the events package documentation). data and meta are json, not
-- jsonb: the store never looks inside them, json keeps the bytes as
-- written, and reading a game skips the jsonb-to-text conversion of every
-- event (about a third of the time of loading a 400-event stream).
CREATE TABLE events (
    stream_id       uuid NOT NULL,
    version         bigint NOT NULL CHECK (version >= 1),
    global_position bigint GENERATED ALWAYS AS IDENTITY,
    type            text NOT NULL CHECK (type <> ''),
    schema_version  integer NOT NULL CHECK (schema_version >= 1),
    data            json NOT NULL,
    meta            json NOT NULL,
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    tx_id           xid8 NOT NULL DEFAULT pg_current_xact_id(),
    PRIMARY KEY (stream_id, version)
);

-- The global order the consumers read in: by writing transaction, then
-- by position within it.
CREATE INDEX events_commit_order_idx ON events (tx_id, global_position);

-- Events are never updated, deleted or truncated: the database itself
-- refuses, whatever the client.
CREATE FUNCTION reject_event_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are immutable: % on table events is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER events_immutable_rows
    BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION reject_event_change();

CREATE TRIGGER events_immutable_table
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION reject_event_change();

-- idempotency_keys remembers what each keyed command appended, so that a
-- retry returns the first result instead of appending again.
CREATE TABLE idempotency_keys (
    scope         text NOT NULL,
    key           text NOT NULL,
    request_hash  text NOT NULL,
    stream_id     uuid NOT NULL,
    first_version bigint NOT NULL,
    last_version  bigint NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, key)
);

-- snapshots are an optimisation only: any of them may be deleted at any
-- time. format is the state format of the code that wrote the snapshot;
-- a reader ignores the snapshots of other formats.
CREATE TABLE snapshots (
    stream_id  uuid NOT NULL,
    format     integer NOT NULL,
    version    bigint NOT NULL CHECK (version >= 1),
    data       bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, format, version)
);

-- consumer_checkpoints: how far each named asynchronous consumer has
-- read the global order.
CREATE TABLE consumer_checkpoints (
    name       text PRIMARY KEY,
    tx_id      xid8 NOT NULL,
    position   bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
