#!/usr/bin/env bash
# `scripts/board/run.sh --apt` (exec'd by run.sh once the image, kernel and bundle exist): fleet
# delivery on the virtual board. A fresh overlay of the cached image is booted as the compact run
# boots it (qemu-system-aarch64, TCG, systemd PID 1, user network with restrict=on: the guest
# reaches nothing but itself); packaging/test/e2e.sh then runs the apt delivery sequence in it over
# ssh: the vendor key and a signed-by= source, apt-get install, configure, a deposit; an upgrade
# that waits for an open box; a broken release rolled back by itself; a tampered package refused;
# remove and purge. The repository reaches the guest as files (file:///srv/pickup-station-repo),
# which is what an rsync to the vendor's web server is in the field.
#
# Env from run.sh: BOARD RUN KDIR IMAGE_BASE BUNDLE. Also:
#   BOARD_APT_HANG=1    also the release that never gets ready (bounded by the health wait; +4-6 min)
#   BOARD_KEEP=1        leave the guest running (ssh: see .board/run/apt-ssh)
# Then lintian on the arm64 package (errors fail the run).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
: "${BOARD:?run through scripts/board/run.sh --apt}" "${RUN:?}" "${KDIR:?}" "${IMAGE_BASE:?}" "${BUNDLE:?}"
T0=$(date +%s.%N)
stamp() { printf 'board: [%6.1fs] %s\n' "$(echo "$(date +%s.%N) - $T0" | bc)" "$*"; }

DISK="$RUN/apt-disk.qcow2"
rm -f "$DISK" "$RUN/apt-qemu.pid"
qemu-img create -q -f qcow2 -F raw -b "$IMAGE_BASE" "$DISK"
PORT=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')

QEMU_PID=""
stop() {
  rc=$?
  if [ -n "$QEMU_PID" ] && [ "${BOARD_KEEP:-}" != 1 ]; then
    kill -KILL "$QEMU_PID" 2>/dev/null || true
    rm -f "$RUN/ssh-$PORT.sock"
  fi
  exit "$rc"
}
trap stop EXIT
# No guestfwd: the reference server runs in the guest (e2e.sh starts it there), and the
# repository is copied in. hostfwd: the host's ssh to the guest, on the host's loopback only.
qemu-system-aarch64 -M virt -accel tcg,thread=multi -cpu cortex-a72 -smp "${BOARD_SMP:-2}" -m "${BOARD_MEM:-1024}" \
  -display none -monitor none -serial "file:$RUN/apt-serial.log" -no-reboot \
  -kernel "$KDIR/vmlinuz" -initrd "$KDIR/initrd.img" -append 'root=/dev/vda rw console=ttyAMA0 net.ifnames=0 quiet loglevel=4' \
  -drive "file=$DISK,if=none,id=d0,format=qcow2,cache=writeback,aio=threads" -device virtio-blk-pci,drive=d0 \
  -netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$PORT-:22" -device virtio-net-pci,netdev=n0 \
  -device virtio-rng-pci -pidfile "$RUN/apt-qemu.pid" -daemonize
QEMU_PID=$(cat "$RUN/apt-qemu.pid")
# One multiplexed connection for the whole run: every command of e2e.sh is a new session on it,
# not a new key exchange in an emulated sshd.
SSH="ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=10 -o BatchMode=yes
  -o ControlMaster=auto -o ControlPath=$RUN/ssh-%p.sock -o ControlPersist=600 -o ServerAliveInterval=5 -o ServerAliveCountMax=6
  -i $BOARD/ssh/id_ed25519 -p $PORT root@127.0.0.1"
SSH=$(tr '\n' ' ' <<<"$SSH" | tr -s ' ')
echo "$SSH" >"$RUN/apt-ssh"
t=$(date +%s)
until $SSH true 2>/dev/null; do
  kill -0 "$QEMU_PID" 2>/dev/null || { tail -n 30 "$RUN/apt-serial.log"; echo "board: QEMU exited during boot" >&2; exit 1; }
  [ $(($(date +%s) - t)) -lt 600 ] || { tail -n 30 "$RUN/apt-serial.log"; echo "board: no ssh after 600 s" >&2; exit 1; }
  sleep 2
done
stamp "FIGURE boot to ssh (fresh overlay), s: $(($(date +%s) - t))"
$SSH 'systemctl is-system-running --wait >/dev/null 2>&1 || true; uname -m; systemctl --version | head -n 1' | sed 's/^/board: guest: /'

# Under TCG Node runs 10-20x slower than on a Pi 4 (scripts/board/README.md): the health wait is
# the field default (180 s) so a good release's first start (no V8 code cache yet) fits, and a
# broken one is still rolled back within it; the other waits of e2e.sh scale by --slow.
# The test releases and their packages are made once per bundle and packaging (--reuse; keyed by
# the bytes of the bundle and of what makes the packages from it).
WORK="$BOARD/apt-e2e/$(cat "$BUNDLE" "$ROOT"/packaging/deb/build.sh "$ROOT"/packaging/deb/debian/* "$ROOT/packaging/test/restamp.mjs" | sha256sum | cut -c1-12)"
find "$BOARD/apt-e2e" -mindepth 1 -maxdepth 1 ! -path "$WORK" -exec rm -rf {} + 2>/dev/null || true
args=(--ssh --exec "$SSH" --bundle "$BUNDLE" --arch arm64 --work "$WORK" --reuse --health-wait "${BOARD_APT_HEALTH_WAIT:-180}" --slow 4)
[ "${BOARD_APT_HANG:-}" != 1 ] || args+=(--hang)
bash "$ROOT/packaging/test/e2e.sh" "${args[@]}"
[ "${BOARD_KEEP:-}" = 1 ] || kill -KILL "$QEMU_PID" 2>/dev/null || true

# lintian on the arm64 package that was just installed (1.0.0: the release as built, gzip instead
# of xz): no errors; the warnings kept are listed with their reasons in docs/fleet.md.
command -v lintian >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends lintian >/dev/null
deb=$(find "$WORK/debs" -name 'pickup-station_1.0.0_arm64.deb')
lint=$(lintian --fail-on error "$deb" 2>&1) || { printf '%s\n' "$lint"; echo "board: lintian reports errors on $(basename "$deb")" >&2; exit 1; }
grep -E '^W:' <<<"$lint" | sed 's/ \[.*//' | sort | uniq -c | sed 's/^/board: lintian: /'
stamp "lintian $(basename "$deb"): no errors; $(grep -c '^W:' <<<"$lint" || true) warnings"
stamp "PASS (apt delivery on the board)"
