#!/usr/bin/env bash
# Tests the release archive where no Swift toolchain is (docs/deploying.md, "How it is tested"):
# scripts/package.sh builds it; debootstrap makes a minimal Debian root (--variant=minbase), and
# apt-get installs in it exactly the packages the archive's README names, read from that README.
# There the archive is installed as the README says, and, run by its user liveline:
# `liveline demo --for 20` must end with its own check passed (every card on every phone shows
# the server's truth), and `liveline serve` on the archive's liveline.env must answer
# GET /healthz with 200 and a user made meanwhile with `liveline users add`. Also: the root has
# no swift and ldd finds every library there, the unit passes `systemd-analyze verify`, and
# docs/deploying.md names the same packages as the README.
# Any failure stops it with the reason; it prints how long each step took.
#
# Usage: scripts/test-package.sh [VERSION]   (passed to scripts/package.sh)
# Needs root (debootstrap, chroot, mount) and Debian's mirror: DEBIAN_MIRROR, default
# http://deb.debian.org/debian; the suite is this machine's (the archive names its packages).
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
say() { echo "== test-package: $*" >&2; }
fail() { echo "test-package: FAIL: $*" >&2; exit 1; }
took() { say "$1 took $((SECONDS - $2)) s"; }

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || fail "debootstrap is missing (scripts/install-deps.sh installs it)"
suite=$(. /etc/os-release && [ "${ID:-}" = debian ] && echo "${VERSION_CODENAME:-}") ||
  fail "needs Debian: the archive names the packages of the distribution it is built on"
[ -n "$suite" ] || fail "/etc/os-release names no Debian suite (VERSION_CODENAME)"
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

step=$SECONDS
archive=$(scripts/package.sh "$@")
took "scripts/package.sh" "$step"
[ -f "$archive" ] || fail "scripts/package.sh printed '$archive', which is no file"
name=$(basename "$archive" .tar.gz)

work=$(mktemp -d "${TMPDIR:-/tmp}/liveline-package-test.XXXXXX")
work=$(cd "$work" && pwd -P)   # as /proc/PID/root shows it
root="$work/root"
server_pid=""
# What is mounted inside the root (ours: /proc; debootstrap's, should it stop half-way), deepest first.
mounts_in_root() { awk -v r="$root/" 'substr($2, 1, length(r)) == r { print $2 }' /proc/self/mounts | sort -r; }
# Whichever way this ends: every process left in the root is stopped (only ours run there: the
# root is new), what is mounted in it is unmounted, and the folder goes, unless a mount is left.
cleanup() {
  local status=$?
  [ -z "$server_pid" ] || kill -KILL "$server_pid" 2>/dev/null || true
  for link in /proc/[0-9]*/root; do
    if [ "$(readlink "$link" 2>/dev/null)" = "$root" ]; then
      pid=${link#/proc/}
      kill -KILL "${pid%/root}" 2>/dev/null || true
    fi
  done
  [ -z "$server_pid" ] || wait "$server_pid" 2>/dev/null || true
  for mount in $(mounts_in_root); do umount "$mount" || umount --lazy "$mount" || true; done
  if [ -n "$(mounts_in_root)" ]; then
    echo "test-package: still mounted in the root: $(mounts_in_root | tr '\n' ' '); $work is left in place" >&2
  else
    rm -rf --one-file-system "$work"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The packages, from the archive's README itself: the line a person would run.
readme=$(tar -xOzf "$archive" "$name/README.md") || fail "$archive has no $name/README.md"
install_line=$(grep '^ *apt-get install --no-install-recommends ' <<<"$readme" | sed 's/^ *//' || true)
[ "$(grep -c . <<<"$install_line")" -eq 1 ] ||
  fail "the archive's README must have exactly one 'apt-get install --no-install-recommends' line, it has: ${install_line:-none}"
read -r -a packages <<<"${install_line#*--no-install-recommends }"
[ ${#packages[@]} -gt 0 ] || fail "the archive's README names no package"
say "runtime packages in the README: ${packages[*]}"
documented=$(grep '^ *apt-get install --no-install-recommends ' docs/deploying.md | sed 's/^ *//' || true)
[ "$documented" = "$install_line" ] || fail "docs/deploying.md does not name the archive's runtime packages; it should carry: $install_line"

step=$SECONDS
debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 30 "$work/debootstrap.log" >&2; fail "debootstrap --variant=minbase $suite failed (log above)"; }
took "debootstrap --variant=minbase $suite" "$step"
mount -t proc proc "$root/proc" || fail "could not mount /proc in the root"

in_root() { chroot "$root" "$@"; }
# As the service's user, with nothing of this machine's environment. An array, not a function:
# started in the background, a function would run in a subshell of its own, and the server's
# pid ($!) would be that shell's.
as_liveline=(chroot --userspec=liveline:liveline "$root" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/var/lib/liveline)

# Installed as the archive's README says (systemd aside: the root has none).
mkdir -p "$root/root/download"
tar -xzf "$archive" -C "$root/root/download" || fail "could not unpack $archive"
in_root sh -ec "
  cd /root/download/$name
  install -m 0755 liveline /usr/local/bin/liveline
  useradd --system --home-dir /var/lib/liveline --shell /usr/sbin/nologin liveline
  install -d -m 0755 /etc/liveline
  install -m 0600 liveline.env /etc/liveline/liveline.env
  install -d -m 0755 /etc/systemd/system
  install -m 0644 liveline.service /etc/systemd/system/liveline.service
  install -d -m 0700 -o liveline -g liveline /var/lib/liveline   # the unit's StateDirectory=liveline
" || fail "installing the archive in the root as its README says failed"

# Without the packages the binary must not run here: else this test would prove nothing.
missing=$(in_root ldd /usr/local/bin/liveline 2>&1 | grep -c 'not found' || true)
[ "$missing" -gt 0 ] || fail "the minimal root already has every library: it cannot show that the README's list is complete"
say "before the packages, ldd in the root finds $missing libraries missing"

step=$SECONDS
DEBIAN_FRONTEND=noninteractive in_root apt-get install -y -q --no-install-recommends "${packages[@]}" >"$work/apt.log" 2>&1 ||
  { tail -n 30 "$work/apt.log" >&2; fail "apt-get install of the README's packages failed in the root (log above)"; }
took "apt-get install of ${#packages[@]} packages" "$step"

# No toolchain: no swift, no Swift runtime library anywhere in the root.
in_root sh -c 'command -v swift' >/dev/null 2>&1 && fail "the root has swift: $(in_root sh -c 'command -v swift')"
toolchain_files=$(find "$root" -xdev \( -name 'libswiftCore*' -o -name 'libFoundation*.so*' -o -name 'libdispatch*.so*' \) -print)
[ -z "$toolchain_files" ] || fail "the root has Swift runtime libraries: $toolchain_files"
ldd_out=$(in_root ldd /usr/local/bin/liveline 2>&1) || fail "ldd fails on the binary in the root: $ldd_out"
if grep 'not found' <<<"$ldd_out" >&2; then fail "ldd in the root does not find the libraries above: the README's list misses their packages"; fi
say "in the root: no swift, ldd finds all $(grep -c '=>' <<<"$ldd_out") libraries"
# The system's trust, which the TLS clients use to reach APNs and web push services (no test
# here reaches them): ca-certificates' bundle, where OpenSSL and libcurl look by default.
[ -s "$root/etc/ssl/certs/ca-certificates.crt" ] || fail "the root has no /etc/ssl/certs/ca-certificates.crt: the README's list misses ca-certificates"

command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing (scripts/install-deps.sh installs systemd)"
# The unit as installed, pointed at the binary where this machine sees it.
sed "s|^ExecStart=/usr/local/bin/liveline|ExecStart=$root/usr/local/bin/liveline|" "$root/etc/systemd/system/liveline.service" \
  >"$work/liveline.service"
verify=$(systemd-analyze verify "$work/liveline.service" 2>&1) || fail "systemd-analyze verify: $verify"
[ -z "$verify" ] || fail "systemd-analyze verify complains about liveline.service: $verify"
say "systemd-analyze verify liveline.service: clean; $(systemd-analyze security --offline=yes "$work/liveline.service" 2>/dev/null |
  grep -o 'Overall exposure level.*' || echo 'no exposure rating')"

step=$SECONDS
demo_status=0
"${as_liveline[@]}" timeout --kill-after=10 120 liveline demo --port 0 --for 20 >"$work/demo.out" 2>"$work/demo.err" || demo_status=$?
verdict=$(grep 'liveline demo: every card matches: [1-9][0-9]* cards' "$work/demo.err" || true)
if [ "$demo_status" -ne 0 ] || [ -z "$verdict" ]; then
  tail -n 40 "$work/demo.err" >&2
  fail "liveline demo --for 20 exited $demo_status$([ -n "$verdict" ] || echo ' without every card matching')"
fi
took "liveline demo --for 20 ($verdict)" "$step"

step=$SECONDS
# The archive's settings, as systemd reads them, then port 0: a free port, which serve prints.
mapfile -t settings < <(grep -E '^LIVELINE_[A-Z0-9_]+=' "$root/etc/liveline/liveline.env")
"${as_liveline[@]}" "${settings[@]}" LIVELINE_PORT=0 liveline serve >"$work/serve.out" 2>"$work/serve.err" &
server_pid=$!
deadline=$((SECONDS + 30))
port=""
while [ -z "$port" ]; do
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.err" >&2; fail "liveline serve exited before it listened"; }
  [ "$SECONDS" -lt "$deadline" ] || { cat "$work/serve.err" >&2; fail "liveline serve did not say within 30 s where it listens"; }
  port=$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*' "$work/serve.err" | grep -o '[0-9]*$' || true)
  [ -n "$port" ] || sleep 0.2
done
grep -q 'data in /var/lib/liveline/liveline.sqlite' "$work/serve.err" ||
  { cat "$work/serve.err" >&2; fail "liveline serve does not keep its data in /var/lib/liveline, as liveline.env says"; }
code=""
while [ "$code" != 200 ]; do
  [ "$SECONDS" -lt "$deadline" ] || { cat "$work/serve.err" >&2; fail "GET /healthz answered ${code:-nothing}, not 200, within 30 s"; }
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$port/healthz" || true)
  [ "$code" = 200 ] || sleep 0.2
done
say "liveline serve on port $port: GET /healthz answered 200"
made=$("${as_liveline[@]}" liveline users add --household Packaging --name Tester --data /var/lib/liveline) ||
  fail "liveline users add beside the running server failed: $made"
token=$(grep -o '"token":"[^"]*"' <<<"$made" | cut -d'"' -f4)
[ -n "$token" ] || fail "liveline users add printed no token: $made"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H "Authorization: Bearer $token" "http://127.0.0.1:$port/api/me" || true)
[ "$code" = 200 ] || fail "GET /api/me with the new user's token answered ${code:-nothing}, not 200"
say "a user made by liveline users add: GET /api/me answered 200"
kill -TERM "$server_pid"
deadline=$((SECONDS + 30))
while kill -0 "$server_pid" 2>/dev/null; do
  [ "$SECONDS" -lt "$deadline" ] || { cat "$work/serve.err" >&2; fail "liveline serve did not stop within 30 s of SIGTERM"; }
  sleep 0.2
done
serve_status=0
wait "$server_pid" || serve_status=$?
server_pid=""
[ "$serve_status" -eq 0 ] || { cat "$work/serve.err" >&2; fail "liveline serve exited $serve_status on SIGTERM, not 0"; }
took "liveline serve, /healthz, a user and SIGTERM" "$step"

say "passed: $archive runs without the Swift toolchain on Debian $suite with only its README's packages ($((SECONDS - started)) s in all)"
