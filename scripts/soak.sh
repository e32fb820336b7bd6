#!/usr/bin/env bash
# The soak (docs/performance.md, "Soak"; a benchmark, not a test): one `liveline serve` (release
# build, SQLite in a fresh data folder) under a steady mixed load for MINUTES, with `liveline
# sandbox` in a process of its own as APNs and the Web Push service. scripts/peers/soak_load.py
# drives it — PUTs and pulls of 200 contexts, shopping changes, starts, notify with alert and web
# push, token churn answered 410, three dashboard pages on their event streams — and samples the
# server every 10 s: RSS, descriptors, threads, database and WAL size, outbox depth, p50/p99.
# It prints the table as it goes, then the checks (RSS after warm-up within +10 %, descriptors
# and threads flat, p99 flat, WAL bounded, no error); exit 1 when one fails. The table and the
# plot are written to OUT (default soak-out/): soak.csv, soak.svg.
#
#   scripts/soak.sh 60                 # the hour docs/performance.md quotes
#   SCALE=0.5 OUT=/tmp/soak scripts/soak.sh 5
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${1:?usage: scripts/soak.sh MINUTES}
SCALE=${SCALE:-1}
OUT=${OUT:-soak-out}
BUILD=${BUILD:-release}

swift build -c "$BUILD" --product liveline >&2
bin=.build/$BUILD/liveline
source scripts/bench-lib.sh

bench_sandbox
web_push_port=$(sed -n 's/^ *web push port: *\([0-9]*\).*/\1/p' "$work/sandbox.err" | head -1)
admin_key=soak-admin-key-0123456789abcdef
bench_liveline LIVELINE_ACCESS_LOG=off LIVELINE_ADMIN_KEY=$admin_key LIVELINE_WEBPUSH_SUBJECT=mailto:soak@liveline.test \
  LIVELINE_WEBPUSH_ALLOW_INSECURE=1 "${sandbox_env[@]}"
serve_pid=${pids[-1]}
bearer=$(bench_user)
echo "soak: $MINUTES min at scale $SCALE; liveline serve pid $serve_pid on port $port, sandbox control port $control" >&2

python3 scripts/peers/soak_load.py --port "$port" --pid "$serve_pid" --web-push-port "$web_push_port" --control-port "$control" \
  --admin-key "$admin_key" --bearer "$bearer" --database "$work/data/liveline.sqlite" --out "$OUT" --minutes "$MINUTES" --scale "$SCALE"
