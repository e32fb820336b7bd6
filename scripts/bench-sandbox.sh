#!/usr/bin/env bash
# APNs sandbox benchmark (not a test): h2load against `liveline sandbox` (--accept-any-token, a
# valid provider token in `authorization`, Live Activity headers, a small JSON body) and against
# nghttpd (Debian's C HTTP/2 server) serving a small file at the same path, with the same h2load
# parameters, TLS and certificate, in the same run. Prints requests/s of each and the ratio.
#
# By default one connection (h2load -c 1 -m 100), as APNs clients use the service: one HTTP/2
# connection carrying many concurrent streams. CONNECTIONS takes a list, one table row each.
#
#   scripts/bench-sandbox.sh                       # 200,000 requests, 1 connection × 100 streams, 2 rounds
#   CONNECTIONS="1 4" scripts/bench-sandbox.sh     # one connection, then four
#   REQUESTS=100000 CONNECTIONS=8 STREAMS=50 ROUNDS=1 scripts/bench-sandbox.sh
#   SCRATCH=.build-sandbox scripts/bench-sandbox.sh   # another SwiftPM scratch path
#   BIN=.build-rel/release/liveline scripts/bench-sandbox.sh   # a binary already built (no build)
set -euo pipefail
cd "$(dirname "$0")/.."
REQUESTS=${REQUESTS:-200000}
CONNECTIONS=${CONNECTIONS:-1}
STREAMS=${STREAMS:-100}
ROUNDS=${ROUNDS:-2}
SCRATCH=${SCRATCH:-.build}

scripts/install-deps.sh --bench
if [ -n "${BIN:-}" ]; then
  bin=$BIN
else
  swift build -c release --scratch-path "$SCRATCH" --product liveline >&2
  bin="$SCRATCH/release/liveline"
fi
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Every push kept, as when the figures in docs/performance.md were taken: with the default bound,
# each push to h2load's one token past its 1,000th moves the token's kept list.
"$bin" sandbox --port 0 --management-port 0 --control-port 0 --web-push-port 0 --accept-any-token --keep all --data "$work/sandbox" \
  2>"$work/sandbox.err" &
pids+=($!)
for _ in $(seq 100); do grep -q "control port:" "$work/sandbox.err" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/^ *device port: *\([0-9]*\).*/\1/p' "$work/sandbox.err")
control=$(sed -n 's/^ *control port: *\([0-9]*\).*/\1/p' "$work/sandbox.err")
[ -n "$port" ] && [ -n "$control" ] || { cat "$work/sandbox.err" >&2; exit 1; }
jwt=$(curl -sf -X POST "http://127.0.0.1:$control/token" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
token=$(printf 'ab%.0s' $(seq 32))
path="/3/device/$token"
printf '%s' '{"aps":{"timestamp":1767000000,"event":"update","content-state":{"score":"2:1"}}}' >"$work/payload.json"

# nghttpd with the sandbox's certificate, serving a small file at the same path.
nghttpd_port=$(free_port)
mkdir -p "$work/www/3/device"
printf '%s' '{"ok":true}' >"$work/www$path"
nghttpd --workers "$(nproc)" -d "$work/www" "$nghttpd_port" "$work/sandbox/key.pem" "$work/sandbox/cert.pem" >"$work/nghttpd.log" 2>&1 &
pids+=($!)
sleep 0.5

rate() { # port connections
  h2load -n "$REQUESTS" -c "$2" -m "$STREAMS" -t 1 -d "$work/payload.json" \
    -H "authorization: bearer $jwt" -H 'apns-push-type: liveactivity' \
    -H 'apns-topic: dev.liveline.demo.push-type.liveactivity' -H 'apns-priority: 10' \
    "https://127.0.0.1:$1$path" >"$work/h2load.out" 2>&1
  grep -q "status codes: $REQUESTS 2xx" "$work/h2load.out" || { echo "not all requests got a 2xx:" >&2; cat "$work/h2load.out" >&2; exit 1; }
  awk '/^finished in/ {print $4}' "$work/h2load.out"
}
best() { printf '%s\n' "$@" | sort -g | tail -1; }

rows=()
for connections in $CONNECTIONS; do
  nghttpd_runs=(); sandbox_runs=()
  for round in $(seq "$ROUNDS"); do
    nghttpd_runs+=("$(rate "$nghttpd_port" "$connections")")
    sandbox_runs+=("$(rate "$port" "$connections")")
    echo "$connections connection(s), round $round: nghttpd ${nghttpd_runs[-1]}  sandbox ${sandbox_runs[-1]} req/s" >&2
  done
  rows+=("$connections $(best "${nghttpd_runs[@]}") $(best "${sandbox_runs[@]}")")
done
accepted=$(curl -sf "http://127.0.0.1:$control/sandbox" | python3 -c 'import json,sys; print(json.load(sys.stdin)["acceptedCount"])')

echo "APNs sandbox benchmark: h2load -n $REQUESTS -c {$CONNECTIONS} -m $STREAMS -t 1, TLS 1.3, POST $(wc -c <"$work/payload.json") B, best of $ROUNDS rounds, $(nproc) cores shared by h2load and the server"
echo "nghttpd $(nghttpd --version | awk '{print $NF}') ($(nproc) workers, ${#path}-char path, 11-byte file); liveline sandbox (JWT checked, pushes recorded, 200 no DATA)"
printf '%-12s %18s %18s %9s\n' "connections" "nghttpd req/s" "sandbox req/s" "ratio"
for row in "${rows[@]}"; do
  read -r connections nghttpd_best sandbox_best <<<"$row"
  printf '%-12s %18.0f %18.0f %9.2f\n' "$connections" "$nghttpd_best" "$sandbox_best" "$(echo "$sandbox_best / $nghttpd_best" | bc -l)"
done
echo "pushes the sandbox accepted and recorded: $accepted"
