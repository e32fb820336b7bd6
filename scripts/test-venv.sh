#!/usr/bin/env bash
# Creates the test-only Python virtualenv at .venv (git-ignored) with the independent peers the
# tests run against Liveline: PyJWT + cryptography (ES256/JWT cross-checks of LivelineCrypto) and
# aioapns (an APNs client on h2, sent against the APNs sandbox), prometheus-client (its
# parser reads /metrics), http_ece (RFC 8188/8291 Web Push encryption, cross-checks
# WebPushPayload), selenium (drives Debian's chromium through chromium-driver in the dashboard's
# browser tests) and axe-playwright-python, for the axe-core it ships (axe.min.js, the browser
# tests' accessibility check; installed without its dependencies: playwright is not needed), and
# schemathesis, which checks the server against its own /openapi.json (OpenAPIContractTests).
# Idempotent: does nothing when the venv already has all of them.
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
# test does not change under us; so is http_ece 1.2.1 (Aug 2024, the Web Push peer), and
# axe-playwright-python 0.1.8 (axe-core 4.12.1: the accessibility rules the browser tests apply),
# and schemathesis 4.32.5 (its checks and data generation are what the contract test asserts on).
packages=(pyjwt cryptography "aioapns==4.0" "prometheus-client>=0.17" "http-ece==1.2.1" "selenium>=4.11" "schemathesis==4.32.5")
without_dependencies=("axe-playwright-python==0.1.8")
python=.venv/bin/python
complete='import importlib.util, os, sys
import jwt, cryptography, aioapns, prometheus_client, http_ece, selenium, schemathesis
if schemathesis.__version__ != "4.32.5": sys.exit(1)
axe = importlib.util.find_spec("axe_playwright_python")
sys.exit(0 if axe and os.path.isfile(os.path.join(list(axe.submodule_search_locations)[0], "axe.min.js")) else 1)'
if [ -x "$python" ] && "$python" -c "$complete" >/dev/null 2>&1; then
  fetch_gtfs_kit_feeds
  fetch_gtfs_rt_kit_fixtures
  exit 0
fi
command -v python3 >/dev/null || { echo "python3 is not on PATH: install python3 and python3-venv" >&2; exit 1; }
if [ ! -x "$python" ]; then
  python3 -m venv .venv || { echo "python3 -m venv failed: install python3-venv" >&2; rm -rf .venv; exit 1; }
fi
echo "installing ${packages[*]} ${without_dependencies[*]} into .venv" >&2
.venv/bin/pip install --quiet --disable-pip-version-check "${packages[@]}"
.venv/bin/pip install --quiet --disable-pip-version-check --no-deps "${without_dependencies[@]}"
"$python" -c "$complete" || { echo ".venv is missing pyjwt, cryptography, aioapns, prometheus-client, http-ece, selenium, schemathesis 4.32.5 or axe-playwright-python's axe.min.js" >&2; exit 1; }
fetch_gtfs_kit_feeds
fetch_gtfs_rt_kit_fixtures
