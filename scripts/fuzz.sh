#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer: `scripts/fuzz.sh TARGET SECONDS` (or `all SECONDS`).
# Builds Fuzz/Targets/<Harness>Fuzz.swift together with the real source files of the module(s) it
# exercises (swiftc -sanitize=fuzzer,address) into .build/fuzz/<target>, runs it for SECONDS on a
# copy of Fuzz/corpus/<target> (new inputs stay in .build/fuzz/corpus/<target>), and exits 1 on a
# finding (a trap, an AddressSanitizer report, a hang, a leak), whose input is kept in
# .build/fuzz/findings/<target>/. Reproduce one: .build/fuzz/<target> FILE.
# FUZZ_TIMEOUT (seconds, default 10) is how long one input may run before it counts as a hang:
# raise it for long runs on a machine that other work keeps busy.
# The harnesses are no SwiftPM target: `swift build` and the product never see them.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGETS="payload-check api-decoding router gtfs-csv gtfs-realtime web-push-subscription contract-file"
if [ $# -ne 2 ]; then
  echo "usage: scripts/fuzz.sh TARGET|all SECONDS   (targets: $TARGETS)" >&2
  exit 2
fi
target=$1 seconds=$2
if [ "$target" = all ]; then
  for t in $TARGETS; do "$0" "$t" "$seconds"; done
  exit 0
fi
out=.build/fuzz
mkdir -p "$out/lib" "$out/modules" "$out/findings/$target" "$out/corpus/$target"
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6)
# ld.gold's "Cannot export local symbol __asan_…" warnings are harmless.
quiet() { "$@" 2> >(grep -v 'Cannot export local symbol' >&2); }

# LivelineModel as a module of its own (the router and the realtime feed import it).
model() {
  local stamp="$out/lib/LivelineModel.o"
  if [ ! -f "$stamp" ] || [ -n "$(find Sources/LivelineModel -name '*.swift' -newer "$stamp" | head -1)" ]; then
    quiet swiftc "${flags[@]}" -wmo -module-name LivelineModel -emit-module -emit-module-path "$out/lib/LivelineModel.swiftmodule" \
      -c -o "$stamp" $(find Sources/LivelineModel -name '*.swift' | sort)
  fi
}

# A built-in feature's model (Sources/<name>: contract, API bodies, routes) as a module of its own
# over LivelineModel, as SwiftPM builds it.
featuremodel() {
  local name=$1 stamp="$out/lib/$1.o"
  model
  if [ ! -f "$stamp" ] || [ -n "$(find Sources/"$name" Sources/LivelineModel -name '*.swift' -newer "$stamp" | head -1)" ]; then
    quiet swiftc "${flags[@]}" -wmo -module-name "$name" -I "$out/lib" -emit-module -emit-module-path "$out/lib/$name.swiftmodule" \
      -c -o "$stamp" $(find Sources/"$name" -name '*.swift' | sort)
  fi
}

# The generic model and the built-in features' models, as modules of their own (the harnesses of
# payloads and bodies check the built-in contracts and decode their bodies).
models() {
  for m in LivelineShoppingModel LivelineCookSuggestModel LivelineTransitModel; do featuremodel $m; done
  models=(-I "$out/lib" "$out/lib/LivelineModel.o" "$out/lib/LivelineShoppingModel.o" "$out/lib/LivelineCookSuggestModel.o"
    "$out/lib/LivelineTransitModel.o")
}

# A C target of the package (Sources/<name>/include/*.h, *.c): a module map of its headers and an
# object file of its C, instrumented too.
ctarget() {
  local name=$1
  mkdir -p "$out/modules/$name"
  { echo "module $name {"; for h in Sources/"$name"/include/*.h; do echo "    header \"$PWD/$h\""; done; echo "    export *"; echo "}"; } \
    >"$out/modules/$name/module.modulemap"
  clang -c -O1 -g -fsanitize=fuzzer-no-link,address -I Sources/"$name"/include Sources/"$name"/*.c -o "$out/lib/$name.o"
}

case $target in
  payload-check) harness=PayloadCheck maxlen=6144
    models
    build=(-module-name PayloadCheckFuzz "${models[@]}") ;;
  api-decoding) harness=APIDecoding maxlen=4096
    models
    build=(-module-name APIDecodingFuzz "${models[@]}") ;;
  web-push-subscription) harness=WebPushSubscription maxlen=2048
    build=(-module-name LivelineModel $(find Sources/LivelineModel -name '*.swift' | sort)) ;;
  contract-file) harness=ContractFile maxlen=8192
    build=(-module-name LivelineModel $(find Sources/LivelineModel -name '*.swift' | sort)) ;;
  router) harness=Router maxlen=512
    models
    ctarget CMicroHTTPD
    build=(-module-name LivelineHTTP "${models[@]}"
      -I "$out/modules/CMicroHTTPD" "$out/lib/CMicroHTTPD.o" -lmicrohttpd Sources/LivelineHTTP/Routing/Router.swift Sources/LivelineHTTP/Streaming/EventStream.swift
      $(find Sources/LivelineHTTP/Messages -name '*.swift' | sort)) ;;
  gtfs-csv) harness=GTFSCSV maxlen=8192
    model
    build=(-module-name LivelineTransit -I "$out/lib" "$out/lib/LivelineModel.o" -I Sources/CCSV -I Sources/CZip -lcsv -lzip $(find Sources/LivelineTransit/GTFS -name '*.swift' | sort)) ;;
  gtfs-realtime) harness=GTFSRealtime maxlen=8192
    featuremodel LivelineTransitModel
    ctarget CGTFSRealtime
    build=(-module-name LivelineTransit -I "$out/lib" -I "$out/modules/CGTFSRealtime" "$out/lib/LivelineModel.o" "$out/lib/LivelineTransitModel.o"
      "$out/lib/CGTFSRealtime.o"
      -lprotobuf-c Sources/LivelineTransit/Realtime/RealtimeFeed{,+Protobuf,Error}.swift) ;;
  *) echo "unknown target $target (targets: $TARGETS)" >&2; exit 2 ;;
esac

echo "== fuzz $target: building"
quiet swiftc "${flags[@]}" "${build[@]}" "Fuzz/Targets/${harness}Fuzz.swift" -o "$out/$target"
cp -n Fuzz/corpus/"$target"/* "$out/corpus/$target/" 2>/dev/null || true
echo "== fuzz $target: running ${seconds}s (corpus $(ls "$out/corpus/$target" | wc -l) inputs)"
set +e
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp,print_suppressions=0" "$out/$target" -max_total_time="$seconds" -max_len="$maxlen" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$out/findings/$target/" "$out/corpus/$target" 2>"$out/$target.log"
status=$?
set -e
grep -E '^#[0-9]+' "$out/$target.log" | tail -1 || true
grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$out/$target.log" | sort -u || true
if [ $status -ne 0 ]; then
  grep -E 'ERROR|Fatal error|SUMMARY|Test unit written' "$out/$target.log" | head -20 >&2
  echo "== fuzz $target: FINDING (exit $status); log $out/$target.log, input in $out/findings/$target/" >&2
  exit 1
fi
echo "== fuzz $target: no finding in ${seconds}s"
