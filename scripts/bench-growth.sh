#!/usr/bin/env bash
# Costs as data grows (docs/performance.md, "Growth"), on this machine in one run:
#  1. PUT /v1/contexts/{key} committed per second and its p99 latency (wrk, 16 connections, keys
#     drawn at random among all of them, the dispatcher running) with 1,000, 100,000 and
#     1,000,000 contexts in the database (seeded by `liveline-bench seed-contexts`), the sizes
#     measured in turn for ROUNDS rounds, best of each;
#  2. one change → every la-update token accepted, for 1,000, 10,000 and 100,000 tokens, beside
#     the same pushes straight through the APNs client, with peak memory and the cost of one more
#     token between the sizes (`liveline-bench fanout`).
# (The since-rev pull with 1,000 vs 100,000 weeks stored: scripts/bench-shopping.sh.)
#
# ROUNDS is for the PUT runs; the fan-out takes FANOUT_ROUNDS for its largest size, 5 by default,
# and a smaller size as many rounds as push the same number of tokens, up to 30: between runs of 3
# to 5 rounds each, the median at 10,000 tokens moved by up to 40 % (the engine) and 72 % (the
# ceiling), which alone put the cost of one more token 26–37 % apart
# (docs/decisions/the-fan-out-benchmark.md).
#
#   scripts/bench-growth.sh                              # 10 s per PUT run, 3 rounds; 5 fan-out rounds
#   SIZES="1000 100000" DURATION=5 TOKENS=1000,10000 FANOUT_ROUNDS=3 scripts/bench-growth.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-1000 100000 1000000}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-16}
TOKENS=${TOKENS:-1000,10000,100000}
ROUNDS=${ROUNDS:-3}
FANOUT_ROUNDS=${FANOUT_ROUNDS:-5}

scripts/install-deps.sh --bench
swift build -c release --product liveline >&2
swift build -c release --product liveline-bench >&2
bin=.build/release/liveline
source scripts/bench-lib.sh
admin_key=bench-admin-key-0123456789abcdef

# Each size seeded once into a folder of its own; then ROUNDS rounds, each measuring every size in
# turn on a fresh server (alternating, so that a slow minute of the machine does not fall on one
# size only); each size's best round is reported (its p99 from that run), every run printed.
for size in $SIZES; do
  .build/release/liveline-bench seed-contexts "$work/seed-$size" "$size" >&2
done
declare -A best_rate best_p99 best_failed runs
for round in $(seq "$ROUNDS"); do
  for size in $SIZES; do
    rm -rf "$work/data" "$work/liveline.err"
    cp -r "$work/seed-$size" "$work/data"
    bench_liveline LIVELINE_ACCESS_LOG=off LIVELINE_ADMIN_KEY=$admin_key
    out=$(ADMIN_KEY=$admin_key CONTEXTS=$size wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s scripts/peers/put_contexts.lua \
      "http://127.0.0.1:$port")
    rate=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
    failed=$(echo "$out" | awk '/non-2xx/ {print $2}')
    kill "${pids[-1]}" && wait "${pids[-1]}" 2>/dev/null || true
    unset 'pids[-1]'
    runs[$size]="${runs[$size]:-}${runs[$size]:+ }$(printf '%.0f' "$rate")"
    if [ -z "${best_rate[$size]:-}" ] || (( $(echo "$rate > ${best_rate[$size]}" | bc -l) )); then
      best_rate[$size]=$rate; best_p99[$size]=$p99; best_failed[$size]=${failed:-0}
    fi
    echo "round $round, $size contexts: $rate PUT/s, p99 $p99, non-2xx ${failed:-0}" >&2
  done
done

echo "PUT /v1/contexts/{key} as the database grows: wrk -t2 -c$CONNECTIONS -d${DURATION}s, random keys, best of $ROUNDS alternating rounds, $(nproc) cores shared by wrk and the server"
printf '%12s %12s %10s %8s %12s %14s   %s\n' "contexts" "PUT/s" "p99" "non-2xx" "seeded MB" "× first size" "every round"
first=""
for size in $SIZES; do
  rate=${best_rate[$size]}
  first=${first:-$rate}
  printf '%12d %12.0f %10s %8s %12s %13.2f×   %s\n' "$size" "$rate" "${best_p99[$size]}" "${best_failed[$size]}" \
    "$(du -sm "$work/seed-$size" | cut -f1)" "$(echo "$rate / $first" | bc -l)" "${runs[$size]}"
done
echo "(goal: the rate at 1,000,000 contexts ≥ 0.8× the rate at 1,000)"
echo
.build/release/liveline-bench fanout "$TOKENS" "$FANOUT_ROUNDS"
