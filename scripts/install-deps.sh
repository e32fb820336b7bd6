#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Liveline builds, tests and benchmarks with (only the missing
# ones). Needs the Swift toolchain on PATH already.
set -euo pipefail

packages=(
  libmicrohttpd-dev   # HTTP/1.1 server
  libsqlite3-dev      # embedded storage
  libpq-dev           # PostgreSQL client (several instances on one database)
  postgresql          # tests only: a throw-away cluster per test run (initdb + pg_ctl in a temp folder)
  libssl-dev          # SHA-256, random, TLS, ES256
  libnghttp2-dev      # HTTP/2 (APNs sandbox and client)
  libcurl4-openssl-dev  # the web push client (HTTP/1.1 and HTTP/2 to push services)
  libzip-dev          # transit: GTFS feeds as .zip archives
  libcsv-dev          # transit: the GTFS files' CSV (RFC 4180: quotes, CRLF)
  libprotobuf-c-dev   # transit: GTFS-Realtime feeds (protobuf), with the code protoc-c made from Sources/CGTFSRealtime
  pkg-config
  python3-venv        # tests only: scripts/test-venv.sh (PyJWT cross-checks the JWTs, aioapns the sandbox)
  curl                # curl --http2 against the APNs sandbox (tests); brings libcurl4, which the
                      # toolchain's FoundationNetworking (LivelineClient on Linux) runs on
  nghttp2-client      # tests only: h2load against the APNs sandbox
  fonts-noto-color-emoji  # tests only: the cards' emoji in the browser tests' screenshots
  iproute2            # tests only: ip netns and veth pairs for the network fault tests (docs/reliability.md)
  iptables            # tests only: iptables-legacy sends those pairs' packets to the tests' loss/delay queue (NFQUEUE)
  nginx               # tests only: the dashboard behind deploy/nginx/liveline.conf (ReverseProxyBrowserTests); the benchmarks' static peer
  openssl             # tests only: that test's self-signed certificate
  debootstrap         # tests only: scripts/test-package.sh runs the release archive in a minimal Debian root
  systemd             # tests only: systemd-analyze verify checks deploy/liveline.service (scripts/test-package.sh)
)
# Tests only: the dashboard's browser tests drive Debian's chromium (headless) through its
# chromium-driver. Ubuntu ships chromium as a snap (no .deb candidate): there the browser tests
# fail saying what is missing, and everything else installs.
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
updated=""
# No `grep -q` after a pipe here: with pipefail, grep -q leaving at the first match can end the
# writer with SIGPIPE and make the whole test fail at random (a CI run went without chromium so).
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep "install ok installed" >/dev/null; }
has_chromium() { apt-cache policy chromium 2>/dev/null | grep "Candidate: [0-9]" >/dev/null; }
if ! installed chromium-driver && ! has_chromium; then
  $sudo apt-get update -qq   # a fresh machine's package lists may be empty yet
  updated=1
fi
if installed chromium-driver || has_chromium; then
  packages+=(chromium chromium-driver)
else
  echo "note: no chromium .deb here (Ubuntu ships it as a snap): the dashboard's browser tests need Debian's chromium and chromium-driver" >&2
fi
if [ "${1:-}" = "--bench" ]; then
  packages+=(wrk bc nghttp2-server)   # nghttpd: the reference of scripts/bench-sandbox.sh
fi

missing=()
for package in "${packages[@]}"; do
  installed "$package" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  [ -n "$updated" ] || $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "swift is not on PATH: install the Swift 6 toolchain first (swift.org)" >&2; exit 1; }
