#!/usr/bin/env bash
# The power of packaging/test/container.sh's systemd-nspawn container (e2e.sh --power):
#   container-power.sh WORK MACHINE boot   start it on WORK/root and wait for systemd; prints
#                                          "exec: nsenter -t <its PID 1> -a" (e2e.sh's new --exec)
#   container-power.sh WORK MACHINE cut    a power cut: SIGKILL to its PID 1, which kills every
#                                          process of its PID namespace at once (no stop, no sync)
#   container-power.sh WORK MACHINE stop   a clean shutdown (SIGTERM: nspawn powers it off)
set -euo pipefail
WORK=$1
MACHINE=$2
PIDFILE=$WORK/nspawn.pid

nspawn_pid() { cat "$PIDFILE" 2>/dev/null || true; }
leader() { local p; p=$(nspawn_pid); [ -n "$p" ] && pgrep -P "$p" | head -n 1; }

case "$3" in
  boot)
    # --register=no --keep-unit: no machined/D-Bus on the host needed.
    setsid systemd-nspawn -D "$WORK/root" -b --private-network -M "$MACHINE" --register=no --keep-unit --console=passive \
      >>"$WORK/nspawn.log" 2>&1 </dev/null &
    echo $! >"$PIDFILE"
    for _ in $(seq 1 120); do
      l=$(leader || true)
      if [ -n "$l" ] && state=$(nsenter -t "$l" -a systemctl is-system-running 2>/dev/null) &&
        { [ "$state" = running ] || [ "$state" = degraded ]; }; then
        echo "exec: nsenter -t $l -a"
        exit 0
      fi
      sleep 0.5
    done
    tail -n 30 "$WORK/nspawn.log" >&2
    echo "container-power: the container did not boot" >&2
    exit 1
    ;;
  cut)
    p=$(nspawn_pid)
    l=$(leader || true)
    [ -n "$l" ] || { echo "container-power: no container running" >&2; exit 1; }
    kill -KILL "$l"
    for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || exit 0; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    ;;
  stop)
    p=$(nspawn_pid)
    [ -n "$p" ] || exit 0
    kill -TERM "$p" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$p" 2>/dev/null || exit 0; sleep 1; done
    kill -KILL "$p" 2>/dev/null || true
    ;;
  *) echo "usage: container-power.sh WORK MACHINE boot|cut|stop" >&2; exit 2 ;;
esac
