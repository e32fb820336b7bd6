#!/usr/bin/env bash
# Runs every test: installs what the tests need, then `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/test-venv.sh   # .venv with PyJWT and aioapns: independent peers of the JWT and sandbox tests
swift build --build-tests
swift test --skip-build "$@"
