#!/usr/bin/env bash
# HTTP benchmark: wrk against Liveline's GET /healthz and an authenticated JSON GET of the token
# registry, and against nginx serving a small static file, on this machine in the same run.
# Both servers write an access log to a file. Prints requests/s of each and the ratios.
#
#   scripts/bench-http.sh            # 10 s per run, 64 connections, 2 rounds
#   DURATION=5 CONNECTIONS=32 ROUNDS=1 scripts/bench-http.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
ROUNDS=${ROUNDS:-2}

scripts/install-deps.sh --bench
swift build -c release --product liveline >&2
bin=.build/release/liveline
work=$(mktemp -d)
# nginx workers run as an unprivileged user: they must be able to read the files it serves.
chmod 755 "$work"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Liveline on its defaults (SQLite in a fresh data folder), access log to a file.
LIVELINE_ACCESS_LOG=stdout "$bin" serve --host 127.0.0.1 --port 0 --data "$work/data" >"$work/liveline-access.log" 2>"$work/liveline.err" &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$work/liveline.err" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$work/liveline.err")
[ -n "$port" ] || { cat "$work/liveline.err" >&2; exit 1; }
token=$("$bin" users add --household Bench --name Bench --data "$work/data" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
curl -sf -X POST "http://127.0.0.1:$port/api/apns/register" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  -d "{\"kind\":\"alert\",\"token\":\"$(printf 'ab%.0s' $(seq 32))\",\"device_id\":\"bench-phone\"}" >/dev/null
authorized_body=$(curl -sf "http://127.0.0.1:$port/api/apns/register" -H "Authorization: Bearer $token")

# nginx serving a file of the same size as the healthz answer, access log to a file.
nginx_port=$(free_port)
mkdir -p "$work/www" "$work/nginx"
curl -sf "http://127.0.0.1:$port/healthz" >"$work/www/health.json"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes auto;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 4096; }
http {
  access_log $work/nginx/access.log;
  keepalive_requests 1000000;
  default_type application/json;
  server { listen 127.0.0.1:$nginx_port; root $work/www; }
}
CONF
nginx -c "$work/nginx/nginx.conf" -g 'daemon off;' &
pids+=($!)
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$nginx_port/health.json" >/dev/null 2>&1 && break; sleep 0.1; done

rate() { # url [header]
  local out
  if [ $# -gt 1 ]; then out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -H "$2" "$1"); else out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" "$1"); fi
  # A server answering errors (e.g. nginx's 403 for a file it cannot read) is not measured.
  if echo "$out" | grep -q "Non-2xx"; then echo "$out" >&2; echo "non-2xx answers in the run above" >&2; exit 1; fi
  echo "$out" | awk '/Requests\/sec/ {print $2}'
}
best() { printf '%s\n' "$@" | sort -g | tail -1; }

nginx_runs=(); healthz_runs=(); auth_runs=()
for round in $(seq "$ROUNDS"); do
  nginx_runs+=("$(rate "http://127.0.0.1:$nginx_port/health.json")")
  healthz_runs+=("$(rate "http://127.0.0.1:$port/healthz")")
  auth_runs+=("$(rate "http://127.0.0.1:$port/api/apns/register" "Authorization: Bearer $token")")
  echo "round $round: nginx ${nginx_runs[-1]}  healthz ${healthz_runs[-1]}  token-registry GET ${auth_runs[-1]}" >&2
done
nginx_best=$(best "${nginx_runs[@]}"); healthz_best=$(best "${healthz_runs[@]}"); auth_best=$(best "${auth_runs[@]}")

echo "HTTP benchmark: wrk -t2 -c$CONNECTIONS -d${DURATION}s, best of $ROUNDS rounds, $(nproc) cores shared by wrk and the server"
printf '%-44s %12s %8s\n' "target" "requests/s" "× nginx"
printf '%-44s %12.0f %8s\n' "nginx static file ($(wc -c <"$work/www/health.json") bytes)" "$nginx_best" "1.00"
printf '%-44s %12.0f %8.2f\n' "liveline GET /healthz" "$healthz_best" "$(echo "$healthz_best / $nginx_best" | bc -l)"
printf '%-44s %12.0f %8.2f\n' "liveline GET /api/apns/register (bearer, ${#authorized_body} B JSON)" "$auth_best" "$(echo "$auth_best / $nginx_best" | bc -l)"
echo "access log lines written by liveline: $(wc -l <"$work/liveline-access.log"), by nginx: $(wc -l <"$work/nginx/access.log")"
