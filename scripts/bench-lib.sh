# Shared by the benchmark scripts (source it; not a script of its own): a work folder removed on
# exit, liveline and nginx started in it, wrk runs that refuse to measure error answers.

work=$(mktemp -d)
# nginx workers run as an unprivileged user: they must be able to read the files it serves.
chmod 755 "$work"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# bench_liveline [env assignments…]: starts `liveline serve` on a free port with a fresh data
# folder ($work/data), access log to $work/liveline-access.log; sets $port.
bench_liveline() {
  env LIVELINE_ACCESS_LOG=stdout "$@" "$bin" serve --host 127.0.0.1 --port 0 --data "$work/data" \
    >"$work/liveline-access.log" 2>"$work/liveline.err" &
  pids+=($!)
  for _ in $(seq 100); do grep -q "listening on" "$work/liveline.err" 2>/dev/null && break; sleep 0.1; done
  port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$work/liveline.err")
  [ -n "$port" ] || { cat "$work/liveline.err" >&2; exit 1; }
}

# bench_user: a user of a new household; prints its bearer token.
bench_user() {
  "$bin" users add --household Bench --name Bench --data "$work/data" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])'
}

# bench_nginx FILE: nginx serving FILE's bytes (as application/json, access log to a file) on a
# free port; sets $nginx_port and $nginx_url.
bench_nginx() {
  nginx_port=$(free_port)
  mkdir -p "$work/www" "$work/nginx"
  cp "$1" "$work/www/$(basename "$1")"
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
  nginx_url="http://127.0.0.1:$nginx_port/$(basename "$1")"
  for _ in $(seq 50); do curl -sf "$nginx_url" >/dev/null 2>&1 && break; sleep 0.1; done
}

# bench_rate CONNECTIONS URL [HEADER | SCRIPT.lua]: wrk's requests/s over $DURATION seconds; a run
# with error answers (e.g. nginx's 403 for a file it cannot read) is not measured.
bench_rate() {
  local connections=$1 url=$2 extra=${3:-} out
  case "$extra" in
    "") out=$(wrk -t2 -c"$connections" -d"${DURATION}s" "$url") ;;
    *.lua) out=$(wrk -t2 -c"$connections" -d"${DURATION}s" -s "$extra" "$url") ;;
    *) out=$(wrk -t2 -c"$connections" -d"${DURATION}s" -H "$extra" "$url") ;;
  esac
  if echo "$out" | grep -q "Non-2xx"; then echo "$out" >&2; echo "non-2xx answers in the run above" >&2; exit 1; fi
  echo "$out" | awk '/Requests\/sec/ {print $2}'
}

bench_best() { printf '%s\n' "$@" | sort -g | tail -1; }

# bench_postgres: a throw-away PostgreSQL cluster in $work/pg on a free port (initdb + pg_ctl, as
# the unprivileged `postgres` user when run as root), stock settings (fsync and synchronous
# commit on); stopped on exit. Sets $pg_port, $pg_bin and $pg_url (user liveline, database liveline).
bench_postgres() {
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -x "$pg_bin/initdb" ] || { echo "PostgreSQL is not installed (scripts/install-deps.sh)" >&2; exit 1; }
  pg_port=$(free_port)
  local as=()
  mkdir -p "$work/pg"
  echo bench-password >"$work/pg/password"
  if [ "$(id -u)" = 0 ]; then chown -R postgres "$work/pg"; as=(runuser -u postgres --); fi
  "${as[@]}" "$pg_bin/initdb" -D "$work/pg/data" -U liveline --auth=scram-sha-256 --pwfile="$work/pg/password" >"$work/pg/initdb.log"
  "${as[@]}" "$pg_bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/server.log" -w \
    -o "-p $pg_port -k $work/pg -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
  pg_stop() { "${as[@]}" "$pg_bin/pg_ctl" -D "$work/pg/data" -m fast stop >/dev/null 2>&1 || true; }
  local previous_cleanup
  previous_cleanup=$(declare -f cleanup | tail -n +2)
  eval "cleanup() { pg_stop; $previous_cleanup }"
  export PGPASSWORD=bench-password
  "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U liveline liveline
  pg_url="postgresql://liveline:bench-password@127.0.0.1:$pg_port/liveline"
}

# bench_sandbox [OPTION…]: `liveline sandbox` in a process of its own (its memory and work are
# not the server's), any token accepted, with OPTIONs added; sets $control (its control port) and
# $sandbox_env, the environment that points a `liveline serve` at it (its key, ports and CA file).
bench_sandbox() {
  "$bin" sandbox --port 0 --management-port 0 --control-port 0 --web-push-port 0 --accept-any-token --data "$work/sandbox" \
    "$@" 2>"$work/sandbox.err" &
  pids+=($!)
  for _ in $(seq 100); do grep -q "device tokens:" "$work/sandbox.err" 2>/dev/null && break; sleep 0.1; done
  field() { sed -n "s/^ *$1: *\([^ ]*\).*/\1/p" "$work/sandbox.err" | head -1; }
  control=$(field "control port")
  [ -n "$control" ] || { cat "$work/sandbox.err" >&2; exit 1; }
  sandbox_env=(
    LIVELINE_APNS_ENVIRONMENTS=one LIVELINE_APNS_KEY_PATH="$(field "key file (.p8)")" LIVELINE_APNS_KEY_ID="$(field "key ID")"
    LIVELINE_APNS_TEAM_ID="$(field "team ID")" LIVELINE_APNS_BUNDLE_ID="$(field "bundle ID")"
    LIVELINE_APNS_HOST=127.0.0.1 LIVELINE_APNS_PORT="$(field "device port")"
    LIVELINE_APNS_MANAGEMENT_PORT="$(field "management port")" LIVELINE_APNS_CA_FILE="$(field "CA file")"
  )
}
