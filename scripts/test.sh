#!/usr/bin/env bash
# Runs every test: installs what the tests need, then `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/test-venv.sh   # .venv with PyJWT, aioapns, http_ece and selenium: independent peers of the JWT, sandbox, Web Push and browser tests
# A crash prints the whole symbolicated backtrace of the crashing thread (the runtime's defaults
# show at most 64 frames with the middle elided, and every other thread besides); children that
# tests start inherit it, with output-to=stderr (ChildProcess sends their standard output to
# /dev/null unless a test asks for it). Keys: docs/Backtracing.rst in the Swift repository.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=mentioned,limit=none,sanitize=no,output-to=stdout}"
# The tree stays formatted: the toolchain's own `swift format` with the repository's .swift-format.
swift format lint --strict -r Sources Tests Package.swift
swift build --build-tests
# The iOS glue (the code behind `#if canImport(ActivityKit)` / `canImport(WidgetKit)`) and
# examples/ios, type-checked against stubs of the Apple API they use (docs/sdk.md, "The iOS glue,
# type-checked on Linux"): a package of its own, never part of the product.
swift build --package-path Tests/AppleGlue --scratch-path .build/apple-glue
# examples/custom-backend: another package built on the Liveline library with a feature of its own
# (docs/architecture.md, "Adding a feature"), built and tested end to end against the product.
swift format lint --strict -r examples/custom-backend/Sources examples/custom-backend/Tests examples/custom-backend/Package.swift
swift build --package-path examples/custom-backend --scratch-path .build/custom-backend --build-tests
# examples/custom-activity: an app's own type and its exporter (docs/contracts.md, "Bring your own
# Live Activity"); the committed contract file must be what the exporter writes from the type.
swift format lint --strict -r examples/custom-activity/Sources examples/custom-activity/App examples/custom-activity/Package.swift
swift build --package-path examples/custom-activity --scratch-path .build/custom-activity
exported=$(mktemp)
.build/custom-activity/debug/export-contract >"$exported"
if ! cmp -s "$exported" examples/custom-activity/contracts/DeliveryActivityAttributes.json; then
  echo "examples/custom-activity/contracts/DeliveryActivityAttributes.json is not what export-contract writes; run it again:" >&2
  diff "$exported" examples/custom-activity/contracts/DeliveryActivityAttributes.json >&2 || true
  rm -f "$exported"
  exit 1
fi
rm -f "$exported"
# Swift Testing runs at most 8 test cases at once; without this, this toolchain starts every
# test together. Server and simulated-iPhone tests do blocking work (starting a server, creating
# and migrating its PostgreSQL schema) on the concurrency runtime's threads (one per core: two
# here), and with a few hundred tests under way a task a test made waited 10–94 s before it first
# ran (an app's first registration try: CI failed once at 90 s), and the PostgreSQL pass took
# 170–238 s. With 8, in the same hour: that wait was under 0.3 s, and the passes took 143–153 s
# (PostgreSQL) and 81 s (SQLite; 87 s without). The variable is Swift Testing's own and
# experimental: a toolchain without it runs all at once.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}"
# A hung run (it never should) fails after 30 minutes instead of holding CI to its limit.
# The store's suite runs on SQLite and PostgreSQL in this run; the engine, server and end-to-end
# suites on SQLite here, then once more on PostgreSQL (LIVELINE_TEST_BACKEND). The tests start a
# throw-away PostgreSQL cluster themselves (initdb + pg_ctl in a temporary folder) unless
# LIVELINE_TEST_DATABASE_URL names a server.
# The multi-instance tests (three servers, 5,000 changes; three upgraded and back under load), the crash loop (a `liveline serve`
# SIGKILLed ten times under five client threads) and the API contract run (schemathesis, a
# Python process busy for a minute or two) run after the parallel passes, the last two once per
# backend: beside the other suites they would take the two cores those time their waits on (seen:
# simulated phones whose apps registered a minute late).
if [ $# -gt 0 ]; then
  exec timeout --foreground --kill-after=30 1800 swift test --skip-build "$@"
fi
# Every server the suites start logs everything into this folder (LivelineTestSupport's TestLogs):
# at the end one test reads every line for secrets (bearer tokens, admin keys, push tokens, VAPID
# keys, database passwords).
export LIVELINE_TEST_LOG_DIR="$PWD/.build/test-logs"
rm -rf "$LIVELINE_TEST_LOG_DIR"
mkdir -p "$LIVELINE_TEST_LOG_DIR"
# The three long scripted tests (a 30 s network partition, a lease left to expire, a 30 s demo:
# mostly waiting) run in a process of their own beside the first pass: inside it they started
# only after most of its 900 tests and set its length (docs/performance.md, "Test suite time").
# `--ignore-lock` on both (neither builds): else one waits for the other's hold on .build.
long='APNSNetworkFaultTests|CrashRecoveryTests|DemoProcessTests'
long_out=$(mktemp)
timeout --foreground --kill-after=30 1800 swift test --skip-build --ignore-lock --filter "$long" >"$long_out" 2>&1 &
long_pid=$!
# Whichever way this script ends, the long tests do not outlive it and their output file goes.
trap 'kill "$long_pid" 2>/dev/null || true; rm -f "$long_out"' EXIT
first_status=0
timeout --foreground --kill-after=30 1800 swift test --skip-build --ignore-lock --skip SeveralInstancesTests --skip RollingUpgradeTests \
  --skip CrashLoopTests \
  --skip OpenAPIContractTests --skip "$long" || first_status=$?
long_status=0
wait "$long_pid" || long_status=$?
echo "== the long scripted tests ($long), run beside the first pass:"
cat "$long_out"
if [ "$first_status" -ne 0 ] || [ "$long_status" -ne 0 ]; then
  echo "== the first pass exited $first_status, the long scripted tests $long_status" >&2
  exit 1
fi
# The custom backend's own end-to-end test (built above).
timeout --foreground --kill-after=30 600 swift test --package-path examples/custom-backend --scratch-path .build/custom-backend --skip-build
LIVELINE_TEST_BACKEND=postgres timeout --foreground --kill-after=30 1800 swift test --skip-build \
  --filter 'LivelineEngineTests|LivelineServerTests|LivelineShoppingTests|LivelineCookSuggestTests|LivelineTransitTests|LivelineClientTests|LivelineDevicesTests|LivelineDashboardTests' \
  --skip CrashLoopTests --skip OpenAPIContractTests
timeout --foreground --kill-after=30 1800 swift test --skip-build --filter SeveralInstancesTests
timeout --foreground --kill-after=30 1800 swift test --skip-build --filter RollingUpgradeTests
for backend in sqlite postgres; do
  for suite in CrashLoopTests OpenAPIContractTests; do
    LIVELINE_TEST_BACKEND=$backend timeout --foreground --kill-after=30 600 swift test --skip-build --filter "$suite"
  done
done
LIVELINE_LOG_SCAN=1 swift test --skip-build --filter SuiteLogScanTests
# The release archive, run in a minimal Debian root without the toolchain (docs/deploying.md).
scripts/test-package.sh
# Every fuzz target for 30 s (scripts/fuzz.sh; about 5 minutes with the builds): a finding fails CI.
scripts/fuzz.sh all 30
