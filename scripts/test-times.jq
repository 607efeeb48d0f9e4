# The ten slowest tests and every package's time, from the output of
# `go test -json` (lines that are not JSON, e.g. a build's errors on
# stderr, are skipped):
#
#   go test -json ./... > tests.json; jq -nRr -f scripts/test-times.jq tests.json
#
# A test's time is its own (a parallel test's excludes its wait for a
# slot; a browser test's, its wait for its turn in the queue, which it
# logs as "ran for D after W waiting for its turn"); a package's is its
# test binary's wall time.
def seconds: # a Go duration: 812ms, 15.394s, 1m2.5s
  capture("^(?:(?<m>[0-9]+)m)?(?<v>[0-9.]+)(?<u>ms|µs|s)$")
  | ((.m // "0") | tonumber) * 60 + (.v | tonumber) * (if .u == "ms" then 0.001 elif .u == "µs" then 0.000001 else 1 end);
[inputs | fromjson? | objects] as $all
| ($all | map(select(.Action == "output" and .Test != null and (.Output | test("ran for [0-9.mµs]+ after "))))
   | map({key: "\(.Package) \(.Test)", value: (.Output | capture("ran for (?<d>[0-9.mµs]+) after ").d | seconds)})
   | from_entries) as $ran
| ($all | map(select(.Action == "pass" or .Action == "fail"))
   | map(if .Test != null and $ran["\(.Package) \(.Test)"] != null then .Elapsed = $ran["\(.Package) \(.Test)"] else . end)) as $ends
| def secs: .Elapsed // 0 | (. * 100 | round / 100) | tostring | (" " * (8 - length)) + . + "s";
  "ten slowest tests:",
  ($ends | map(select(.Test != null)) | sort_by(-.Elapsed) | .[:10][]
   | "\(secs)  \(.Action)  \(.Package) \(.Test)"),
  "",
  "packages, slowest first:",
  ($ends | map(select(.Test == null)) | sort_by(-.Elapsed)[]
   | "\(secs)  \(.Action)  \(.Package)")
