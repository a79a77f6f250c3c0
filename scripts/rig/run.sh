#!/usr/bin/env bash
# The driver rig: runs test/hw inside a throwaway QEMU VM (software emulation, TCG) on a Debian
# kernel with real kernel GPIO drivers: gpio-sim (built out of tree, see build_gpio_sim) for lines
# seen through /sys/class/gpio and /dev/gpiochipN, uhid for virtual HID devices, i2c-stub behind
# i2c-dev for the I2C displays (what reached the bus read back from the smbus tracepoints), socat's
# pseudo-terminals for the serial drivers (the RFID reader through the guest's tty layer).
#
#   scripts/rig/run.sh            build what is missing, boot, run test/hw, exit with the guest's result
#   RIG_TESTS="test/hw/x.test.ts" scripts/rig/run.sh   run a subset
#   RIG_LOOP=200 [RIG_LOOP_STALL=1] RIG_TESTS=test/hw/gpio-input-ready-loop.test.ts RIG_TIMEOUT=3600 scripts/rig/run.sh
#                                 a reproduction loop (it skips unless RIG_LOOP is set)
#
# Everything downloaded or built is cached under .rig/ (git-ignored): a second run only rebuilds
# the initramfs (~2 s) and boots. Facts behind the choices: ../shared/notes/driver-rig.md.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
RIG="$ROOT/.rig"
T0=$(date +%s.%N)
stamp() { printf 'rig: [%6.1fs] %s\n' "$(echo "$(date +%s.%N) - $T0" | bc)" "$*"; }
mkdir -p "$RIG"

# --- host tools ------------------------------------------------------------------------------
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
[ -x /bin/busybox ] && /bin/busybox --list 2>/dev/null | grep -qx ash || need+=(busybox-static)
command -v cpio >/dev/null || need+=(cpio)
command -v socat >/dev/null || need+=(socat)
command -v make >/dev/null || need+=(make)
command -v gcc >/dev/null || need+=(gcc)
command -v bc >/dev/null || need+=(bc)
if [ "${#need[@]}" -gt 0 ]; then
  echo "rig: installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
stamp "host tools ready"

# --- kernel, headers, sources, gpiod tools: Debian packages of the current ABI ----------------
ABI="$(apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: linux-image-\(.*\)-amd64$/\1/p' | head -1)"
[ -n "$ABI" ] || { echo "rig: cannot find the current kernel ABI (apt-get update?)" >&2; exit 2; }
KVER="$ABI-amd64"
SERIES="${ABI%%-*}"                      # 6.1.0 -> source/kbuild series 6.1
SERIES="${SERIES%.*}"
DEBS="$RIG/debs/$KVER"
K="$RIG/kernel/$KVER"
if [ ! -f "$DEBS/.done" ]; then
  mkdir -p "$DEBS"
  ( cd "$DEBS" && { apt-get download -q "linux-image-$KVER" "linux-headers-$KVER" "linux-headers-$ABI-common" \
      "linux-kbuild-$SERIES" "linux-source-$SERIES" gpiod libgpiod2 2>&1 | grep -v '^W: Download is performed unsandboxed' || true; } )
  ls "$DEBS"/linux-image-*.deb "$DEBS"/linux-source-*.deb "$DEBS"/gpiod_*.deb >/dev/null
  touch "$DEBS/.done"
fi
stamp "debs for $KVER cached"

# libgpiod v2 tools (what Raspberry Pi OS Trixie ships) from Debian trixie, with trixie's libc
# (they need glibc 2.38): the cdev backend is tested with both tool generations. A private apt
# state under .rig/ keeps the host's sources untouched.
G2="$RIG/gpiod-v2"
if [ ! -f "$G2/.done" ]; then
  rm -rf "$G2"; mkdir -p "$G2/state/lists/partial" "$G2/cache/archives/partial" "$G2/debs" "$G2/x"
  echo "deb http://deb.debian.org/debian trixie main" > "$G2/sources.list"
  APT_G2=(-o "Dir::Etc::SourceList=$G2/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State=$G2/state" -o "Dir::Cache=$G2/cache" -o Debug::NoLocking=1)
  apt-get -qq "${APT_G2[@]}" update
  ( cd "$G2/debs" && { apt-get -q "${APT_G2[@]}" download gpiod libgpiod3 libc6 2>&1 | grep -v '^W: Download is performed unsandboxed' || true; } )
  for d in "$G2"/debs/*.deb; do dpkg-deb -x "$d" "$G2/x"; done
  rm -rf "$G2/state" "$G2/cache"
  touch "$G2/.done"
fi
stamp "libgpiod v2 tools cached: $(cd "$G2/debs" && echo *.deb)"

if [ ! -f "$K/.done" ]; then
  rm -rf "$K"; mkdir -p "$K/x"
  for d in "$DEBS"/*.deb; do case "$d" in *linux-source*) ;; *) dpkg-deb -x "$d" "$K/x" ;; esac; done
  # The headers' Makefile includes the common headers by absolute path: point it into .rig.
  sed -i "s|^include /usr/src/|include $K/x/usr/src/|" "$K/x/usr/src/linux-headers-$KVER/Makefile"
  mkdir -p "$K/src"
  dpkg-deb --fsys-tarfile "$DEBS"/linux-source-*.deb | tar -x -C "$K/x" "./usr/src/linux-source-$SERIES.tar.xz"
  tar -xJf "$K/x/usr/src/linux-source-$SERIES.tar.xz" -C "$K/src" --strip-components=1 \
    "linux-source-$SERIES/drivers/gpio/gpio-sim.c" "linux-source-$SERIES/drivers/gpio/gpiolib.h" "linux-source-$SERIES/kernel/irq/irq_sim.c"
  rm "$K/x/usr/src/linux-source-$SERIES.tar.xz"
  touch "$K/.done"
fi
stamp "kernel $KVER extracted"

# --- gpio-sim, out of tree ------------------------------------------------------------------------
# Debian builds neither GPIO_SIM nor IRQ_SIM. Both compile into one module against the headers
# with one change: irq_to_desc() is not exported to modules, so irq_sim's
# handle_simple_irq(irq_to_desc(n)) becomes generic_handle_irq(n) (same effect for a simple irq).
MOD="$K/gpio-sim"
if [ ! -f "$MOD/gpio-sim.ko" ]; then
  rm -rf "$MOD"; mkdir -p "$MOD"
  cp "$K/src/drivers/gpio/gpio-sim.c" "$MOD/gpio-sim-main.c"
  cp "$K/src/drivers/gpio/gpiolib.h" "$K/src/kernel/irq/irq_sim.c" "$MOD/"
  sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$MOD/irq_sim.c"
  grep -q 'generic_handle_irq(irqnum);' "$MOD/irq_sim.c" || { echo "rig: the irq_sim patch did not apply" >&2; exit 2; }
  printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' > "$MOD/Kbuild"
  make -s -C "$K/x/usr/src/linux-headers-$KVER" M="$MOD" modules 2>&1 | grep -v 'Skipping BTF' || true
  [ -f "$MOD/gpio-sim.ko" ] || { echo "rig: gpio-sim did not build" >&2; exit 2; }
fi
stamp "gpio-sim.ko built"

# --- the project: dist/ for child processes (safe-state), sources for vitest ----------------
cd "$ROOT"
[ -d node_modules ] || npm ci --no-audit --no-fund
# tsc exits non-zero on errors in files not built here (e.g. a branch without src/reference-server) but still
# emits; what the rig needs is checked below.
if [ ! -f dist/src/main.js ] || [ -n "$(find src -newer dist/src/main.js -print -quit)" ]; then
  node_modules/.bin/tsc -p tsconfig.build.json >/dev/null 2>&1 || true
fi
if [ ! -f dist/src/main.js ] || [ ! -f dist/src/devices/gpio/safe-state.js ]; then
  echo "rig: the build did not produce dist/src/main.js" >&2; exit 2
fi
stamp "project built"

# --- initramfs ------------------------------------------------------------------------------------
IR="$RIG/initramfs"
rm -rf "$IR"; mkdir -p "$IR"/{bin,sbin,usr/bin,lib/modules,proc,sys,dev,tmp,app,etc}
cp /bin/busybox "$IR/bin/busybox"
cp "$(command -v node)" "$IR/usr/bin/node"
cp "$K"/x/usr/bin/gpio* "$IR/usr/bin/"
# util-linux's chrt (busybox has none): the reproduction loop's real-time CPU hog.
cp "$(command -v chrt)" "$IR/usr/bin/chrt"
# socat: pseudo-terminal pairs in the guest (the RFID reader driver through the guest kernel's tty layer).
cp "$(command -v socat)" "$IR/usr/bin/socat"
copy_libs() { for f in "$@"; do ldd "$f" 2>/dev/null | grep -o '/[^ ]*' | while read -r lib; do
  [ -e "$IR$lib" ] || { mkdir -p "$IR$(dirname "$lib")"; cp -L "$lib" "$IR$lib"; }; done; done; }
# node and every native addon (epoll, node-hid, serialport, rolldown, lightningcss) with their libraries.
mapfile -t addons < <(find node_modules -name '*.node' -path '*linux-x64*' -o -name '*.node' -path '*/build/Release/*' | grep -v musl)
copy_libs "$IR/usr/bin/node" "$IR/usr/bin/chrt" "$IR/usr/bin/socat" "${addons[@]}"
# libgpiod from the package (not the host): the tools' own library.
mkdir -p "$IR/usr/lib/x86_64-linux-gnu"; cp -a "$K"/x/usr/lib/x86_64-linux-gnu/libgpiod.so.* "$IR/usr/lib/x86_64-linux-gnu/"
for l in $(LD_LIBRARY_PATH="$K/x/usr/lib/x86_64-linux-gnu" ldd "$K/x/usr/bin/gpioset" | grep -o '/[^ ]*' | grep -v libgpiod); do
  [ -e "$IR$l" ] || { mkdir -p "$IR$(dirname "$l")"; cp -L "$l" "$IR$l"; }; done
# v2 tools under /opt/gpiod2, each started through trixie's own loader and libraries.
mkdir -p "$IR/opt/gpiod2/bin" "$IR/opt/gpiod2/real" "$IR/opt/gpiod2/lib"
cp -aL "$G2"/x/usr/lib/x86_64-linux-gnu/{ld-linux-x86-64.so.2,libc.so.6,libgpiod.so.3} "$IR/opt/gpiod2/lib/"
for t in gpiodetect gpioget gpioinfo gpiomon gpioset; do
  cp "$G2/x/usr/bin/$t" "$IR/opt/gpiod2/real/"
  printf '#!/bin/sh\nexec /opt/gpiod2/lib/ld-linux-x86-64.so.2 --library-path /opt/gpiod2/lib /opt/gpiod2/real/%s "$@"\n' "$t" > "$IR/opt/gpiod2/bin/$t"
  chmod +x "$IR/opt/gpiod2/bin/$t"
done
KM="$K/x/lib/modules/$KVER/kernel"
cp "$KM/fs/configfs/configfs.ko" "$KM/drivers/hid/hid.ko" "$KM/drivers/hid/hid-generic.ko" "$KM/drivers/hid/uhid.ko" "$MOD/gpio-sim.ko" "$IR/lib/modules/"
# I2C displays: i2c-dev (/dev/i2c-N) and i2c-stub (SMBus chips at given addresses), both in Debian's kernel.
cp "$KM/drivers/i2c/i2c-dev.ko" "$KM/drivers/i2c/i2c-stub.ko" "$IR/lib/modules/"
# Only what running tests needs: the type checker and linter stay on the host.
tar -c --exclude='node_modules/typescript' --exclude='node_modules/eslint' --exclude='node_modules/@eslint' \
  --exclude='node_modules/@typescript-eslint' --exclude='node_modules/typescript-eslint' --exclude='node_modules/.cache' \
  --exclude='node_modules/playwright-core' \
  package.json tsconfig.json vitest.config.ts dist src test hardware node_modules | tar -x -C "$IR/app"
cp scripts/rig/guest-init.sh "$IR/init"; chmod +x "$IR/init"
printf '%s\n' "${RIG_TESTS:-test/hw}" > "$IR/etc/rig-tests"
# The reproduction loops' settings (numbers only), sourced by the guest's /init.
printf 'export RIG_LOOP=%d RIG_LOOP_STALL=%d\n' "${RIG_LOOP:-0}" "${RIG_LOOP_STALL:-0}" > "$IR/etc/rig-env"
(cd "$IR" && find . -print0 | cpio --null -o -H newc --quiet) > "$RIG/initramfs.cpio"
stamp "initramfs $(du -m "$RIG/initramfs.cpio" | cut -f1) MB"

# --- boot -------------------------------------------------------------------------------------------
# TCG, not KVM: /dev/kvm here is a nested kvm_pvm that Debian kernels do not boot under.
# isa-debug-exit: the guest writes its result r to port 0xf4 and QEMU exits with 2r+1.
set +e
timeout "${RIG_TIMEOUT:-900}" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -m 1536 -smp 2 \
  -nographic -no-reboot -nodefaults -serial stdio \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
  -kernel "$K/x/boot/vmlinuz-$KVER" -initrd "$RIG/initramfs.cpio" \
  -append "console=ttyS0 panic=-1 rdinit=/init quiet loglevel=3" | tee "$RIG/console.log"
rc=${PIPESTATUS[0]}
set -e
stamp "VM exited with $rc"
# Files the tests hand out on the console ("[artifact NAME]base64[/artifact]"), e.g. the OLED framebuffer PNGs.
mkdir -p "$ROOT/test-artifacts"
# (A run of a subset may hand out none: grep's "no match" must not end the script under pipefail.)
{ grep -o '\[artifact [A-Za-z0-9._-]*\][A-Za-z0-9+/=]*\[/artifact\]' "$RIG/console.log" || true; } | while IFS= read -r a; do
  name=${a#\[artifact }; name=${name%%\]*}
  b64=${a#*\]}; b64=${b64%\[/artifact\]}
  printf '%s' "$b64" | base64 -d > "$ROOT/test-artifacts/$name" && echo "rig: artifact test-artifacts/$name"
done
case "$rc" in
  1) echo "rig: PASS"; exit 0 ;;
  3) echo "rig: FAIL (tests failed in the guest)"; exit 1 ;;
  124) echo "rig: FAIL (timeout)"; exit 1 ;;
  *) echo "rig: FAIL (VM ended without a result: $rc)"; exit 1 ;;
esac
