#!/usr/bin/env bash
# Shopping benchmark, on this machine in one run:
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
source scripts/bench-lib.sh

bench_liveline
token=$(bench_user)
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
bench_nginx "$work/unchanged.json"

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

nginx_runs=(); pull_runs=(); patch_runs=(); committed_runs=()
for round in $(seq "$ROUNDS"); do
  nginx_runs+=("$(bench_rate "$CONNECTIONS" "$nginx_url")")
  pull_runs+=("$(bench_rate "$CONNECTIONS" "$base/$WEEK?since_rev=$current" "$auth")")
  before=$(rev); start=$(date +%s.%N)
  patch_runs+=("$(bench_rate "$PATCH_CONNECTIONS" "http://127.0.0.1:$port" "$work/patch.lua")")
  elapsed=$(echo "$(date +%s.%N) - $start" | bc -l)
  current=$(rev)
  committed_runs+=("$(echo "($current - $before) / $elapsed" | bc -l)")
  echo "round $round: nginx ${nginx_runs[-1]}  pull unchanged ${pull_runs[-1]}  PATCH ${patch_runs[-1]} (committed revisions/s ${committed_runs[-1]})" >&2
done
nginx_best=$(bench_best "${nginx_runs[@]}"); pull_best=$(bench_best "${pull_runs[@]}"); patch_best=$(bench_best "${patch_runs[@]}"); committed_best=$(bench_best "${committed_runs[@]}")

echo "Shopping benchmark: wrk -t2 -d${DURATION}s, best of $ROUNDS rounds, $(nproc) cores shared by wrk and the servers"
printf '%-62s %12s %8s\n' "target" "requests/s" "× nginx"
printf '%-62s %12.0f %8s\n' "nginx static file ($(wc -c <"$work/unchanged.json") bytes), -c$CONNECTIONS" "$nginx_best" "1.00"
printf '%-62s %12.0f %8.2f\n' "liveline GET /api/shopping/{week}?since_rev=<current>, -c$CONNECTIONS" "$pull_best" "$(echo "$pull_best / $nginx_best" | bc -l)"
printf '%-62s %12.0f %8s\n' "liveline PATCH /api/shopping/items/{id} check-offs, -c$PATCH_CONNECTIONS" "$patch_best" "-"
printf '%-62s %12.0f %8s\n' "  of which committed changes (week rev delta / wall time)" "$committed_best" "-"
echo "week rev after the runs: $current; access log lines written by liveline: $(wc -l <"$work/liveline-access.log"), by nginx: $(wc -l <"$work/nginx/access.log")"
