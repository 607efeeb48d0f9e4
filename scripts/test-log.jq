# The text `go test` prints without -v, from the events of `go test -json`
# as they come: the output of failing tests (kept until a test ends, and
# dropped if it passes), the packages' own lines (ok, FAIL, panics) and
# the build's errors; lines that are not JSON (go's own errors on stderr)
# as they are.
#
#   go test -json ./... 2>&1 | jq -nRrj --unbuffered -f scripts/test-log.jq
#
# When a package fails, the output of its tests that never ended (a panic,
# a timeout) is printed too, before its FAIL line.
def key: "\(.Package)\u0000\(.Test)";
def ofpackage($p): startswith($p + "\u0000");
# Prints, then forgets, what the tests of package $p that have not ended
# have written.
def flush($p):
  .print = ([.kept | to_entries[] | select(.key | ofpackage($p)) | .value] | add)
  | .kept |= with_entries(select(.key | ofpackage($p) | not));
foreach (inputs | {line: ., event: (try fromjson catch null)}) as $in (
  {kept: {}};
  .print = null
  | $in.event as $e
  | if ($e | type) != "object" then .print = $in.line + "\n"
    elif $e.Action == "build-output" then .print = $e.Output
    elif ($e.Test // "") != "" then
      ($e | key) as $k
      | if $e.Action == "output" then .kept[$k] += $e.Output
        elif $e.Action == "fail" then .print = .kept[$k] | del(.kept[$k])
        elif $e.Action == "pass" or $e.Action == "skip" then del(.kept[$k])
        else . end
    elif $e.Action == "output" then
      # A passing package's "PASS" line is -v's, not go test's.
      if $e.Output == "PASS\n" then .
      elif $e.Output | startswith("FAIL") then flush($e.Package) | .print += $e.Output
      else .print = $e.Output end
    elif $e.Action == "fail" then flush($e.Package)
    else . end;
  .print // empty)
