#!/usr/bin/env bash
# The million-token benchmark (docs/performance.md, "A million tokens"; a benchmark, not a test):
# TOKENS la-update tokens of one trip context seeded into a fresh data folder, one `liveline
# serve` (release, SQLite) and `liveline sandbox` in processes of their own; one PUT of the
# context, timed until the sandbox accepted a push for every token, then the same pushes sent
# straight through APNSClient from the benchmark's process (the raw client), alternating for
# ROUNDS rounds. Prints each round, the ratio and the server's peak resident memory (VmHWM).
#
#   scripts/bench-million.sh                    # 1,000,000 tokens, 1 round
#   TOKENS=200000 ROUNDS=3 scripts/bench-million.sh
set -euo pipefail
cd "$(dirname "$0")/.."
TOKENS=${TOKENS:-1000000}
ROUNDS=${ROUNDS:-1}

swift build -c release --product liveline >&2
swift build -c release --product liveline-bench >&2
bin=.build/release/liveline
source scripts/bench-lib.sh

bench_sandbox
sandbox_pid=${pids[-1]}
admin_key=bench-admin-key-0123456789abcdef
key=trip:million
.build/release/liveline-bench seed-tokens "$work/data" "$key" "$TOKENS"
bench_liveline LIVELINE_ACCESS_LOG=off LIVELINE_ADMIN_KEY=$admin_key LIVELINE_LOG_LEVEL=warning "${sandbox_env[@]}"
serve_pid=${pids[-1]}
env "${sandbox_env[@]}" .build/release/liveline-bench million "$port" "$serve_pid" "$control" "$admin_key" "$key" "$TOKENS" "$ROUNDS" "$sandbox_pid"
