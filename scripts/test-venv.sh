#!/usr/bin/env bash
# Creates the test-only Python virtualenv at .venv (git-ignored) with the independent peers the
# tests run against Liveline: PyJWT + cryptography (ES256/JWT cross-checks of LivelineCrypto) and
# aioapns (an APNs client on h2, sent against the APNs sandbox), prometheus-client (its
# parser reads /metrics) and http_ece (RFC 8188/8291 Web Push encryption, cross-checks
# WebPushPayload). Idempotent: does nothing when the venv already imports all of them.
# Also the GTFS feeds someone else wrote that the transit tests read: gtfs-kit's sample feeds and
# gtfs-rt-kit's GTFS-Realtime fixtures (with their static feed), from their source distributions
# on PyPI, into .venv/fixtures.
set -euo pipefail
cd "$(dirname "$0")/.."

fetch_gtfs_kit_feeds() {
  local target=.venv/fixtures/gtfs-kit version=13.0.1
  [ -f "$target/nyc_subway_gtfs.zip" ] && [ -f "$target/cairns_gtfs.zip" ] && [ -f "$target/sample_gtfs.zip" ] && return 0
  local work
  work=$(mktemp -d)
  echo "fetching gtfs-kit $version's sample feeds into $target" >&2
  .venv/bin/pip download --quiet --disable-pip-version-check --no-binary :all: --no-deps "gtfs-kit==$version" -d "$work"
  tar xzf "$work/gtfs_kit-$version.tar.gz" -C "$work" "gtfs_kit-$version/data"
  mkdir -p "$target"
  cp "$work/gtfs_kit-$version/data/"*.zip "$target/"
  rm -rf "$work"
}

fetch_gtfs_rt_kit_fixtures() {
  local target=.venv/fixtures/gtfs-rt-kit version=0.1.0
  [ -f "$target/trip_updates.pb" ] && [ -f "$target/vehicle_positions.pb" ] && [ -f "$target/static_gtfs/stop_times.txt" ] && return 0
  local work
  work=$(mktemp -d)
  echo "fetching gtfs-rt-kit $version's fixtures into $target" >&2
  .venv/bin/pip download --quiet --disable-pip-version-check --no-binary :all: --no-deps "gtfs-rt-kit==$version" -d "$work"
  tar xzf "$work/gtfs_rt_kit-$version.tar.gz" -C "$work" "gtfs_rt_kit-$version/tests/fixtures"
  rm -rf "$target"
  mkdir -p "$(dirname "$target")"
  cp -r "$work/gtfs_rt_kit-$version/tests/fixtures" "$target"
  rm -rf "$work"
}

# aioapns 4.0 (Dec 2024) installs on Python 3.11 with h2 4.x and pyOpenSSL; pinned so the peer
# test does not change under us; so is http_ece 1.2.1 (Aug 2024, the Web Push peer).
packages=(pyjwt cryptography "aioapns==4.0" "prometheus-client>=0.17" "http-ece==1.2.1")
python=.venv/bin/python
if [ -x "$python" ] && "$python" -c 'import jwt, cryptography, aioapns, prometheus_client, http_ece' >/dev/null 2>&1; then
  fetch_gtfs_kit_feeds
  fetch_gtfs_rt_kit_fixtures
  exit 0
fi
command -v python3 >/dev/null || { echo "python3 is not on PATH: install python3 and python3-venv" >&2; exit 1; }
if [ ! -x "$python" ]; then
  python3 -m venv .venv || { echo "python3 -m venv failed: install python3-venv" >&2; rm -rf .venv; exit 1; }
fi
echo "installing ${packages[*]} into .venv" >&2
.venv/bin/pip install --quiet --disable-pip-version-check "${packages[@]}"
"$python" -c 'import jwt, cryptography, aioapns, prometheus_client, http_ece' || { echo ".venv is missing pyjwt, cryptography, aioapns, prometheus-client or http-ece" >&2; exit 1; }
fetch_gtfs_kit_feeds
fetch_gtfs_rt_kit_fixtures
