#!/usr/bin/env bash
# Shopping benchmark, on this machine in one run:
#  1. GET /api/shopping/{week}?since_rev=<current> (the pull an app makes when a push wakes it,
#     answered {week, rev, unchanged: true}) against nginx serving a file of the same bytes.
#  2. PATCH /api/shopping/items/{id} check-offs (done true / false in turn) per second, committed
#     with SQLite (each one a revision, an event and a sync row in one transaction; dispatcher on).
# Both servers write an access log to a file. Prints requests/s and the ratio to nginx.
#
#  3. The curve: the same pull with 1,000 and then 100,000 shopping weeks stored (seeded with
#     plain SQL into the data folder while the server runs: past weeks, ended, rev 3, three items
#     each), and a pull spread over all the stored weeks (each at its current rev), at both sizes.
#
#   scripts/bench-shopping.sh                 # 10 s per run, 2 rounds
#   DURATION=5 ROUNDS=1 scripts/bench-shopping.sh
#   CURVE=0 scripts/bench-shopping.sh         # without the curve
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
PATCH_CONNECTIONS=${PATCH_CONNECTIONS:-16}
ROUNDS=${ROUNDS:-2}
CURVE=${CURVE:-1}
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

[ "$CURVE" = 1 ] || exit 0

# seed_weeks TOTAL: past weeks of the bench household until TOTAL shopping weeks are stored.
seed_weeks() {
  python3 - "$work/data/liveline.sqlite" "$WEEK" "$1" "$token" <<'PY'
import datetime, sqlite3, sys
database, monday, total = sys.argv[1], sys.argv[2], int(sys.argv[3])
con = sqlite3.connect(database, timeout=60)
columns = [row[1] for row in con.execute("PRAGMA table_info(contexts)")]
template = dict(zip(columns, con.execute("SELECT * FROM contexts WHERE key LIKE ?", (f"shopping:%:{monday}",)).fetchone()))
household = template["household_id"]
user = con.execute("SELECT id FROM users WHERE household_id = ? ORDER BY id LIMIT 1", (household,)).fetchone()[0]
have = con.execute("SELECT count(*) FROM contexts WHERE key LIKE 'shopping:%'").fetchone()[0]
start = datetime.date.fromisoformat(monday)
contexts, revisions, items = [], [], []
for n in range(have, total):
    day = start - datetime.timedelta(weeks=n)
    week = "%04d-%02d-%02d" % (day.year, day.month, day.day)
    key = f"shopping:{household}:{week}"
    row = dict(template, key=key, state="ended", rev=3, ended_at=template["updated_at"], channel_id=None)
    contexts.append(tuple(row[c] for c in columns))
    for rev in (1, 2, 3):
        revisions.append((key, rev, template["updated_at"]))
        items.append((household, week, f"Artikel {rev}", 1.5, rev, user, template["updated_at"]))
with con:
    con.executemany(f"INSERT INTO contexts ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})", contexts)
    con.executemany("INSERT INTO context_revisions (context_key, rev, changed_at) VALUES (?, ?, ?)", revisions)
    con.executemany(
        "INSERT INTO shopping_items (household_id, week, label, price, position, done, added_by, added_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
        items)
# A wrk script pulling the seeded weeks in turn, each at its current rev (3).
weeks = [row[0].split(":")[2] for row in con.execute("SELECT key FROM contexts WHERE key LIKE 'shopping:%' AND rev = 3 AND state = 'ended'")]
with open(sys.argv[1] + ".spread.lua", "w") as lua:
    lua.write("local weeks = {" + ",".join(f'"{w}"' for w in weeks) + "}\n")
    lua.write("local i = 0\nfunction request()\n  i = i % #weeks + 1\n")
    lua.write('  return wrk.format("GET", "/api/shopping/" .. weeks[i] .. "?since_rev=3", {["Authorization"] = "Bearer ' + sys.argv[4] + '"})\nend\n')
print(con.execute("SELECT count(*) FROM contexts WHERE key LIKE 'shopping:%'").fetchone()[0])
PY
}

curve_pull=(); curve_spread=(); curve_sizes=(1000 100000)
for size in "${curve_sizes[@]}"; do
  stored=$(seed_weeks "$size")
  current=$(rev)
  best_pull=(); best_spread=()
  for round in $(seq "$ROUNDS"); do
    best_pull+=("$(bench_rate "$CONNECTIONS" "$base/$WEEK?since_rev=$current" "$auth")")
    best_spread+=("$(bench_rate "$CONNECTIONS" "http://127.0.0.1:$port" "$work/data/liveline.sqlite.spread.lua")")
    echo "$stored weeks stored, round $round: pull unchanged ${best_pull[-1]}  spread over the weeks ${best_spread[-1]}" >&2
  done
  curve_pull+=("$(bench_best "${best_pull[@]}")"); curve_spread+=("$(bench_best "${best_spread[@]}")")
done
echo
echo "The since-rev pull against the weeks stored (best of $ROUNDS rounds each):"
printf '%-62s %12s %12s %8s\n' "target" "1,000 weeks" "100,000" "ratio"
printf '%-62s %12.0f %12.0f %8.2f\n' "GET /api/shopping/{week}?since_rev=<current>, one week" "${curve_pull[0]}" "${curve_pull[1]}" \
  "$(echo "${curve_pull[1]} / ${curve_pull[0]}" | bc -l)"
printf '%-62s %12.0f %12.0f %8.2f\n' "the same, each request another stored week" "${curve_spread[0]}" "${curve_spread[1]}" \
  "$(echo "${curve_spread[1]} / ${curve_spread[0]}" | bc -l)"
