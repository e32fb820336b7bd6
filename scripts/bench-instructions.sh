#!/usr/bin/env bash
# Instruction counts, not seconds (docs/performance.md, "Instructions"): `liveline serve` runs under
# valgrind --tool=callgrind, which counts the instructions the process runs, the same for the same
# binary and inputs whatever else the machine does. The counters are zeroed before, and dumped
# after, each phase (callgrind_control), so each figure is the whole server's work (HTTP, auth,
# checks, commits, the dispatcher's render and recording, the APNs client) for that phase; the
# script waits for the dispatcher by reading the database file, not by asking the server. (What
# the server's threads do while idle — the dispatcher's idle polls, timers — is counted too: a
# little, more the longer a phase runs under valgrind.)
#   PUT   PUTS × PUT /v1/contexts/{key} on 30 existing contexts, until the dispatcher caught up;
#   pull  PULLS × GET /api/shopping/{week}?since_rev=<current> (an app that is up to date);
#   push  one PUT of a context with TOKENS la-update tokens, until the sandbox accepted every push
#         and the dispatcher recorded the answers (per push: ÷ TOKENS).
# The APNs sandbox runs in a process of its own (`liveline sandbox`, not counted).
#
#   scripts/bench-instructions.sh                # 300 PUTs, 300 pulls, 1,000 tokens
#   PUTS=100 PULLS=100 TOKENS=500 scripts/bench-instructions.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PUTS=${PUTS:-300}
PULLS=${PULLS:-300}
TOKENS=${TOKENS:-1000}

scripts/install-deps.sh --bench
swift build -c release --product liveline >&2
source scripts/bench-lib.sh
# valgrind 3.19 cannot read the toolchain's DWARF 5 debug info: a copy without it (symbols stay).
cp .build/release/liveline "$work/liveline"
strip --strip-debug "$work/liveline"
bin=$work/liveline

bench_sandbox
admin_key=bench-admin-key-0123456789abcdef
env LIVELINE_ACCESS_LOG=off LIVELINE_ADMIN_KEY=$admin_key LIVELINE_PUSH_MIN_INTERVAL_MS=0 "${sandbox_env[@]}" \
  valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$bin" serve --host 127.0.0.1 --port 0 --data "$work/data" \
  >/dev/null 2>"$work/liveline.err" &
server=$!
pids+=($server)
for _ in $(seq 600); do grep -q "listening on" "$work/liveline.err" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$work/liveline.err")
[ -n "$port" ] || { cat "$work/liveline.err" >&2; exit 1; }
user_token=$("$bin" users add --household Bench --name Bench --data "$work/data" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')

# Counters to zero, then the phase, then a dump; prints the phase's instructions.
measure() { # phase-name python-phase
  callgrind_control -z "$server" >/dev/null
  python3 "$work/client.py" "$2"
  callgrind_control -d "$server" >/dev/null
  local dump
  dump=$(ls -t "$work"/callgrind.out.* | head -1)
  awk '/^(summary|totals):/ {print $2; exit}' "$dump"
  rm -f "$dump"
}

cat >"$work/client.py" <<PY
import http.client, json, sqlite3, sys, time
admin, bearer, tokens = "$admin_key", "$user_token", $TOKENS
conn = http.client.HTTPConnection("127.0.0.1", $port, timeout=600)
def call(method, path, key, body=None, ok=(200, 201)):
    conn.request(method, path, json.dumps(body) if body is not None else None,
                 {"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    answer = conn.getresponse()
    data = answer.read()
    if answer.status not in ok:
        sys.exit(f"{method} {path}: {answer.status} {data[:200]}")
    return json.loads(data) if data else None
def put(key, delay):
    call("PUT", f"/v1/contexts/{key}", admin, {"type": "TripLiveActivityAttributes",
         "attributes": {"tripId": "t", "line": "S5", "destination": "Flughafen"},
         "contentState": {"currentStop": "Hauptbahnhof", "nextStop": "Messe", "nextStopTime": 803461320, "remainingTime": 240,
                          "delay": delay, "occupancy": "low", "phase": "inProgress", "progress": 0.5}})
def caught_up():  # nothing leased and nothing due: read from the database file, not asked of the server (not counted)
    while True:
        db = sqlite3.connect("file:$work/data/liveline.sqlite?mode=ro", uri=True, timeout=30)
        rows = db.execute("SELECT count(*) FROM outbox WHERE status IN ('due', 'leased') AND due_at <= ?",
                          (int(time.time() * 1000),)).fetchone()[0]
        db.close()
        if rows == 0: return
        time.sleep(0.2)
def accepted():
    sandbox = http.client.HTTPConnection("127.0.0.1", $control, timeout=60)
    sandbox.request("GET", "/sandbox")
    return json.loads(sandbox.getresponse().read())["acceptedCount"]
phase = sys.argv[1]
if phase == "setup":
    for n in range(30): put(f"trip:cg-{n}", 0)
    put("trip:cg-fan", 0)
    for n in range(tokens):
        call("POST", "/api/apns/register", bearer, {"kind": "la-update", "token": "%064x" % (0xc90000 + n),
             "device_id": f"cg-{n}", "context_key": "trip:cg-fan", "attributes_type": "TripLiveActivityAttributes"})
    for n in range(10): call("POST", "/api/shopping/2026-01-05/items", bearer, {"label": f"Artikel {n}", "price": 1.5})
    caught_up()
elif phase == "put":
    for n in range($PUTS): put(f"trip:cg-{n % 30}", 1 + n % 29)
    caught_up()
elif phase == "pull":
    rev = call("GET", "/api/shopping/2026-01-05", bearer)["rev"]
    for _ in range($PULLS):
        assert call("GET", f"/api/shopping/2026-01-05?since_rev={rev}", bearer)["unchanged"] is True
elif phase == "push":
    before = accepted()
    put("trip:cg-fan", 7)
    while accepted() < before + tokens: time.sleep(0.2)
    caught_up()
PY
python3 "$work/client.py" setup
put_ir=$(measure put put)
pull_ir=$(measure pull pull)
push_ir=$(measure push push)

echo "Instructions (valgrind --tool=callgrind, whole liveline serve process), $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources || echo '+changes'):"
printf '%-62s %14s\n' "operation" "instructions"
printf '%-62s %14.0f\n' "PUT /v1/contexts/{key} (check, commit, render; $PUTS puts)" "$(echo "$put_ir / $PUTS" | bc -l)"
printf '%-62s %14.0f\n' "GET /api/shopping/{week}?since_rev=<current> ($PULLS pulls)" "$(echo "$pull_ir / $PULLS" | bc -l)"
printf '%-62s %14.0f\n' "fan-out push (one change → $TOKENS tokens, sent and recorded)" "$(echo "$push_ir / $TOKENS" | bc -l)"
