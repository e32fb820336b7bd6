#!/usr/bin/env bash
# Web Push benchmark (not a test), in one run on this machine: web pushes per second through
# Engine.notify (inbox record, outbox, RFC 8291 encryption and RFC 8292 VAPID at send time,
# libcurl with keep-alive), beside PyPI pywebpush sending to the same receiver (goal ≥ 10×), and
# one encryption in µs. Two receivers: nginx answering 201 to every POST (it measures the
# senders), then the sandbox's push service, which decrypts and verifies every push.
#
#   scripts/bench-webpush.sh            # 10,000 pushes (1,000 notifies × 10 browsers), pywebpush the same
#   PUSHES=2000 PEER_PUSHES=500 scripts/bench-webpush.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PUSHES=${PUSHES:-10000}
PEER_PUSHES=${PEER_PUSHES:-$PUSHES}
source scripts/bench-lib.sh

scripts/test-venv.sh
.venv/bin/python -c 'import pywebpush' 2>/dev/null || .venv/bin/pip install --quiet --disable-pip-version-check "pywebpush==2.5.0"
swift build -c release --product liveline-bench >&2

# The lean receiver: one nginx worker (the senders keep the other core), every POST answered 201
# with its body read and dropped, keep-alive without a request limit, a buffered access log.
lean_port=$(free_port)
mkdir -p "$work/lean"
cat >"$work/lean/nginx.conf" <<CONF
worker_processes 1;
pid $work/lean/nginx.pid;
error_log $work/lean/error.log;
events { worker_connections 1024; }
http {
  access_log $work/lean/access.log combined buffer=64k;
  keepalive_requests 1000000;
  client_body_temp_path $work/lean/body;
  server { listen 127.0.0.1:$lean_port; location / { return 201; } }
}
CONF
nginx -c "$work/lean/nginx.conf" -g 'daemon off;' &
pids+=($!)
for _ in $(seq 50); do curl -s -o /dev/null -X POST "http://127.0.0.1:$lean_port/push/ready" && break; sleep 0.1; done

.build/release/liveline-bench webpush "$PUSHES" "$PEER_PUSHES" "http://127.0.0.1:$lean_port"
