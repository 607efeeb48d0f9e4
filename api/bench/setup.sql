-- Tables for baseline.sql, in a schema of their own so the baseline can
-- run next to azuld's tables without touching them.
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS azuld_bench CASCADE;
CREATE SCHEMA azuld_bench;
SET search_path = azuld_bench;
CREATE TABLE bench_streams (id bigint PRIMARY KEY, version bigint NOT NULL);
CREATE TABLE bench_events (
  stream_id bigint NOT NULL,
  version bigint NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (stream_id, version)
);
INSERT INTO bench_streams SELECT g, 0 FROM generate_series(1, 256) g;
