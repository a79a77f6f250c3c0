#!/usr/bin/env bash
# The virtual board (a Raspberry Pi minus the silicon, in every CI run): an arm64 Debian bookworm system booted
# under qemu-system-aarch64 (TCG) with systemd as PID 1, the release installed on it by the
# documented command and run by its shipped unit through kernel GPIO (gpio-sim) and HID (uhid).
#
#   scripts/board/run.sh            the compact run (install, first /state, deposit, pickup,
#                                   reload, watchdog, one power cut mid-pulse)
#   scripts/board/run.sh --full     then the rest as printed parts (sysfs backend, exit 78, textfile,
#                                   drain, safe-state at boot, the power-cut matrix, reboot, figures)
#   scripts/board/run.sh --apt      fleet delivery: apt-get install, an upgrade that waits for an open box,
#                                   a broken release rolled back by itself, a tampered package (apt.sh)
#   scripts/board/run.sh --prepare  only the cached parts (package lists, gpio-sim, the root filesystem
#                                   image): what .ci/run builds in the background while the tests run
#   BOARD_BUNDLE=release/x.tar.gz   install that bundle instead of building one (npm run bundle)
#   BOARD_KEEP=1                    leave the guest running at the end (ssh details in .board/run/)
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
stamp "gpio-sim.ko for $KVER"
board_rootfs
stamp "root filesystem image $(basename "$(dirname "$IMAGE_BASE")")"
[ "${1:-}" != --prepare ] || exit 0

# The release under test: this checkout's arm64 bundle, built as a release is built.
BUNDLE="${BOARD_BUNDLE:-}"
if [ -z "$BUNDLE" ]; then
  (cd "$ROOT" && bash scripts/bundle/build.sh --arch arm64 >"$RUN/bundle.log" 2>&1) || { tail -n 30 "$RUN/bundle.log"; exit 1; }
  BUNDLE="$(find "$ROOT/release" -maxdepth 1 -name 'pickup-station-*-linux-arm64.tar.gz' -printf '%T@ %p\n' | sort -rn | head -1 | cut -d' ' -f2-)"
fi
stamp "bundle $(basename "$BUNDLE")"
if [ "${1:-}" = --apt ]; then
  export BOARD RUN KDIR IMAGE_BASE BUNDLE
  exec bash "$ROOT/scripts/board/apt.sh"
fi

# Signed as a release is signed (docs/operating.md → Install, step 2), by the release's own
# signing script, with a throwaway vendor key made once under .board/vendor-key (ed25519, no
# passphrase); the guest gets only its public keyring, as a board does.
command -v gpg >/dev/null || { apt-get install -y -qq --no-install-recommends gpg >/dev/null; }
VENDOR_HOME="$BOARD/vendor-key"
if [ ! -s "$VENDOR_HOME/fingerprint" ]; then
  rm -rf "$VENDOR_HOME" && mkdir -m 0700 "$VENDOR_HOME"   # .board exists (made above)
  gpg --homedir "$VENDOR_HOME" --batch --quiet --pinentry-mode loopback --passphrase '' \
    --quick-gen-key 'Pickup Station Board Vendor (throwaway) <board@example.invalid>' ed25519 sign never
  gpg --homedir "$VENDOR_HOME" --batch --with-colons --list-keys | awk -F: '/^fpr:/ { print $10; exit }' >"$VENDOR_HOME/fingerprint"
fi
VENDOR_FPR="$(cat "$VENDOR_HOME/fingerprint")"
VENDOR_KEYRING="$RUN/pickup-station-archive-keyring.gpg"
gpg --homedir "$VENDOR_HOME" --batch --quiet --yes --output "$VENDOR_KEYRING" --export "$VENDOR_FPR"
GNUPGHOME="$VENDOR_HOME" bash "$ROOT/scripts/bundle/sign.sh" --key-id "$VENDOR_FPR" "$BUNDLE" >/dev/null
gpgconf --homedir "$VENDOR_HOME" --kill gpg-agent 2>/dev/null || true
stamp "signed $(basename "$BUNDLE").sig with the throwaway vendor key $VENDOR_FPR"

export BOARD RUN KDIR IMAGE_BASE BUNDLE VENDOR_KEYRING
exec node "$ROOT/scripts/board/scenario.mjs" "$@"
