#!/usr/bin/env bash
# `scripts/board/run.sh --apt` (exec'd by run.sh once the image, kernel and bundle exist, and the
# test packages are being made in the background by delivery.sh): fleet delivery alone on a fresh
# boot of the cached image (qemu-system-aarch64, TCG, systemd PID 1, user network with
# restrict=on and no guestfwd: the guest reaches nothing but itself); packaging/test/e2e.sh then runs
# the apt delivery sequence in it over ssh (--set ci, or BOARD_APT_SET=full with the power-cut
# matrix); its power cuts go through scripts/board/qemu.mjs. The repository reaches the guest as
# files (file:///srv/pickup-station-repo), which is what an rsync to the vendor's web server is in
# the field. `run.sh --ci` runs the same on the compact run's boot instead (scenario.mjs).
#
# Env from run.sh: BOARD RUN KDIR IMAGE_BASE BUNDLE BOARD_SOCK DELIVERY_WORK. Also:
#   BOARD_APT_SET=full  the whole matrix (e2e.sh --set full)
#   BOARD_APT_HANG=1    also the release that never gets ready (bounded by the health wait)
#   BOARD_APT_STEPS=security,rotate,matrix,revoke   after install and configure, only these steps
#                       of the set (e2e.sh --steps): a part timed on its own
#   BOARD_KEEP=1        leave the guest running (ssh: see .board/run/apt-ssh)
# Then lintian's verdict on the arm64 package (made on the host meanwhile; errors fail the run).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
: "${BOARD:?run through scripts/board/run.sh --apt}" "${RUN:?}" "${KDIR:?}" "${IMAGE_BASE:?}" "${BUNDLE:?}" "${BOARD_SOCK:?}" "${DELIVERY_WORK:?}"
T0=$(date +%s.%N)
stamp() { printf 'board: [%6.1fs] %s\n' "$(echo "$(date +%s.%N) - $T0" | bc)" "$*"; }

DISK="$RUN/apt-disk.qcow2"
STATE="$RUN/apt-state.json"
rm -f "$DISK" "$RUN/apt-qemu.pid"
qemu-img create -q -f qcow2 -F raw -b "$IMAGE_BASE" "$DISK"
PORT=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')

stop() {
  rc=$?
  if [ "${BOARD_KEEP:-}" != 1 ] && [ -f "$STATE" ]; then node "$ROOT/scripts/board/qemu.mjs" "$STATE" cut || true; fi
  [ "${BOARD_KEEP:-}" = 1 ] || rm -rf "$BOARD_SOCK"
  exit "$rc"
}
trap stop EXIT
# The machine as the compact run's, without the guestfwd: the reference server runs in the guest.
SSH_ARGS=$(node --input-type=module -e "
  import { qemuArgs, sshArgs } from '$ROOT/scripts/board/qemu.mjs';
  const ssh = sshArgs({ board: '$BOARD', sshPort: $PORT });
  const qmp = '$BOARD_SOCK/apt-qmp.sock';
  const args = qemuArgs({ kdir: '$KDIR', disk: '$DISK', sshPort: $PORT, serial: '$RUN/apt-serial.log', pidfile: '$RUN/apt-qemu.pid', qmp });
  (await import('node:fs')).writeFileSync('$STATE', JSON.stringify({ args, pidfile: '$RUN/apt-qemu.pid', serial: '$RUN/apt-serial.log', ssh, bootLimitMs: 600000, qmp, tpm: null }));
  console.log(ssh.join(' '));")
SSH="ssh $SSH_ARGS"
echo "$SSH" >"$RUN/apt-ssh"
t=$(date +%s)
node "$ROOT/scripts/board/qemu.mjs" "$STATE" boot >/dev/null
stamp "FIGURE boot to ssh (fresh overlay), s: $(($(date +%s) - t))"
$SSH 'systemctl is-system-running --wait >/dev/null 2>&1 || true; uname -m; systemctl --version | head -n 1' | sed 's/^/board: guest: /'

while [ ! -f "$RUN/prepare.rc" ]; do sleep 1; done
[ "$(cat "$RUN/prepare.rc")" = 0 ] || { tail -n 40 "$RUN/prepare.log"; echo "board: the test packages were not made" >&2; exit 1; }
stamp "the test packages are ready ($DELIVERY_WORK)"
# Under TCG Node runs 10-20x slower than on a Pi 4 (scripts/board/README.md): the health wait is
# the field default (180 s) so a good release's first start (no V8 code cache yet) fits, and a
# broken one is still rolled back within it; the other waits of e2e.sh scale by --slow.
args=(--ssh --exec "$SSH" --power "node $ROOT/scripts/board/qemu.mjs $STATE" --bundle "$BUNDLE" --arch arm64 --work "$DELIVERY_WORK"
  --reuse --set "${BOARD_APT_SET:-ci}" --health-wait "${BOARD_APT_HEALTH_WAIT:-180}" --slow 4)
[ "${BOARD_APT_HANG:-}" != 1 ] || args+=(--hang)
[ -z "${BOARD_APT_STEPS:-}" ] || args+=(--steps "$BOARD_APT_STEPS")
bash "$ROOT/packaging/test/e2e.sh" "${args[@]}"

while [ ! -f "$RUN/lintian.rc" ]; do sleep 1; done
grep -E '^[EW]:' "$RUN/lintian.txt" | sed 's/ \[.*//' | sort | uniq -c | sed 's/^/board: lintian: /' || true
[ "$(cat "$RUN/lintian.rc")" = 0 ] || { cat "$RUN/lintian.txt"; echo "board: lintian reports errors" >&2; exit 1; }
stamp "lintian: no errors; $(grep -c '^W:' "$RUN/lintian.txt" || true) warnings (each kept for its reason in decision 0089)"
stamp "PASS (apt delivery on the board)"
