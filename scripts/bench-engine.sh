#!/usr/bin/env bash
# Engine benchmark (not a test), the engine's figures, in one run on this machine:
#  1. fan-out: one PUT /v1/contexts/{key} → the APNs sandbox accepted the snapshot on every one
#     of 10,000 registered la-update tokens (goal < 1 s), next to the same pushes sent straight
#     through the APNs client (the ceiling);
#  2. committed mutations per second through PUT /v1/contexts/… with SQLite (wrk, a changing
#     trip state over 1,000 stored contexts, the dispatcher running), next to the write path
#     without HTTP (liveline-bench upsert: Engine.putContext in-process in 1 and 4 threads, beside
#     the same statements through SQLite's C API) and wrk's GET /healthz on the same server.
#
#   scripts/bench-engine.sh                     # 10,000 tokens × 5 rounds; wrk 10 s, 16 connections
#   TOKENS=2000 ROUNDS=3 DURATION=5 CONNECTIONS=8 scripts/bench-engine.sh
set -euo pipefail
cd "$(dirname "$0")/.."
TOKENS=${TOKENS:-10000}
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-16}

scripts/install-deps.sh --bench
swift build -c release --product liveline >&2
swift build -c release --product liveline-bench >&2
bin=.build/release/liveline
source scripts/bench-lib.sh

echo "== fan-out: one change → $TOKENS la-update tokens"
.build/release/liveline-bench fanout "$TOKENS" "$ROUNDS"

echo "== PUT /v1/contexts/… with SQLite, 1,000 contexts stored"
ceiling=$(.build/release/liveline-bench upsert 5 1000 4 | tee /dev/stderr | awk '/in-process ceiling/ {print $(NF-1)}')
admin_key=bench-admin-key-0123456789abcdef
.build/release/liveline-bench seed-contexts "$work/data" 1000 >&2
bench_liveline LIVELINE_ACCESS_LOG=off LIVELINE_ADMIN_KEY=$admin_key

put=$(ADMIN_KEY=$admin_key CONTEXTS=1000 wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s scripts/peers/put_contexts.lua "http://127.0.0.1:$port")
put_rate=$(echo "$put" | awk '/Requests\/sec/ {print $2}')
failed=$(echo "$put" | awk '/non-2xx/ {print $2}')
latency=$(echo "$put" | awk '/Latency/ {print $2}')
health_rate=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" "http://127.0.0.1:$port/healthz" | awk '/Requests\/sec/ {print $2}')
revs=$(curl -sf -H "Authorization: Bearer $admin_key" "http://127.0.0.1:$port/v1/contexts/trip:bench-1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rev"])')
printf 'PUT /v1/contexts: %s committed mutations/s (%s connections, mean latency %s, non-2xx %s; trip:bench-1 is at rev %s)\n' \
  "$put_rate" "$CONNECTIONS" "$latency" "$failed" "$revs"
printf 'PUT / in-process ceiling (%s puts/s) = %s (goal ≥ 0.7×; the server also renders each change: the dispatcher runs)\n' \
  "$ceiling" "$(python3 -c "print(f'{$put_rate / $ceiling:.2f}×')")"
printf 'GET /healthz on the same server: %s requests/s; PUT / healthz = %s\n' "$health_rate" \
  "$(python3 -c "print(f'{$put_rate / $health_rate:.2f}×')")"
curl -sf -H "Authorization: Bearer $admin_key" "http://127.0.0.1:$port/metrics" | grep -E '^liveline_outbox_rows|^liveline_dispatch_latency_seconds_count' || true
