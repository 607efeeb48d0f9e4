-- The bare minimum a version-checked append needs, as a pgbench script:
-- one transaction that bumps the stream's version row and inserts one
-- event of about 300 bytes of jsonb. Each pgbench client appends to its
-- own stream (no contention), like the end-to-end benchmark's clients
-- each play their own game. Tables: see setup.sql. The JSON keeps a
-- space after every colon: pgbench reads ":name" as a variable.
\set stream :client_id + 1
BEGIN;
UPDATE bench_streams SET version = version + 1 WHERE id = :stream RETURNING version AS v \gset
INSERT INTO bench_events (stream_id, version, type, data)
VALUES (:stream, :v, 'tiles_taken',
  '{"seat": 1, "source": 3, "color": "red", "count": 3, "line": 4, "to_line": 3, "to_floor": 0, "to_center": {"blue": 1, "black": 0, "yellow": 1}, "marker": false, "meta": {"actor": {"kind": "player", "seat": 1, "player_id": "0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f"}, "channel": "api"}, "n": "F4 red 4"}'::jsonb);
COMMIT;
