#!/usr/bin/env bash
# Runs the built test binary N times in a row (default 30) and stops at the first failing run,
# keeping its log. Prints the count and the time. Build first (scripts/test.sh builds).
#   scripts/test-loop.sh [N] [swift test arguments…]
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
shift || true
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=mentioned,limit=none,sanitize=no,output-to=stdout}"
logs=$(mktemp -d)
start=$(date +%s)
for run in $(seq 1 "$runs"); do
  # A run that hangs (it never should) counts as failed after 15 minutes.
  if ! timeout --foreground --kill-after=30 900 swift test --skip-build "$@" >"$logs/run-$run.log" 2>&1; then
    echo "run $run of $runs FAILED after $(( $(date +%s) - start )) s; log: $logs/run-$run.log" >&2
    grep -E "✘|Fatal error|crashed|error:" "$logs/run-$run.log" | head -20 >&2
    exit 1
  fi
  summary=$(grep -E "^✔ Test run with" "$logs/run-$run.log" | tail -1)
  echo "run $run of $runs passed ($(( $(date +%s) - start )) s so far): ${summary#✔ }"
  rm -f "$logs/run-$run.log"
done
echo "$runs runs in a row passed in $(( $(date +%s) - start )) s"
