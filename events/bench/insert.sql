-- pgbench script: a bare single-row INSERT of the ~300-byte jsonb that
-- BenchmarkAppend appends (events/bench_test.go, benchEventData), in its
-- own implicit transaction. The JSON keeps a space after every colon:
-- pgbench would read ":name" as a variable.
INSERT INTO bench_insert (data) VALUES ('{"seat": 1, "source": 3, "color": "red", "count": 3, "line": 4, "to_line": 3, "to_floor": 0, "to_center": {"blue": 1, "black": 0, "yellow": 1}, "marker": false, "drawn": ["red", "red", "blue", "yellow", "black", "white", "red", "blue"], "wild": "orange", "n": "F4 red 4", "round": 3}'::jsonb);
