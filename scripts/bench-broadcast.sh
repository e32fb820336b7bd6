#!/usr/bin/env bash
# Broadcast to many devices (docs/reliability.md, "Broadcast to many devices"; not part of the
# suite at this size): BroadcastToManyDevicesTests with DEVICES simulated iPhones (1,000) on one
# week's shopping channel, a fifth of the pushes lost and the rest reordered; prints the time from
# each change to its push accepted and to every card converged (p50/p99). The suite runs the same
# test with 31 phones. LIVELINE_TEST_BACKEND=postgres runs it on PostgreSQL.
#
#   scripts/bench-broadcast.sh                # 1,000 devices, debug build of the tests
#   DEVICES=300 scripts/bench-broadcast.sh
#   PACE_MS=2000 PULLS_ON_WAKE=0 scripts/bench-broadcast.sh   # 2 s between changes; apps pull only at the end
set -euo pipefail
cd "$(dirname "$0")/.."
DEVICES=${DEVICES:-1000}

swift build --build-tests >&2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
LIVELINE_BROADCAST_DEVICES=$DEVICES LIVELINE_BROADCAST_PACE_MS=${PACE_MS:-} LIVELINE_BROADCAST_PULLS_ON_WAKE=${PULLS_ON_WAKE:-1} \
  swift test --skip-build --filter BroadcastToManyDevicesTests 2>&1 | tee "$out" >&2 || {
  echo "BroadcastToManyDevicesTests failed with $DEVICES devices" >&2
  exit 1
}
grep -o "broadcast to [0-9]* devices.*" "$out"
