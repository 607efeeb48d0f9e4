-- Names out of the event log (docs/architecture.md §9). Events name players by id
-- only; names and addresses live in players, which erasing an account
-- deletes. The events written before this rule carry the players' names
-- (game.created's seats, game.joined): this migration, run by the
-- schema's owner, removes those fields once, so that no name stays in the
-- log for ever. It is the only rewrite of history: the immutability
-- triggers are disabled for its two statements and enabled again in the
-- same transaction (the server's role may not do this, see 000008), and
-- every field removed is recorded in names_removed_audit (where, never
-- the value). Verification is unaffected: it re-derives the engine
-- events, which hold no names, and reads only the configuration and the
-- seed commitment from game.created.

-- names_removed_audit: the record of every payload field this rewrite
-- removed. Owner-only: the server's role may not read or change it.
CREATE TABLE names_removed_audit (
    id         bigserial PRIMARY KEY,
    stream_id  uuid NOT NULL,
    version    bigint NOT NULL,
    type       text NOT NULL,
    field      text NOT NULL,
    reason     text NOT NULL,
    removed_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON names_removed_audit FROM azuld_app;
REVOKE ALL ON SEQUENCE names_removed_audit_id_seq FROM azuld_app;

INSERT INTO names_removed_audit (stream_id, version, type, field, reason)
SELECT e.stream_id, e.version, e.type, 'seats[' || (s.ord - 1) || '].name', 'migration 000017: names out of the event log'
FROM events e, jsonb_array_elements(e.data::jsonb -> 'seats') WITH ORDINALITY AS s (seat, ord)
WHERE e.type = 'game.created' AND jsonb_typeof(e.data::jsonb -> 'seats') = 'array' AND s.seat ? 'name'
UNION ALL
SELECT e.stream_id, e.version, e.type, 'name', 'migration 000017: names out of the event log'
FROM events e
WHERE e.type = 'game.joined' AND e.data::jsonb ? 'name'
ORDER BY 1, 2, 4;

ALTER TABLE events DISABLE TRIGGER events_immutable_rows;

UPDATE events e
SET data = jsonb_set(e.data::jsonb, '{seats}', (
        SELECT jsonb_agg(s.seat - 'name' ORDER BY s.ord)
        FROM jsonb_array_elements(e.data::jsonb -> 'seats') WITH ORDINALITY AS s (seat, ord)))::json
WHERE e.type = 'game.created' AND jsonb_typeof(e.data::jsonb -> 'seats') = 'array'
  AND jsonb_path_exists(e.data::jsonb, '$.seats[*].name');

UPDATE events e
SET data = (e.data::jsonb - 'name')::json
WHERE e.type = 'game.joined' AND e.data::jsonb ? 'name';

ALTER TABLE events ENABLE TRIGGER events_immutable_rows;

-- The read models hold no names either: the queries read them from
-- players.
ALTER TABLE game_seats DROP COLUMN name;
UPDATE games g
SET seats = (SELECT jsonb_agg(s.seat - 'name' ORDER BY s.ord)
             FROM jsonb_array_elements(g.seats) WITH ORDINALITY AS s (seat, ord))
WHERE jsonb_path_exists(g.seats, '$[*].name');

-- Snapshots (an optimisation, deletable at any time) of the older format
-- hold the seats' names.
DELETE FROM snapshots;
