#!/usr/bin/env bash
# Transit benchmark (not a test), in one run on this machine: the NYC subway feed (gtfs-kit's
# sample, ~86k stop times) read, checked and stored by liveline beside gtfs-kit (PyPI) reading
# the same file — time and peak memory of each process; then the tracker's loop with 10,000 rides
# of which 1 % are due (goal: the idle tick does not grow with the rides tracked).
#
#   scripts/bench-transit.sh            # RIDES=10000
set -euo pipefail
cd "$(dirname "$0")/.."
RIDES=${RIDES:-10000}
scripts/test-venv.sh   # also fetches gtfs-kit's sample feeds into .venv/fixtures/gtfs-kit
.venv/bin/python -c 'import gtfs_kit' 2>/dev/null || .venv/bin/pip install --quiet --disable-pip-version-check "gtfs-kit==13.0.1"
swift build -c release --product liveline-bench >&2
feed=.venv/fixtures/gtfs-kit/nyc_subway_gtfs.zip
for run in 1 2 3; do
  .build/release/liveline-bench transit-load "$feed"
  .venv/bin/python scripts/peers/gtfskit_load.py "$feed"
done
.build/release/liveline-bench tracker "$RIDES"
