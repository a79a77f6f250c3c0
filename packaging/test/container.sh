#!/usr/bin/env bash
# `bash packaging/test/container.sh [--bundle RELEASE-x64.tar.gz] [--work DIR] [--hang] [--set container|full]`:
# packaging/test/e2e.sh in a throwaway amd64 Debian bookworm that boots systemd in systemd-nspawn,
# with only loopback networking (--private-network). The quick place (native speed) where the
# package's install, upgrades, deferral, rollbacks, repairs and removal meet a real systemd; the
# virtual arm64 board runs the same sequence (scripts/board/README.md). --set full adds the
# power-cut matrix: a power cut is SIGKILL to the container's PID 1 (the kernel kills every process
# of its PID namespace at once; what was written to the host's page cache stays, as on the board),
# a boot is systemd-nspawn on the same root again (packaging/test/container-power.sh).
#
# Needs root. Installs mmdebstrap and systemd-container with apt-get when missing; the root file
# system comes from Debian's mirror (cached in .cache/e2e/); the x64 release is built with
# scripts/bundle/build.sh unless --bundle names one.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=scripts/bundle/lib.sh
. "$ROOT/scripts/bundle/lib.sh"

BUNDLE=""
WORK=""
E2E_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) BUNDLE=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --hang) E2E_ARGS+=(--hang); shift ;;
    --set) E2E_ARGS+=(--set "$2"); shift 2 ;;
    --reuse) E2E_ARGS+=(--reuse); shift ;;
    *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, systemd-nspawn)"
ensure_commands mmdebstrap:mmdebstrap systemd-nspawn:systemd-container reprepro:reprepro gpg:gpg gpg-agent:gpg-agent dpkg-deb:dpkg

# What the station's package depends on is in the image already: the container has no network.
PACKAGES=systemd,systemd-sysv,dbus,libusb-1.0-0,libudev1,libstdc++6,libgcc-s1,gpiod,procps,espeak-ng,alsa-utils,usbguard,unattended-upgrades,gpgv,ca-certificates
IMAGE=$ROOT/.cache/e2e/bookworm-amd64-$(echo "$PACKAGES" | md5sum | cut -c1-8).tar
if [ ! -f "$IMAGE" ]; then
  log "mmdebstrap bookworm amd64 ($PACKAGES)"
  mkdir -p "$(dirname "$IMAGE")"
  mmdebstrap --variant=minbase --format=tar --include="$PACKAGES" bookworm "$IMAGE.tmp" >&2
  mv "$IMAGE.tmp" "$IMAGE"
fi
if [ -z "$BUNDLE" ]; then
  # shellcheck source=scripts/release/inputs.sh
  . "$ROOT/scripts/release/inputs.sh"
  bash "$ROOT/scripts/bundle/build.sh" --arch x64 "${TEST_RELEASE_INPUTS[@]}" >&2
  BUNDLE=$RELEASE_DIR/$(bundle_name)-linux-x64.tar.gz
fi

WORK=${WORK:-$(mktemp -d /var/tmp/pickup-e2e.XXXXXX)}
rm -rf "$WORK/root"
mkdir -p "$WORK/root"
tar -xf "$IMAGE" -C "$WORK/root"
POWER=(bash "$HERE/container-power.sh" "$WORK" "pickup-e2e-$$")
stop_container() { "${POWER[@]}" stop || true; }
trap stop_container EXIT
exec_line=$("${POWER[@]}" boot | sed -n 's/^exec: //p' | tail -n 1)
[ -n "$exec_line" ] || die "the container did not boot"
log "container booted ($exec_line)"
bash "$HERE/e2e.sh" --exec "$exec_line" --power "${POWER[*]}" --bundle "$BUNDLE" --arch x64 --work "$WORK/e2e" "${E2E_ARGS[@]}"
