#!/usr/bin/env bash
# Builds the release archive dist/liveline-VERSION-linux-ARCH.tar.gz (docs/deploying.md): the
# liveline binary, built `-c release` with the Swift runtime and Foundation linked in, so that it
# runs without the Swift toolchain; a README naming the Debian packages it needs at run time;
# deploy/liveline.service and deploy/liveline.env. Prints the archive's path last.
#
# Usage: scripts/package.sh [VERSION]
#   VERSION  the first argument, else `git describe --tags --always --dirty` (a commit without a
#            tag: its short hash; uncommitted changes: -dirty)
#   ARCH     `uname -m` of the building machine
#
# The runtime packages are derived, not kept by hand: each library the binary names (NEEDED in
# `readelf -d`) is found where the loader finds it (`ldd`) and its package asked of dpkg
# (`dpkg -S`); so they are the names of the distribution the archive is built on, and the
# archive is for that distribution (the README says which). scripts/test-package.sh installs
# exactly that list in a fresh Debian root and runs the binary there.
#
# The build must print no warning. Two kinds of lines are not the code's and are shown as notes
# instead: SwiftPM's hint that a pkg-config file is missing ("you may be able to install … using
# your system-packager"), and the linker's warnings about objects inside the toolchain's own
# static libraries (its libFoundationEssentials.a calls mktemp, which glibc marks with a
# link-time warning). A build that is already up to date compiles nothing and so cannot show a
# warning: CI builds from scratch.
set -euo pipefail
cd "$(dirname "$0")/.."

version=${1:-$(git describe --tags --always --dirty)}
arch=$(uname -m)
name="liveline-$version-linux-$arch"
out=dist
command -v swift >/dev/null || { echo "package: swift is not on PATH" >&2; exit 1; }
toolchain=$(cd "$(dirname "$(readlink -f "$(command -v swift)")")/.." && pwd)

started=$SECONDS
log=$(mktemp)
stage=$(mktemp -d)
trap 'rm -rf "$log" "$stage"' EXIT

echo "== package: swift build -c release --static-swift-stdlib --product liveline" >&2
swift build -c release --static-swift-stdlib --product liveline 2>&1 | tee "$log" >&2
not_ours=(-e 'warning: you may be able to install .* using your system-packager' -e "^$toolchain/lib/swift_static/")
warnings=$(grep 'warning:' "$log" | grep -v "${not_ours[@]}" || true)
if [ -n "$warnings" ]; then
  echo "package: FAIL: the release build printed warnings:" >&2
  echo "$warnings" >&2
  exit 1
fi
grep 'warning:' "$log" | grep "${not_ours[@]}" | sed 's/^/package: note, not a warning of this code: /' >&2 || true
echo "== package: build took $((SECONDS - started)) s" >&2

binary=$(swift build -c release --static-swift-stdlib --product liveline --show-bin-path)/liveline
needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
[ -n "$needed" ] || { echo "package: FAIL: readelf -d $binary names no library" >&2; exit 1; }

# The package of each library the binary names; none may come from the toolchain.
packages=()
for library in $needed; do
  # `libz.so.1 => /lib/…/libz.so.1 (…)`, or for the loader itself `/lib64/ld-linux-x86-64.so.2 (…)`.
  path=$(ldd "$binary" | awk -v l="$library" '$1 == l && $2 == "=>" { print $3 }
    substr($1, length($1) - length(l)) == "/" l { print $1 }' | head -n 1)
  [ -n "$path" ] && [ "$path" != "not" ] || { echo "package: FAIL: ldd does not find $library" >&2; exit 1; }
  case "$path" in
    "$toolchain"/*) echo "package: FAIL: $library comes from the Swift toolchain ($path): not linked statically" >&2; exit 1 ;;
  esac
  # dpkg knows a file by the path its package ships it at: /lib/… or /usr/lib/… (merged /usr).
  owner=""
  for candidate in "$path" "/usr$path" "${path#/usr}" "$(readlink -f "$path")"; do
    owner=$(dpkg -S "$candidate" 2>/dev/null | head -n 1 | cut -d: -f1) && [ -n "$owner" ] && break
  done
  [ -n "$owner" ] || { echo "package: FAIL: no Debian package ships $path ($library)" >&2; exit 1; }
  packages+=("$owner")
done
# Not a library the binary names: the system's certificates, which the TLS connections to APNs
# and to web push services trust (Sources/LivelineHTTP2/TLS/TLSContext.swift, `client`; libcurl
# in Sources/LivelineWebPush/Transfer.swift) unless LIVELINE_APNS_CA_FILE names another.
packages+=(ca-certificates)
package_list=$(printf '%s\n' "${packages[@]}" | sort -u | tr '\n' ' ' | sed 's/ $//')

built_on=$(. /etc/os-release && echo "${PRETTY_NAME:-$ID $VERSION_ID}")
folder="$stage/$name"
mkdir -p "$folder"
# Debug information goes (a quarter of the binary); the symbol table stays, so a crash still
# prints a backtrace with function names.
strip --strip-debug -o "$folder/liveline" "$binary"
chmod 0755 "$folder/liveline"
sed -e "s|{{VERSION}}|$version|g" -e "s|{{ARCH}}|$arch|g" -e "s|{{BUILT_ON}}|$built_on|g" \
  -e "s|{{PACKAGES}}|$package_list|g" deploy/README.md >"$folder/README.md"
if grep -n '{{' "$folder/README.md" >&2; then echo "package: FAIL: a placeholder of deploy/README.md is left" >&2; exit 1; fi
install -m 0644 deploy/liveline.service deploy/liveline.env "$folder/"

mkdir -p "$out"
archive="$out/$name.tar.gz"
# The same files give the same archive: fixed owner, order and time (the commit's).
tar --create --gzip --file "$archive" --directory "$stage" --owner=0 --group=0 --numeric-owner --sort=name \
  --mtime="@$(git log -1 --format=%ct)" "$name"
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "== package: $archive ($(du -h "$archive" | cut -f1); the binary $(du -h "$folder/liveline" | cut -f1)); runtime packages: $package_list" >&2
echo "== package: took $((SECONDS - started)) s" >&2
echo "$archive"
