#!/usr/bin/env bash
# PostgreSQL benchmark (not a test), in one run on a throw-away cluster on this machine (stock
# settings: fsync and synchronous commit on; docs/operations.md, "Several instances"):
#  1. outbox throughput: alert rows due → done with a sender that accepts at once, one instance vs
#     three (each with its own pool and dispatcher; goal ≥ 15,000 rows/s for one, 3 ≥ 2.5× one
#     until the database is the limit);
#  2. insert → claim latency: a row committed on one instance, sent by another that learns of it
#     through LISTEN/NOTIFY (goal p50 ≤ 10 ms, p99 ≤ 50 ms): rows 400 ms apart (the receiver idle,
#     woken by the notification) and 20 ms apart (inside its 250 ms of looking every 5 ms);
#  3. committed PUT /v1/contexts/… per second through `liveline serve` on PostgreSQL and on SQLite
#     (wrk, the dispatcher running), next to pgbench's simple-update TPS on the same server with
#     as many clients (the ceiling), in ROUNDS (3) rounds of the two one after the other.
#
#   scripts/bench-postgres.sh                  # 50,000 rows; wrk and pgbench 10 s, 16 connections
#   ROWS=20000 DURATION=5 CONNECTIONS=8 scripts/bench-postgres.sh
#   PARTS=put scripts/bench-postgres.sh        # only part 3 (any of outbox, latency, put)
#   PARTS=put ROUNDS=1 scripts/bench-postgres.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-50000}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-16}
PARTS=${PARTS:-outbox,latency,put}
part() { [[ ",$PARTS," == *",$1,"* ]]; }

scripts/install-deps.sh --bench
swift build -c release --product liveline >&2
swift build -c release --product liveline-bench >&2
bin=.build/release/liveline
source scripts/bench-lib.sh
bench_postgres
echo "PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pg_port, $(nproc) cores shared with the instances"

if part outbox; then
  echo "== outbox throughput, no-op sender"
  .build/release/liveline-bench outbox "$pg_url" "$ROWS"
fi

if part latency; then
  echo "== insert → claim latency with LISTEN"
  .build/release/liveline-bench claim-latency "$pg_url" 200 400   # idle between rows: NOTIFY wakes the receiver
  .build/release/liveline-bench claim-latency "$pg_url" 500 20    # rows close together: the receiver is still looking
fi

part put || exit 0
echo "== PUT /v1/contexts/… committed per second"
admin_key=bench-admin-key-0123456789abcdef
# wrk's committed PUTs/s (bench_rate refuses a run with non-2xx answers), after a warm-up of 3 s
# that creates the contexts (pgbench's accounts exist before it measures too).
put_rate() {
  ADMIN_KEY=$admin_key CONTEXTS=1000 DURATION=3 bench_rate "$CONNECTIONS" "$1" scripts/peers/put_contexts.lua >/dev/null
  ADMIN_KEY=$admin_key CONTEXTS=1000 bench_rate "$CONNECTIONS" "$1" scripts/peers/put_contexts.lua
}
"$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U liveline pgbench
# pgbench's tables made anew for each round, as liveline's schema is.
pgbench_tps() {
  "$pg_bin/pgbench" -h 127.0.0.1 -p "$pg_port" -U liveline -i -s 10 -q pgbench >/dev/null 2>&1
  "$pg_bin/pgbench" -h 127.0.0.1 -p "$pg_port" -U liveline -b simple-update -c "$CONNECTIONS" -j 2 -T "$DURATION" pgbench 2>/dev/null |
    awk '/^tps/ {print $3; exit}'
}
# Rounds of the two side by side (this machine's speed drifts between minutes): each round a
# fresh schema for liveline, its PUTs, then pgbench.
ratios=()
for round in $(seq "${ROUNDS:-3}"); do
  "$pg_bin/psql" -q -h 127.0.0.1 -p "$pg_port" -U liveline -c "DROP SCHEMA public CASCADE; CREATE SCHEMA public" liveline >/dev/null 2>&1
  rm -rf "$work/data"
  bench_liveline LIVELINE_DATABASE_URL=$pg_url LIVELINE_ACCESS_LOG=off LIVELINE_ADMIN_KEY=$admin_key
  pg_put=$(put_rate "http://127.0.0.1:$port")
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
  tps=$(pgbench_tps)
  ratio=$(python3 -c "print(f'{$pg_put / $tps:.2f}')")
  ratios+=("$ratio")
  printf 'round %s: PUT /v1/contexts on PostgreSQL %s committed/s; pgbench simple-update %s TPS (the ceiling, %s clients); PUT / pgbench = %s×\n' \
    "$round" "$pg_put" "$tps" "$CONNECTIONS" "$ratio"
done
rm -rf "$work/data"
bench_liveline LIVELINE_ACCESS_LOG=off LIVELINE_ADMIN_KEY=$admin_key
sqlite_put=$(put_rate "http://127.0.0.1:$port")
kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
printf 'PUT /v1/contexts on SQLite: %s committed/s (%s connections, %s s)\n' "$sqlite_put" "$CONNECTIONS" "$DURATION"
printf 'PostgreSQL PUT / pgbench, median of %s rounds: %s×\n' "${#ratios[@]}" "$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
