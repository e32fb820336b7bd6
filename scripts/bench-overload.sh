#!/usr/bin/env bash
# Overload (docs/reliability.md, "Overload"; not a test): `liveline serve` pushing to a
# `liveline sandbox` that answers every push after LATENCY_MS (2 s), while wrk PUTs
# /v1/contexts/trip:over-N at its full rate (CONNECTIONS connections for DURATION s, N cycling
# over CONTEXTS contexts, each with an la-update token, so every change means a push). The
# dispatcher cannot keep up: the outbox grows. Sampled every half second from /metrics and
# /proc/<pid>/status: outbox rows (due + leased), VmRSS and VmHWM. Meanwhile the channel
# management API hangs (MANAGEMENT_LATENCY_MS) and a few starts that want a broadcast channel
# are timed: they answer with channelFallback instead of holding an HTTP worker.
# After wrk: the time until nothing is overdue or in flight and until the outbox is empty, and
# whether every context's last state was accepted by the sandbox. Fails on any non-2xx answer
# or socket error, a start slower than START_LIMIT_S, a dead letter, a context whose last state
# did not arrive, or no drain within DRAIN_TIMEOUT s.
#
#   scripts/bench-overload.sh                       # release build, 15 s, 64 connections, 2,000 contexts
#   BUILD=debug DURATION=10 CONNECTIONS=32 CONTEXTS=1000 scripts/bench-overload.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-15}
CONNECTIONS=${CONNECTIONS:-64}
CONTEXTS=${CONTEXTS:-2000}
LATENCY_MS=${LATENCY_MS:-2000}
MANAGEMENT_LATENCY_MS=${MANAGEMENT_LATENCY_MS:-60000}
START_LIMIT_S=${START_LIMIT_S:-5}
DRAIN_TIMEOUT=${DRAIN_TIMEOUT:-600}
BUILD=${BUILD:-release}

scripts/install-deps.sh --bench
swift build -c "$BUILD" --product liveline >&2
bin=.build/$BUILD/liveline
source scripts/bench-lib.sh

# The sandbox, in a process of its own (its memory is not the server's), any token accepted;
# every push kept, as each context's last one is looked up at the end.
bench_sandbox --keep all

admin_key=bench-admin-key-0123456789abcdef
bench_liveline LIVELINE_ACCESS_LOG=off LIVELINE_ADMIN_KEY=$admin_key "${sandbox_env[@]}"
serve_pid=${pids[-1]}
base="http://127.0.0.1:$port"
token=$(bench_user)

# One la-update token per context (a phone following it), and each context's first state.
python3 - "$port" "$token" "$admin_key" "$CONTEXTS" <<'PY'
import http.client, json, sys
port, bearer, admin, contexts = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
state = {"currentStop": "Hauptbahnhof", "nextStop": "Messe", "nextStopTime": 803461320, "remainingTime": 240,
         "delay": 0, "occupancy": "low", "phase": "inProgress", "progress": 0.5}
for n in range(contexts):
    for method, path, key, body in [
        ("PUT", f"/v1/contexts/trip:over-{n}", admin,
         {"type": "TripLiveActivityAttributes", "attributes": {"tripId": "t", "line": "S5", "destination": "Flughafen"},
          "contentState": state}),
        ("POST", "/api/apns/register", bearer,
         {"kind": "la-update", "token": "%064x" % (0xbe0000 + n), "device_id": f"over-{n}", "context_key": f"trip:over-{n}",
          "attributes_type": "TripLiveActivityAttributes"}),
    ]:
        conn.request(method, path, json.dumps(body), {"Authorization": "Bearer " + key, "Content-Type": "application/json"})
        answer = conn.getresponse()
        answer.read()
        if answer.status not in (200, 201):
            sys.exit(f"{method} {path}: {answer.status}")
PY

outbox() { # due + leased rows, from /metrics
  curl -sf -m 10 -H "Authorization: Bearer $admin_key" "$base/metrics" |
    awk '/^liveline_outbox_rows\{state="(due|leased)"\}/ {n += $2} END {print n + 0}'
}
caught_up() { # nothing leased and nothing waiting past its due time (rows held for later may remain)
  curl -sf -m 10 -H "Authorization: Bearer $admin_key" "$base/metrics" |
    awk '/^liveline_outbox_rows\{state="leased"\}/ {n += $2} /^liveline_outbox_oldest_due_age_seconds/ {n += $2} END {exit !(n == 0)}'
}
dead() { curl -sf -m 10 -H "Authorization: Bearer $admin_key" "$base/metrics" | awk '/^liveline_outbox_rows\{state="dead"\}/ {print $2 + 0}'; }
memory() { awk '/^(VmHWM|VmRSS):/ {printf "%s %d ", $1, $2}' "/proc/$serve_pid/status"; } # kB
kb_mb() { awk -v kb="$1" 'BEGIN {printf "%.1f MB", kb / 1024}'; }
hwm() { awk '/^VmHWM:/ {print $2}' "/proc/$serve_pid/status"; }

# Everything sent so far drained: the baseline.
for _ in $(seq 600); do [ "$(outbox)" = 0 ] && break; sleep 0.5; done
hwm_before=$(hwm)

# APNs answers pushes after LATENCY_MS; its channel management API hangs.
curl -sf -X PUT "http://127.0.0.1:$control/faults" -H 'Content-Type: application/json' \
  -d "{\"latencyMs\": $LATENCY_MS, \"managementLatencyMs\": $MANAGEMENT_LATENCY_MS}" >/dev/null

# The sampler: time, phase, outbox rows, VmRSS and VmHWM (kB), every half second.
echo load >"$work/phase"
(
  started=$(date +%s.%N)
  while kill -0 "$serve_pid" 2>/dev/null; do
    printf '%.1f %s %s %s\n' "$(echo "$(date +%s.%N) - $started" | bc)" "$(cat "$work/phase")" "$(outbox || echo -)" "$(memory)"
    sleep 0.5
  done
) >"$work/samples" 2>/dev/null &
pids+=($!)

# A few starts that want a broadcast channel, while the management API hangs and wrk runs.
(
  sleep 3
  for n in 1 2 3; do
    curl -s -m 60 -o "$work/start-$n.json" -w '%{http_code} %{time_total}\n' -X POST "$base/v1/contexts/trip:over-$n/start" \
      -H "Authorization: Bearer $admin_key" -H 'Content-Type: application/json' \
      -d "{\"deviceIds\":[\"over-$n\"],\"alert\":{\"title\":\"Trip\"},\"useChannel\":true}"
    sleep 2
  done
) >"$work/starts" &
starts_pid=$!

wrk_started=$(date +%s.%N)
ADMIN_KEY=$admin_key CONTEXTS=$CONTEXTS PREFIX=trip:over- wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --timeout 30s \
  -s scripts/peers/put_contexts.lua "$base" >"$work/wrk.out"
wrk_ended=$(date +%s.%N)
echo drain >"$work/phase"
wait "$starts_pid"
outbox_at_end=$(outbox)

# The drain: until nothing is overdue or in flight (caught up), then until no row is left at all
# (rows of non-material changes wait for the quiet-change debounce, 30 s).
drained=""
caught=""
while [ "$(echo "$(date +%s.%N) - $wrk_ended < $DRAIN_TIMEOUT" | bc)" = 1 ]; do
  if [ -z "$caught" ] && caught_up; then caught=$(echo "$(date +%s.%N) - $wrk_ended" | bc); fi
  if [ "$(outbox)" = 0 ]; then drained=$(echo "$(date +%s.%N) - $wrk_ended" | bc); break; fi
  sleep 0.5
done
echo after >"$work/phase"
sleep 1
hwm_after=$(hwm)

# Did every context's last state reach APNs? The last push the sandbox accepted for each
# context's token against the context's current state.
arrived=$(python3 - "$port" "$admin_key" "$control" "$CONTEXTS" <<'PY'
import http.client, json, sys
port, admin, control, contexts = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
server = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
sandbox = http.client.HTTPConnection("127.0.0.1", control, timeout=30)
def get(conn, path, headers={}):
    conn.request("GET", path, headers=headers)
    answer = conn.getresponse()
    return json.loads(answer.read())
arrived = 0
for n in range(contexts):
    truth = get(server, f"/v1/contexts/trip:over-{n}", {"Authorization": "Bearer " + admin})["contentState"]
    pushes = get(sandbox, "/devices/%064x/pushes" % (0xbe0000 + n))["pushes"]
    last = json.loads(pushes[-1]["payload"])["aps"]["content-state"] if pushes else None
    arrived += last == truth
print(arrived)
PY
)

requests=$(awk '/requests in/ {print $1}' "$work/wrk.out")
rate=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.out")
non2xx=$(awk '/^non-2xx/ {print $2}' "$work/wrk.out")
errors5xx=$(awk '/^5xx/ {print $2}' "$work/wrk.out")
socket=$(grep "Socket errors" "$work/wrk.out" || echo "Socket errors: none")
latency=$(awk '/Latency/ {print $2 " (max " $4 ")"; exit}' "$work/wrk.out")
peak=$(awk '$3 ~ /^[0-9]+$/ && $3 > max {max = $3} END {print max + 0}' "$work/samples")
rss_peak=$(awk '{for (i = 4; i < NF; i++) if ($i == "VmRSS:" && $(i + 1) > max) max = $(i + 1)} END {print max + 0}' "$work/samples")
deadrows=$(dead)

echo "Overload: liveline serve ($BUILD build, SQLite, $(nproc) cores shared with wrk and the sandbox), APNs answering after ${LATENCY_MS} ms, its management API after ${MANAGEMENT_LATENCY_MS} ms"
echo "wrk -t2 -c$CONNECTIONS -d${DURATION}s PUT /v1/contexts over $CONTEXTS contexts (one la-update token each): $requests requests, $rate/s, latency $latency"
echo "non-2xx: $non2xx, of them 5xx: $errors5xx; $socket"
echo "outbox (due + leased): peak $peak rows, $outbox_at_end when wrk stopped; caught up (nothing overdue or in flight) ${caught:-NOT within $DRAIN_TIMEOUT} s and empty ${drained:-NOT within $DRAIN_TIMEOUT} s after wrk; dead letters: $deadrows"
echo "outbox rows every 5 s (load, then drain):" $(awk '$3 ~ /^[0-9]+$/ && int($1) % 5 == 0 && !seen[int($1)]++ {print $3}' "$work/samples")
echo "memory: VmHWM $(kb_mb "$hwm_before") before, $(kb_mb "$hwm_after") after (+$(kb_mb $((hwm_after - hwm_before)))); VmRSS peak $(kb_mb "$rss_peak")"
echo "contexts whose last state the sandbox accepted: $arrived of $CONTEXTS"
echo "starts wanting a channel while the management API hangs (status, seconds):" $(cat "$work/starts")
for n in 1 2 3; do
  grep -q '"channelFallback"' "$work/start-$n.json" || { echo "start $n has no channelFallback: $(cat "$work/start-$n.json")" >&2; exit 1; }
done
echo "the first one's channelFallback: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["channelFallback"])' "$work/start-1.json")"
cp "$work/samples" "${SAMPLES:-/dev/null}" 2>/dev/null || true

fail=0
[ "$non2xx" = 0 ] || { echo "FAIL: non-2xx answers" >&2; fail=1; }
grep -q "Socket errors" "$work/wrk.out" && { echo "FAIL: socket errors" >&2; fail=1; }
[ -n "$drained" ] || { echo "FAIL: the outbox did not drain" >&2; fail=1; }
[ "$deadrows" = 0 ] || { echo "FAIL: dead letters" >&2; fail=1; }
[ "$arrived" = "$CONTEXTS" ] || { echo "FAIL: a context's last state did not reach APNs" >&2; fail=1; }
awk -v limit="$START_LIMIT_S" '$1 != 200 || $2 > limit {bad = 1} END {exit bad}' "$work/starts" ||
  { echo "FAIL: a start was refused or slower than ${START_LIMIT_S} s" >&2; fail=1; }
exit $fail
