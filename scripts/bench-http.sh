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
source scripts/bench-lib.sh

# Liveline on its defaults (SQLite in a fresh data folder), access log to a file.
bench_liveline
token=$(bench_user)
curl -sf -X POST "http://127.0.0.1:$port/api/apns/register" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  -d "{\"kind\":\"alert\",\"token\":\"$(printf 'ab%.0s' $(seq 32))\",\"device_id\":\"bench-phone\"}" >/dev/null
authorized_body=$(curl -sf "http://127.0.0.1:$port/api/apns/register" -H "Authorization: Bearer $token")

# nginx serving a file of the same size as the healthz answer, access log to a file.
curl -sf "http://127.0.0.1:$port/healthz" >"$work/health.json"
bench_nginx "$work/health.json"

nginx_runs=(); healthz_runs=(); auth_runs=()
for round in $(seq "$ROUNDS"); do
  nginx_runs+=("$(bench_rate "$CONNECTIONS" "$nginx_url")")
  healthz_runs+=("$(bench_rate "$CONNECTIONS" "http://127.0.0.1:$port/healthz")")
  auth_runs+=("$(bench_rate "$CONNECTIONS" "http://127.0.0.1:$port/api/apns/register" "Authorization: Bearer $token")")
  echo "round $round: nginx ${nginx_runs[-1]}  healthz ${healthz_runs[-1]}  token-registry GET ${auth_runs[-1]}" >&2
done
nginx_best=$(bench_best "${nginx_runs[@]}"); healthz_best=$(bench_best "${healthz_runs[@]}"); auth_best=$(bench_best "${auth_runs[@]}")

echo "HTTP benchmark: wrk -t2 -c$CONNECTIONS -d${DURATION}s, best of $ROUNDS rounds, $(nproc) cores shared by wrk and the server"
printf '%-44s %12s %8s\n' "target" "requests/s" "× nginx"
printf '%-44s %12.0f %8s\n' "nginx static file ($(wc -c <"$work/health.json") bytes)" "$nginx_best" "1.00"
printf '%-44s %12.0f %8.2f\n' "liveline GET /healthz" "$healthz_best" "$(echo "$healthz_best / $nginx_best" | bc -l)"
printf '%-44s %12.0f %8.2f\n' "liveline GET /api/apns/register (bearer, ${#authorized_body} B JSON)" "$auth_best" "$(echo "$auth_best / $nginx_best" | bc -l)"
echo "access log lines written by liveline: $(wc -l <"$work/liveline-access.log"), by nginx: $(wc -l <"$work/nginx/access.log")"
