#!/usr/bin/env bash
# The virtual board (a Raspberry Pi minus the silicon, in every CI run): an arm64 Debian bookworm system booted
# under qemu-system-aarch64 (TCG) with systemd as PID 1, the release installed on it by the
# documented command and run by its shipped unit through kernel GPIO (gpio-sim) and HID (uhid).
#
#   scripts/board/run.sh            the compact run (install, first /state, deposit, pickup,
#                                   reload, watchdog, one power cut mid-pulse)
#   scripts/board/run.sh --ci       the compact run, then fleet delivery on the same boot
#                                   (packaging/test/e2e.sh --set ci: apt-get install, an upgrade
#                                   deferred by an open box, a broken release rolled back and known
#                                   bad, a tampered package, a power cut during dpkg's unpack,
#                                   remove); what .ci/run runs
#   scripts/board/run.sh --full     the compact run, the rest as printed parts (sysfs backend, exit 78,
#                                   textfile, drain, safe-state at boot, the power-cut matrix, reboot,
#                                   figures), then fleet delivery with the power-cut-during-upgrade
#                                   matrix (e2e.sh --set full)
#   scripts/board/run.sh --parts a,b  install and first /state, then only those part files
#                                   (scripts/board/parts/a.mjs, b.mjs)
#   scripts/board/run.sh --apt      fleet delivery alone on a fresh boot (apt.sh; e2e.sh --set ci,
#                                   BOARD_APT_SET=full for its matrix)
#   scripts/board/run.sh --prepare  only the cached parts (package lists, gpio-sim, the root filesystem
#                                   image): what .ci/run builds in the background while the tests run
#   BOARD_BUNDLE=release/x.tar.gz   install that bundle instead of building one (npm run bundle)
#   BOARD_KEEP=1                    leave the guest running at the end (ssh details in .board/run/)
#   BOARD_IMAGE=kiosk               the image with cage and Chromium (image.sh; chosen by itself for
#                                   --full and for --parts naming a part that needs it)
#   BOARD_PARTS=drain,sysfs         --full: only the parts whose function name has one of the words
#   BOARD_IDLE_S=600                --full: the idle windows of the disk-write figures (default 180 s)
#
# Downloads and builds are cached under .board/ (git-ignored): a second run only boots.
# What was learned doing this: scripts/board/README.md.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BOARD="$ROOT/.board"
RUN="$BOARD/run"
T0=$(date +%s.%N)
stamp() { printf 'board: [%6.1fs] %s\n' "$(echo "$(date +%s.%N) - $T0" | bc)" "$*"; }
mkdir -p "$BOARD" "$RUN"
# shellcheck source=scripts/board/image.sh
. "$ROOT/scripts/board/image.sh"

board_host_tools
command -v socat >/dev/null || { apt-get install -y -qq --no-install-recommends socat >/dev/null; }
stamp "host tools ready"
board_apt_state
stamp "arm64 package lists: kernel $KVER"
board_gpio_sim
board_tpm_tis
rm -rf "$KDIR/x"
stamp "gpio-sim.ko and tpm_tis.ko for $KVER"
# The kiosk's image (image.sh) for a run that starts the kiosk: --full, or --parts naming a part
# file that exports image = 'kiosk'. BOARD_IMAGE set by the caller wins.
if [ -z "${BOARD_IMAGE:-}" ]; then
  BOARD_IMAGE=base
  [ "${1:-}" != --full ] || BOARD_IMAGE=kiosk
  if [ "${1:-}" = --parts ]; then
    IFS=, read -ra wanted <<<"${2:-}"
    for p in "${wanted[@]}"; do
      if grep -qs "^export const image = 'kiosk';" "$ROOT/scripts/board/parts/$p.mjs"; then BOARD_IMAGE=kiosk; fi
    done
  fi
fi
export BOARD_IMAGE
board_rootfs
stamp "root filesystem image $(basename "$(dirname "$IMAGE_BASE")") ($BOARD_IMAGE)"
[ "${1:-}" != --prepare ] || exit 0

# The release under test: this checkout's arm64 bundle, built as a release is built.
BUNDLE="${BOARD_BUNDLE:-}"
if [ -z "$BUNDLE" ]; then
  # shellcheck source=scripts/release/inputs.sh
  . "$ROOT/scripts/release/inputs.sh"
  (cd "$ROOT" && bash scripts/bundle/build.sh --arch arm64 "${TEST_RELEASE_INPUTS[@]}" >"$RUN/bundle.log" 2>&1) || { tail -n 30 "$RUN/bundle.log"; exit 1; }
  BUNDLE="$(find "$ROOT/release" -maxdepth 1 -name 'pickup-station-*-linux-arm64.tar.gz' -printf '%T@ %p\n' | sort -rn | head -1 | cut -d' ' -f2-)"
fi
stamp "bundle $(basename "$BUNDLE")"
# Sockets (ssh's control connection) in a short folder: a socket path is limited to 108 bytes.
BOARD_SOCK="$(mktemp -d /tmp/psb.XXXXXX)"
export BOARD RUN KDIR IMAGE_BASE BUNDLE BOARD_SOCK
# shellcheck source=scripts/board/delivery.sh
. "$ROOT/scripts/board/delivery.sh"
case "${1:-}" in
  --apt)
    delivery_prepare "${BOARD_APT_SET:-ci}"
    exec bash "$ROOT/scripts/board/apt.sh"
    ;;
  --ci) delivery_prepare ci; stamp "test packages and lintian started in the background ($DELIVERY_WORK)" ;;
  --full) delivery_prepare full; stamp "test packages and lintian started in the background ($DELIVERY_WORK)" ;;
esac

# Signed as a release is signed (docs/operating.md → Install, step 2), by the release's own
# signing script, with a throwaway vendor key made once (ed25519, no passphrase) and kept as an
# exported key under .board/vendor-key; gpg runs in a short temporary home (its agent's socket);
# the guest gets only its public keyring, as a board does.
# shellcheck source=scripts/board/vendor-key.sh
. "$ROOT/scripts/board/vendor-key.sh"
VENDOR_KEYRING="$RUN/pickup-station-archive-keyring.gpg"
board_sign "$BUNDLE" "$VENDOR_KEYRING"
stamp "signed $(basename "$BUNDLE").sig with the throwaway vendor key $VENDOR_FPR"

export VENDOR_KEYRING
exec node "$ROOT/scripts/board/scenario.mjs" "$@"
