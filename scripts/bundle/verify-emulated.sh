#!/usr/bin/env bash
# The release bundle, proven on its target architecture under qemu user-mode emulation:
#
#   scripts/bundle/verify-emulated.sh [--arch arm64|armv7] [--bundle FILE | build.sh's inputs]
#
#  1 unpack   the tarball into a clean folder outside the checkout (so nothing resolves from the
#             checkout's node_modules); one top folder pickup-station-<version>/
#  2 elf      every .node addon is an ELF of the target machine (file + readelf)
#  3 load     tools/check-bundle.mjs under the emulated target node: manifest sha256s, node
#             ABI, every addon loads, each native package loads through its own entry point
#  4 negative the same check on a copy whose epoll.node is the host's x86_64 build must FAIL,
#             and fail on epoll's load (else the check proves nothing)
#  5 daemon   the daemon as systemd runs it, against the reference server: exit 78 on a bad
#             config, first /state answered, SIGTERM -> exit 0
#  6 demo     one deposit and one pickup driven on the demo's stdin, checked in the server's records
#
# Steps 3-6 run the target's node (the bundle's own node/bin/node when it has one: arm64 ships
# Node 24; otherwise the registry's build of the board's Node, cached) under qemu with a sysroot of
# Debian's target libraries, with no network (a private network namespace with only loopback)
# and an empty PATH: no registry, no compiler. Exits non-zero on any failure; prints timings.
# Without --bundle it builds one first (npm run bundle) with the release inputs given
# (--security-contact, --security-policy, --support-until: build.sh refuses a build without them).
set -euo pipefail
# shellcheck source=scripts/bundle/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/release/inputs.sh
. "$ROOT/scripts/release/inputs.sh"

TIMINGS=()
timed() {
  local name=$1 t0=$SECONDS
  shift
  log "== $name"
  "$@"
  TIMINGS+=("$(printf '%-9s %4ss' "$name" "$((SECONDS - t0))")")
}

parse_args() {
  ARCH=arm64
  BUNDLE=
  while [ $# -gt 0 ]; do
    # The release inputs (RELEASE_INPUTS) are handed to build.sh, which checks them.
    if release_input "$1" "${2:-}"; then shift 2; continue; fi
    case "$1" in
      --arch) ARCH=${2:?--arch needs a value}; shift 2 ;;
      --arch=*) ARCH=${1#--arch=}; shift ;;
      --bundle) BUNDLE=${2:?--bundle needs a file}; shift 2 ;;
      -h | --help) echo "usage: $0 [--arch arm64|armv7] [--bundle FILE | --security-contact URI --security-policy URL --support-until YYYY-MM-DD]"; exit 0 ;;
      *) echo "usage: $0 [--arch arm64|armv7] [--bundle FILE | --security-contact URI --security-policy URL --support-until YYYY-MM-DD]" >&2; exit 2 ;;
    esac
  done
}

prepare() {
  ensure_commands "$T_QEMU:qemu-user-static" file:file readelf:binutils unshare:util-linux ip:iproute2 dpkg-deb:dpkg
  mkdir -p "$CACHE"
  fetch_node
  make_sysroot
  if [ -z "$BUNDLE" ]; then
    BUNDLE=$(bundle_tarball)
    bash "$ROOT/scripts/bundle/build.sh" --arch "$ARCH" "${RELEASE_INPUTS[@]}"
  fi
  [ -f "$BUNDLE" ] || die "no bundle $BUNDLE"
  WORK=$(mktemp -d /tmp/pickup-station-verify.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
  # Offline when the kernel lets us: a fresh network namespace has only a loopback interface.
  if unshare --net true 2>/dev/null; then OFFLINE=(unshare --net sh -c 'ip link set lo up && exec "$@"' sh); else
    OFFLINE=()
    log "WARNING: cannot create a network namespace here; running with the host's network"
  fi
  log "network for the emulated runs: $("${OFFLINE[@]}" ip -o link show | awk -F': ' '{printf "%s ", $2}')"
}

# The target node under qemu: the bundle's own node/bin/node when it has one (arm64: Node 24, what
# the unit runs), else the registry's build of the board's Node major (armv7: Debian's nodejs 20).
target_node() {
  local node=$T_NODE_DIR/bin/node
  [ -x "$APP/node/bin/node" ] && node=$APP/node/bin/node
  echo "$(command -v "$T_QEMU")" -L "$T_SYSROOT" "$node"
}

unpack() {
  mkdir -p "$WORK/clean"
  tar -xzf "$BUNDLE" -C "$WORK/clean"
  local tops
  tops=$(ls "$WORK/clean")
  [ "$tops" = "$(bundle_name)" ] || die "tarball top level is '$tops', expected one folder $(bundle_name)/"
  APP=$WORK/clean/$tops
  local d
  for d in app/main.js app/daemon.js app/safe-state.js node_modules package.json package-lock.json README.md docs/operating.md manifest.json tools/check-bundle.mjs; do
    [ -e "$APP/$d" ] || die "bundle lacks $d"
  done
  if [ "$T_NODE_BUNDLED" = 1 ]; then
    [ -x "$APP/node/bin/node" ] || die "bundle lacks node/bin/node ($T_NODE_PKG@$T_NODE_VERSION)"
    log "the bundle's own node/bin/node runs every emulated step"
  fi
  log "unpacked $(find "$APP" -type f | wc -l) files into $APP"
}

# 0 when every addon under $1 is a target ELF; prints each.
elf_check() {
  local f bad=0 desc
  while IFS= read -r -d '' f; do
    desc=$(file -b "$f")
    if [[ "$(readelf -h "$f")" == *"Machine:"*"$T_ELF_MACHINE"* ]] && [[ "$desc" == *"${T_ELF_CLASS#ELF}-bit"* ]]; then
      log "  ok   ${f#"$1"/}: $desc"
    else
      log "  FAIL ${f#"$1"/}: $desc"
      bad=1
    fi
  done < <(find "$1" -name '*.node' -type f -print0 | sort -z)
  return "$bad"
}

elf() { elf_check "$APP"; }

# Runs tools/check-bundle.mjs of bundle dir $1 under the emulated node, offline, empty PATH.
run_check() {
  local node
  read -ra node <<<"$(target_node)"
  "${OFFLINE[@]}" env -i PATH="$WORK/empty" HOME="$WORK" LANG=C.UTF-8 "${node[@]}" "$1/tools/check-bundle.mjs" "$1"
}

load() {
  mkdir -p "$WORK/empty"
  run_check "$APP"
}

# An x86_64 epoll.node in an otherwise good bundle must be caught, by the ELF check and by the load.
negative() {
  local host_epoll=$ROOT/node_modules/epoll/build/Release/epoll.node neg out
  neg=$WORK/negative/$(bundle_name)
  [ -f "$host_epoll" ] || (cd "$ROOT" && npm rebuild epoll --loglevel=error >/dev/null)
  [[ "$(file -b "$host_epoll")" == *x86-64* ]] || die "host epoll.node is not x86-64: $(file -b "$host_epoll")"
  mkdir -p "$WORK/negative"
  cp -a "$APP" "$neg"
  cp "$host_epoll" "$neg/node_modules/epoll/build/Release/epoll.node"
  if elf_check "$neg" 2>/dev/null; then die "negative: the ELF check accepted an x86_64 epoll.node"; fi
  log "  ok   ELF check rejects the x86_64 epoll.node"
  if out=$(run_check "$neg" 2>&1); then
    echo "$out" >&2
    die "negative: check-bundle passed with an x86_64 epoll.node"
  fi
  grep -E '^FAIL load +node_modules/epoll/build/Release/epoll.node' <<<"$out" >&2 ||
    { echo "$out" >&2; die "negative: check-bundle failed, but not on loading epoll.node"; }
  grep -E '^FAIL package +epoll' <<<"$out" >&2 || { echo "$out" >&2; die "negative: require('epoll') did not fail"; }
  log "  ok   check-bundle fails as it must (and only the swapped addon fails to load)"
  if grep -E '^FAIL load' <<<"$out" | grep -v epoll.node >&2; then die "negative: other addons failed to load too"; fi
}

# The host's node runs the driver (and the daemon's reference server); the station itself runs
# emulated, in the same offline namespace.
prove() {
  local node
  read -ra node <<<"$(target_node)"
  "${OFFLINE[@]}" node "$ROOT/scripts/bundle/prove-runtime.mjs" "$1" "$APP" -- "${node[@]}"
}
daemon() { prove daemon; }
demo() { prove demo; }

main() {
  parse_args "$@"
  target_vars "$ARCH"
  timed prepare prepare
  log "bundle $BUNDLE ($(du -h "$BUNDLE" | cut -f1)); node $T_NODE_PKG@$T_NODE_VERSION under $T_QEMU"
  timed unpack unpack
  timed elf elf
  timed load load
  timed negative negative
  timed daemon daemon
  timed demo demo
  log "verified linux-$ARCH bundle under emulation:"
  printf '  %s\n' "${TIMINGS[@]}" "total     ${SECONDS}s" >&2
}

main "$@"
