#!/usr/bin/env bash
# The virtual board's machine: QEMU (TCG) and the host's ssh connection into it.
# Sourced by scripts/board/run.sh (needs: BOARD, RUN, KDIR, stamp). The guest's network is QEMU's
# user network with restrict=on: the guest reaches nothing but two forwards —
#   host 127.0.0.1:$SSH_PORT -> guest :22      (the test's control connection)
#   guest 10.0.2.100:80      -> host 127.0.0.1:$SIM_PORT  (the reference server, one socat per connection)
set -euo pipefail

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# vm_disk: a fresh copy-on-write disk over the cached image (the image itself is never written).
vm_disk() {
  rm -f "$RUN/disk.qcow2"
  qemu-img create -q -f qcow2 -F raw -b "$IMAGE_BASE" "$RUN/disk.qcow2"
}

# vm_boot: starts QEMU in the background (pid in $RUN/qemu.pid), serial console to $RUN/serial.log.
# cache=writeback: the guest sees a volatile write cache and sends flushes (ext4's journal commits,
# fsync), which QEMU passes to the host file (fdatasync). Killing QEMU loses what is only in the
# guest's RAM (its page cache, dirty and not yet written back) — what a power cut loses — while
# every write the guest sent to the disk is in the host's page cache. scripts/board/README.md says
# what that can and cannot show.
vm_boot() {
  [ -n "${SSH_PORT:-}" ] || SSH_PORT=$(free_port)
  : >"$RUN/serial.log"
  VM_BOOT_T0=$(date +%s.%N)
  qemu-system-aarch64 -M virt -accel tcg,thread=multi -cpu cortex-a72 -smp "${BOARD_SMP:-2}" -m "${BOARD_MEM:-1024}" \
    -display none -monitor none -serial "file:$RUN/serial.log" -no-reboot \
    -kernel "$KDIR/vmlinuz" -initrd "$KDIR/initrd.img" \
    -append "root=/dev/vda rw console=ttyAMA0 net.ifnames=0 quiet loglevel=4 systemd.show_status=0" \
    -drive "file=$RUN/disk.qcow2,if=none,id=d0,format=qcow2,cache=writeback,aio=threads" -device virtio-blk-pci,drive=d0 \
    -netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$SSH_PORT-:22,guestfwd=tcp:10.0.2.100:80-cmd:socat - TCP:127.0.0.1:$SIM_PORT" \
    -device virtio-net-pci,netdev=n0 -device virtio-rng-pci \
    -pidfile "$RUN/qemu.pid" -daemonize
}

SSH_OPTS=(-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=10
  -o ServerAliveInterval=5 -o ServerAliveCountMax=6 -o BatchMode=yes)
g() { ssh "${SSH_OPTS[@]}" -i "$BOARD/ssh/id_ed25519" -p "$SSH_PORT" root@127.0.0.1 "$@"; }
gcopy() { scp -q "${SSH_OPTS[@]}" -i "$BOARD/ssh/id_ed25519" -P "$SSH_PORT" "$@"; }
gput() { gcopy "$1" "root@127.0.0.1:$2"; }

# vm_wait_ssh [TIMEOUT_S]: until the guest answers over ssh (sshd up: multi-user reached enough).
vm_wait_ssh() {
  local limit=${1:-600} t0=$SECONDS
  while ! g true 2>/dev/null; do
    if [ $((SECONDS - t0)) -ge "$limit" ]; then
      echo "board: no ssh after ${limit}s; serial console tail:" >&2; tail -n 40 "$RUN/serial.log" >&2; return 1
    fi
    vm_alive || { echo "board: QEMU exited; serial console tail:" >&2; tail -n 40 "$RUN/serial.log" >&2; return 1; }
    sleep 2
  done
}

vm_alive() { [ -f "$RUN/qemu.pid" ] && kill -0 "$(cat "$RUN/qemu.pid")" 2>/dev/null; }

# vm_powercut: SIGKILL to QEMU, no shutdown of any kind.
vm_powercut() {
  local pid
  pid=$(cat "$RUN/qemu.pid")
  kill -KILL "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  rm -f "$RUN/qemu.pid"
}

# vm_wait_down: after a reboot/poweroff from inside (-no-reboot: QEMU exits on reboot).
vm_wait_down() {
  local limit=${1:-180} t0=$SECONDS
  while vm_alive; do
    [ $((SECONDS - t0)) -lt "$limit" ] || { echo "board: the guest did not go down within ${limit}s" >&2; return 1; }
    sleep 1
  done
  rm -f "$RUN/qemu.pid"
}
