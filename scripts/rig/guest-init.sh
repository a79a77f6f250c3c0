#!/bin/busybox sh
# shellcheck shell=dash
# /init of the rig VM: kernel drivers up, simulated GPIO chips created, test/hw run, result out
# through isa-debug-exit (port 0xf4): 0 = pass, 1 = fail.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin HOME=/tmp CI=1 NODE_OPTIONS=--max-old-space-size=768
# RIG_LOOP, RIG_LOOP_STALL: the reproduction loops in test/hw (0: they skip).
# shellcheck source=/dev/null
. /etc/rig-env
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
# Pseudo-terminals (socat's pty pairs: the serial drivers through the guest's tty layer).
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
for m in configfs hid hid-generic uhid gpio-sim i2c-dev; do insmod /lib/modules/$m.ko || echo "rig-guest: insmod $m failed"; done
# Two SMBus chips where the I2C displays usually are: a PCF8574 LCD backpack and an SSD1306 OLED.
insmod /lib/modules/i2c-stub.ko chip_addr=0x27,0x3c || echo "rig-guest: insmod i2c-stub failed"
mount -t configfs configfs /sys/kernel/config
# The smbus tracepoints show what reached the I2C bus (test/hw/display-i2c.test.ts).
mount -t tracefs nodev /sys/kernel/tracing || echo "rig-guest: cannot mount tracefs"
# Loopback up: tests that run the reference server and a station inside the VM talk over 127.0.0.1.
ip link set lo up || echo "rig-guest: cannot bring up lo"

# One gpio-sim device per test file, each with one bank labelled as the test profiles name it.
# Chip labels, never numbers: the tests resolve base and /dev/gpiochipN from the label.
sim_chip() { # label lines
  d=/sys/kernel/config/gpio-sim/$1
  mkdir "$d" "$d/bank0"
  echo "$2" > "$d/bank0/num_lines"
  echo "$1" > "$d/bank0/label"
  echo 1 > "$d/live"
}
sim_chip rig-sysfs 32
sim_chip rig-cdev 32
sim_chip rig-cdev2 32
sim_chip rig-matrix 16
sim_chip rig-matrix-cdev 16
sim_chip rig-safe 8
sim_chip rig-safe-cdev 8
sim_chip rig-safe-cdev2 8
sim_chip rig-alarms 16
sim_chip rig-alarms-cdev 16
echo "rig-guest: kernel $(uname -r); gpio chips:"
for c in /sys/class/gpio/gpiochip*; do echo "  $(cat "$c/label") base $(cat "$c/base") ngpio $(cat "$c/ngpio")"; done
gpiodetect | sed 's/^/  /'
echo "rig-guest: $(gpioset --version | head -1); $(/opt/gpiod2/bin/gpioset --version | head -1) in /opt/gpiod2/bin"

# The result goes out through isa-debug-exit (port 0xf4 = 244): QEMU exits with 2*r+1.
result() {
  if [ "$1" = 0 ]; then printf '\000'; else printf '\001'; fi | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
  poweroff -f # not reached when isa-debug-exit is present
}

cd /app || result 1
start=$(date +%s)
# One file at a time: under TCG the timing assertions (pulse length, kill -9 mid-pulse) need the CPU.
# The test list is split into words on purpose (RIG_TESTS may name several files).
# shellcheck disable=SC2046
node node_modules/vitest/vitest.mjs run $(cat /etc/rig-tests) --reporter=verbose --no-file-parallelism --testTimeout=120000 --hookTimeout=120000
rc=$?
echo "rig-guest: vitest exit $rc after $(( $(date +%s) - start )) s"
result "$rc"
