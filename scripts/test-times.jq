# The ten slowest tests and every package's time, from the output of
# `go test -json` (lines that are not JSON, e.g. a build's errors on
# stderr, are skipped):
#
#   go test -json ./... > tests.json; jq -nRr -f scripts/test-times.jq tests.json
#
# A test's time is its own (a parallel test's excludes its wait for a
# slot); a package's is its test binary's wall time.
[inputs | fromjson? | objects | select(.Action == "pass" or .Action == "fail")] as $ends
| def secs: .Elapsed // 0 | (. * 100 | round / 100) | tostring | (" " * (8 - length)) + . + "s";
  "ten slowest tests:",
  ($ends | map(select(.Test != null)) | sort_by(-.Elapsed) | .[:10][]
   | "\(secs)  \(.Action)  \(.Package) \(.Test)"),
  "",
  "packages, slowest first:",
  ($ends | map(select(.Test == null)) | sort_by(-.Elapsed)[]
   | "\(secs)  \(.Action)  \(.Package)")
