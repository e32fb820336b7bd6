#!/usr/bin/env bash
# Makes the C code of Sources/CGTFSRealtime from its .proto with protoc-c (Debian's
# protobuf-c-compiler). The generated files are committed: building needs only libprotobuf-c.
set -euo pipefail
cd "$(dirname "$0")/../Sources/CGTFSRealtime"
command -v protoc-c >/dev/null || { echo "protoc-c missing: apt-get install protobuf-c-compiler" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
protoc-c --proto_path=proto --c_out="$work" proto/gtfs-realtime.proto
mv "$work/gtfs-realtime.pb-c.h" include/gtfs-realtime.pb-c.h
# The header is included from include/, the source from here.
sed 's|#include "gtfs-realtime.pb-c.h"|#include "include/gtfs-realtime.pb-c.h"|' "$work/gtfs-realtime.pb-c.c" > gtfs-realtime.pb-c.c
echo "generated with $(protoc-c --version | head -1)"
