#!/usr/bin/env bash
# Web Push benchmark (not a test), in one run on this machine: web pushes per second through
# Engine.notify (inbox record, outbox, RFC 8291 encryption and RFC 8292 VAPID at send time,
# libcurl with keep-alive) to the sandbox's push service, which decrypts and verifies every one;
# beside PyPI pywebpush sending to the same receiver (goal ≥ 10×); and one encryption in µs.
#
#   scripts/bench-webpush.sh            # 10,000 pushes (1,000 notifies × 10 browsers); pywebpush 1,000
#   PUSHES=2000 PEER_PUSHES=500 scripts/bench-webpush.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PUSHES=${PUSHES:-10000}
PEER_PUSHES=${PEER_PUSHES:-1000}

scripts/test-venv.sh
.venv/bin/python -c 'import pywebpush' 2>/dev/null || .venv/bin/pip install --quiet --disable-pip-version-check "pywebpush==2.5.0"
swift build -c release --product liveline-bench >&2
.build/release/liveline-bench webpush "$PUSHES" "$PEER_PUSHES"
