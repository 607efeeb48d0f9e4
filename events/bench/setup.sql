-- The table of the pgbench baseline (insert.sql): the least a log of
-- JSON events needs, an identity key and a jsonb payload. It lives in a
-- schema of its own so that it can sit next to azuld's tables.
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS azuld_bench_insert CASCADE;
CREATE SCHEMA azuld_bench_insert;
CREATE TABLE azuld_bench_insert.bench_insert (
  id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  data jsonb NOT NULL
);
