#!/usr/bin/env bash
# Shopping benchmark (issue 10), on this machine in one run:
#  1. GET /api/shopping/{week}?since_rev=<current> (the pull an app makes when a push wakes it,
#     answered {week, rev, unchanged: true}) against nginx serving a file of the same bytes.
#  2. PATCH /api/shopping/items/{id} check-offs (done true / false in turn) per second, committed
#     with SQLite (each one a revision, an event and a sync row in one transaction; dispatcher on).
# Both servers write an access log to a file. Prints requests/s and the ratio to nginx.
#
#   scripts/bench-shopping.sh                 # 10 s per run, 2 rounds
#   DURATION=5 ROUNDS=1 scripts/bench-shopping.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
PATCH_CONNECTIONS=${PATCH_CONNECTIONS:-16}
ROUNDS=${ROUNDS:-2}
WEEK=2026-01-05

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

LIVELINE_ACCESS_LOG=stdout "$bin" serve --host 127.0.0.1 --port 0 --data "$work/data" >"$work/liveline-access.log" 2>"$work/liveline.err" &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$work/liveline.err" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$work/liveline.err")
[ -n "$port" ] || { cat "$work/liveline.err" >&2; exit 1; }
token=$("$bin" users add --household Bench --name Bench --data "$work/data" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
auth="Authorization: Bearer $token"
base="http://127.0.0.1:$port/api/shopping"

# A week of 200 items (the first 100 for wrk's first thread, the next 100 for its second).
first_id=""
for i in $(seq 200); do
  id=$(curl -sf -X POST "$base/$WEEK/items" -H "$auth" -H 'Content-Type: application/json' -d "{\"label\":\"Artikel $i\",\"price\":1.5}" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  [ -n "$first_id" ] || first_id=$id
done
rev() { curl -sf "$base/$WEEK" -H "$auth" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rev"])'; }
current=$(rev)
curl -sf "$base/$WEEK?since_rev=$current" -H "$auth" >"$work/unchanged.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["unchanged"] is True, d' "$work/unchanged.json"

# nginx serving the same bytes as the unchanged answer, access log to a file.
nginx_port=$(free_port)
mkdir -p "$work/www" "$work/nginx"
cp "$work/unchanged.json" "$work/www/unchanged.json"
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
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$nginx_port/unchanged.json" >/dev/null 2>&1 && break; sleep 0.1; done

cat >"$work/patch.lua" <<LUA
local threads = 0
function setup(thread) thread:set("tid", threads); threads = threads + 1 end
function init(args) counter = 0 end
function request()
  counter = counter + 1
  local k = counter % 100
  local id = $first_id + tid * 100 + k
  local done = (math.floor(counter / 100) % 2 == 0) and "true" or "false"
  return wrk.format("PATCH", "/api/shopping/items/" .. id, {["Authorization"] = "Bearer $token", ["Content-Type"] = "application/json"}, '{"done":' .. done .. '}')
end
LUA

rate() { # connections url [header | script]
  local connections=$1 url=$2 extra=${3:-} out
  case "$extra" in
    "") out=$(wrk -t2 -c"$connections" -d"${DURATION}s" "$url") ;;
    *.lua) out=$(wrk -t2 -c"$connections" -d"${DURATION}s" -s "$extra" "$url") ;;
    *) out=$(wrk -t2 -c"$connections" -d"${DURATION}s" -H "$extra" "$url") ;;
  esac
  if echo "$out" | grep -q "Non-2xx"; then echo "$out" >&2; echo "non-2xx answers in the run above" >&2; exit 1; fi
  echo "$out" | awk '/Requests\/sec/ {print $2}'
}
best() { printf '%s\n' "$@" | sort -g | tail -1; }

nginx_runs=(); pull_runs=(); patch_runs=(); committed_runs=()
for round in $(seq "$ROUNDS"); do
  nginx_runs+=("$(rate "$CONNECTIONS" "http://127.0.0.1:$nginx_port/unchanged.json")")
  pull_runs+=("$(rate "$CONNECTIONS" "$base/$WEEK?since_rev=$current" "$auth")")
  before=$(rev); start=$(date +%s.%N)
  patch_runs+=("$(rate "$PATCH_CONNECTIONS" "http://127.0.0.1:$port" "$work/patch.lua")")
  elapsed=$(echo "$(date +%s.%N) - $start" | bc -l)
  current=$(rev)
  committed_runs+=("$(echo "($current - $before) / $elapsed" | bc -l)")
  echo "round $round: nginx ${nginx_runs[-1]}  pull unchanged ${pull_runs[-1]}  PATCH ${patch_runs[-1]} (committed revisions/s ${committed_runs[-1]})" >&2
done
nginx_best=$(best "${nginx_runs[@]}"); pull_best=$(best "${pull_runs[@]}"); patch_best=$(best "${patch_runs[@]}"); committed_best=$(best "${committed_runs[@]}")

echo "Shopping benchmark: wrk -t2 -d${DURATION}s, best of $ROUNDS rounds, $(nproc) cores shared by wrk and the servers"
printf '%-62s %12s %8s\n' "target" "requests/s" "× nginx"
printf '%-62s %12.0f %8s\n' "nginx static file ($(wc -c <"$work/www/unchanged.json") bytes), -c$CONNECTIONS" "$nginx_best" "1.00"
printf '%-62s %12.0f %8.2f\n' "liveline GET /api/shopping/{week}?since_rev=<current>, -c$CONNECTIONS" "$pull_best" "$(echo "$pull_best / $nginx_best" | bc -l)"
printf '%-62s %12.0f %8s\n' "liveline PATCH /api/shopping/items/{id} check-offs, -c$PATCH_CONNECTIONS" "$patch_best" "-"
printf '%-62s %12.0f %8s\n' "  of which committed changes (week rev delta / wall time)" "$committed_best" "-"
echo "week rev after the runs: $current; access log lines written by liveline: $(wc -l <"$work/liveline-access.log"), by nginx: $(wc -l <"$work/nginx/access.log")"
