#!/usr/bin/env bash
# `bash packaging/test/container.sh [--bundle RELEASE-x64.tar.gz] [--work DIR] [--hang]`:
# packaging/test/e2e.sh in a throwaway amd64 Debian bookworm that boots systemd in systemd-nspawn,
# with only loopback networking (--private-network). Until the virtual arm64 board runs it, this is
# where the package's install, upgrade, automatic rollback and removal meet a real systemd.
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
    *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, systemd-nspawn)"
ensure_commands mmdebstrap:mmdebstrap systemd-nspawn:systemd-container reprepro:reprepro gpg:gpg gpg-agent:gpg-agent dpkg-deb:dpkg

# What the station's package depends on is in the image already: the container has no network.
PACKAGES=systemd,systemd-sysv,dbus,libusb-1.0-0,libudev1,libstdc++6,libgcc-s1,gpiod,procps,gpgv,ca-certificates
IMAGE=$ROOT/.cache/e2e/bookworm-amd64-$(echo "$PACKAGES" | md5sum | cut -c1-8).tar
if [ ! -f "$IMAGE" ]; then
  log "mmdebstrap bookworm amd64 ($PACKAGES)"
  mkdir -p "$(dirname "$IMAGE")"
  mmdebstrap --variant=minbase --format=tar --include="$PACKAGES" bookworm "$IMAGE.tmp" >&2
  mv "$IMAGE.tmp" "$IMAGE"
fi
if [ -z "$BUNDLE" ]; then
  bash "$ROOT/scripts/bundle/build.sh" --arch x64 >&2
  BUNDLE=$RELEASE_DIR/$(bundle_name)-linux-x64.tar.gz
fi

WORK=${WORK:-$(mktemp -d /var/tmp/pickup-e2e.XXXXXX)}
rm -rf "$WORK/root"
mkdir -p "$WORK/root"
tar -xf "$IMAGE" -C "$WORK/root"
NSPAWN_PID=""
stop_container() {
  [ -n "$NSPAWN_PID" ] || return 0
  # SIGTERM: nspawn asks the container's systemd to power off.
  kill -TERM "$NSPAWN_PID" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 "$NSPAWN_PID" 2>/dev/null || return 0; sleep 1; done
  kill -KILL "$NSPAWN_PID" 2>/dev/null || true
}
trap stop_container EXIT
# --register=no --keep-unit: no machined/D-Bus on the host needed.
systemd-nspawn -D "$WORK/root" -b --private-network -M "pickup-e2e-$$" --register=no --keep-unit --console=passive \
  >"$WORK/nspawn.log" 2>&1 &
NSPAWN_PID=$!
LEADER=""
for _ in $(seq 1 60); do
  LEADER=$(pgrep -P "$NSPAWN_PID" | head -n 1 || true)
  if [ -n "$LEADER" ] && state=$(nsenter -t "$LEADER" -a systemctl is-system-running 2>/dev/null) &&
    { [ "$state" = running ] || [ "$state" = degraded ]; }; then
    break
  fi
  sleep 1
done
[ -n "$LEADER" ] || { cat "$WORK/nspawn.log" >&2; die "the container did not boot"; }
log "container booted (PID 1 of the container: $LEADER; $(nsenter -t "$LEADER" -a systemctl is-system-running 2>/dev/null || true))"
bash "$HERE/e2e.sh" --exec "nsenter -t $LEADER -a" --bundle "$BUNDLE" --arch x64 --work "$WORK/e2e" "${E2E_ARGS[@]}"
