#!/bin/sh
# The virtual board's GPIO, made at boot before the station starts (what a Pi's device tree gives):
# one gpio-sim chip labelled "virt-board", laid out as hardware/virt-board-12-boxes.json says.
#   0-11 locks (outputs), 12-23 doors (1 = open), 24 cancel button (active low: idles high),
#   25 tamper (1 = open), 26 buzzer (output), 27 speech button (active low: idles high)
# Inputs are driven from the test side through sim_gpioN/pull; a door idles closed (pull-down, the
# gpio-sim default), the cancel and speech buttons released (pulled up here).
set -eu
C=/sys/kernel/config/gpio-sim/virt-board
[ -d /sys/kernel/config/gpio-sim ] || modprobe gpio-sim
if [ ! -d "$C" ]; then
  mkdir "$C" "$C/bank0"
  echo 32 >"$C/bank0/num_lines"
  echo virt-board >"$C/bank0/label"
  echo 1 >"$C/live"
fi
dev=$(cat "$C/dev_name"); chip=$(cat "$C/bank0/chip_name")
echo pull-up >"/sys/devices/platform/$dev/$chip/sim_gpio24/pull"
echo pull-up >"/sys/devices/platform/$dev/$chip/sim_gpio27/pull"
# The physical world outlives a power cut: doors the test left open are given on the kernel command
# line (board.doors=4,5) and are open again at boot, before the station starts.
# shellcheck disable=SC2013 # the command line is one line of words
for w in $(cat /proc/cmdline); do
  case "$w" in board.doors=*) for n in $(echo "${w#board.doors=}" | tr , ' '); do
    echo pull-up >"/sys/devices/platform/$dev/$chip/sim_gpio$((11 + n))/pull"; done ;; esac
done
echo "virt-board: /dev/$chip ($dev), base $(cat /sys/class/gpio/"$chip"/base 2>/dev/null || echo '?')"
