#!/usr/bin/env bash
# The virtual board's parts, built once and cached under .board/ (git-ignored):
#   .board/kernel/<kver>/{vmlinuz,initrd.img}   Debian bookworm's arm64 kernel (from the image)
#   .board/kernel/<kver>/gpio-sim.ko            gpio-sim + irq_sim, cross-compiled out of tree
#   .board/kernel/<kver>/tpm_tis.ko             the memory-mapped TPM front end, likewise
#   .board/image/<key>/rootfs.img               ext4 root: Debian bookworm arm64 (mmdebstrap), systemd
#   .board/ssh/id_ed25519                       the key the host logs into the guest with
# Sourced by scripts/board/run.sh (needs: ROOT, BOARD, stamp). Sets KVER, KDIR, IMAGE_BASE.
set -euo pipefail

# --- host tools ------------------------------------------------------------------------------
board_host_tools() {
  local need=()
  command -v qemu-system-aarch64 >/dev/null || need+=(qemu-system-arm)
  [ -x /usr/libexec/qemu-binfmt/aarch64-binfmt-P ] || need+=(qemu-user-static)
  command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
  command -v arch-test >/dev/null || need+=(arch-test)
  command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
  command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
  command -v ssh >/dev/null || need+=(openssh-client)
  command -v make >/dev/null || need+=(make)
  command -v bc >/dev/null || need+=(bc)
  command -v qemu-img >/dev/null || need+=(qemu-utils)
  command -v swtpm >/dev/null || need+=(swtpm)
  if [ "${#need[@]}" -gt 0 ]; then
    echo "board: installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
  # arm64 binaries (the rootfs's maintainer scripts) run through qemu-user: binfmt_misc.
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; fi
  if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then cat /usr/lib/binfmt.d/qemu-aarch64.conf >/proc/sys/fs/binfmt_misc/register; fi
}

# --- a private apt state with bookworm's arm64 (and amd64, for the host's kbuild tools) lists ----
MIRRORS=("deb http://deb.debian.org/debian bookworm main" "deb http://deb.debian.org/debian bookworm-updates main"
  "deb http://deb.debian.org/debian-security bookworm-security main")
board_apt_state() {
  APTD="$BOARD/apt"
  APT_B=(-o "Dir::Etc::SourceList=$APTD/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State=$APTD/state"
    -o "Dir::Cache=$APTD/cache" -o Debug::NoLocking=1 -o APT::Architecture=arm64 -o "APT::Architectures::=arm64" -o "APT::Architectures::=amd64")
  # Lists older than a day are refreshed: the kernel ABI moves with security updates.
  if [ ! -f "$APTD/.done" ] || [ -n "$(find "$APTD/.done" -mmin +1440)" ]; then
    rm -rf "$APTD"; mkdir -p "$APTD/state/lists/partial" "$APTD/cache/archives/partial"
    printf '%s\n' "${MIRRORS[@]}" >"$APTD/sources.list"
    apt-get -qq "${APT_B[@]}" update
    touch "$APTD/.done"
  fi
  local abi
  abi="$(apt-cache "${APT_B[@]}" depends linux-image-arm64 | sed -n 's/.*Depends: linux-image-\(.*\)-arm64$/\1/p' | head -1)"
  [ -n "$abi" ] || { echo "board: no arm64 kernel ABI in the package lists" >&2; exit 2; }
  KABI="$abi"; KVER="$abi-arm64"; KSERIES="${abi%%-*}"; KSERIES="${KSERIES%.*}"
  KDIR="$BOARD/kernel/$KVER"
}

# --- gpio-sim for the arm64 kernel -------------------------------------------------------------
# Debian builds neither GPIO_SIM nor IRQ_SIM. As in scripts/rig/run.sh: both in one module, with
# irq_sim's handle_simple_irq(irq_to_desc(n)) -> generic_handle_irq(n) (irq_to_desc is not exported).
# Cross-compiled: the arm64 headers package with the host's (amd64) kbuild tools in its scripts/.
board_gpio_sim() {
  [ -f "$KDIR/gpio-sim.ko" ] && return 0
  local m="$KDIR/gpio-sim"
  board_kbuild
  rm -rf "$m"; mkdir -p "$m"
  board_kernel_sources "$m" drivers/gpio/gpio-sim.c drivers/gpio/gpiolib.h kernel/irq/irq_sim.c
  mv "$m/gpio-sim.c" "$m/gpio-sim-main.c"
  sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$m/irq_sim.c"
  grep -q 'generic_handle_irq(irqnum);' "$m/irq_sim.c" || { echo "board: the irq_sim patch did not apply" >&2; exit 2; }
  printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' >"$m/Kbuild"
  board_module_build "$m" gpio-sim.ko
}

# --- tpm_tis for the arm64 kernel ----------------------------------------------------------------
# QEMU's arm64 `virt` machine offers a TPM 2.0 only as `tpm-tis-device` (memory-mapped TIS, in the
# device tree as "tcg,tpm-tis-mmio"); Debian's arm64 kernel builds the TIS core (for SPI and I2C
# TPMs, as on a Raspberry Pi's TPM HAT) but not the memory-mapped front end. The front end alone,
# out of tree, against the kernel's own tpm_tis_core module.
board_tpm_tis() {
  [ -f "$KDIR/tpm_tis.ko" ] && return 0
  local m="$KDIR/tpm_tis"
  board_kbuild
  rm -rf "$m"; mkdir -p "$m"
  board_kernel_sources "$m" drivers/char/tpm/tpm_tis.c drivers/char/tpm/tpm_tis_core.h drivers/char/tpm/tpm.h
  printf 'obj-m := tpm_tis.o\n' >"$m/Kbuild"
  board_module_build "$m" tpm_tis.ko
}

# The arm64 headers package with the host's (amd64) kbuild tools in its scripts/, extracted once
# per run into $KDIR/x (removed by board_rootfs's caller once the modules are built).
board_kbuild() {
  local d="$BOARD/debs/$KVER" x="$KDIR/x"
  KHDR="$x/usr/src/linux-headers-$KVER"
  [ -f "$x/.done" ] && return 0
  mkdir -p "$d"
  if [ ! -f "$d/.done" ]; then
    ( cd "$d" && { apt-get -q "${APT_B[@]}" download "linux-headers-$KVER" "linux-headers-$KABI-common" \
        "linux-kbuild-$KSERIES:amd64" "linux-source-$KSERIES" 2>&1 | grep -v 'Download is performed unsandboxed' || true; } )
    ls "$d"/linux-headers-*arm64*.deb "$d"/linux-source-*.deb "$d"/linux-kbuild-*amd64.deb >/dev/null
    touch "$d/.done"
  fi
  rm -rf "$x"; mkdir -p "$x"
  for f in "$d"/linux-headers-*.deb "$d"/linux-kbuild-*.deb; do dpkg-deb -x "$f" "$x"; done
  sed -i "s|^include /usr/src/|include $x/usr/src/|" "$KHDR/Makefile"
  # scripts/ and tools/ point at /usr/lib/linux-kbuild-*: point them into the extracted amd64 kbuild.
  for l in scripts tools; do
    if [ -L "$KHDR/$l" ]; then ln -sfn "$x/usr/lib/linux-kbuild-$KSERIES/$l" "$KHDR/$l"; fi
  done
  find "$x/usr/src" -maxdepth 3 -type l -lname '/usr/lib/linux-kbuild-*' | while read -r l; do
    ln -sfn "$x$(readlink "$l")" "$l"; done
  touch "$x/.done"
}

# board_kernel_sources DIR FILE...: those files of the kernel's source package, flat into DIR.
board_kernel_sources() {
  local dir="$1" d="$BOARD/debs/$KVER"; shift
  local paths=()
  for f in "$@"; do paths+=("linux-source-$KSERIES/$f"); done
  dpkg-deb --fsys-tarfile "$d"/linux-source-*.deb | tar -x -O "./usr/src/linux-source-$KSERIES.tar.xz" |
    tar -xJ -C "$dir" --transform='s|.*/||' "${paths[@]}"
  for f in "$@"; do [ -f "$dir/$(basename "$f")" ] || { echo "board: $f not in the kernel's source" >&2; exit 2; }; done
}

# board_module_build DIR NAME.ko: cross-compiled for the arm64 kernel, kept as $KDIR/NAME.ko.
board_module_build() {
  make -s -C "$KHDR" M="$1" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules 2>&1 | grep -v 'Skipping BTF' || true
  [ -f "$1/$2" ] || { echo "board: $2 did not build" >&2; exit 2; }
  cp "$1/$2" "$KDIR/$2"
}

# --- the root filesystem -------------------------------------------------------------------------
# Debian bookworm arm64, what Raspberry Pi OS Lite is built from: systemd as PID 1, udev, persistent
# journald (/var/log/journal, Pi OS's default), openssh-server for the host's control connection,
# systemd-networkd for QEMU's user network. The packages a Pi OS image already has and the station
# needs at run time (systemd/runtime-packages: gpiod, libusb, libudev, procps, espeak-ng and
# alsa-utils for speech) are in the image, and what a public station's image has beside them:
# usbguard (only the profile's USB devices), the TPM 2.0 libraries systemd-creds loads and
# tpm2-tools (credentials sealed to the board's TPM, QEMU's TPM backed by swtpm on the host).
# The kiosk's packages — cage, the Xwayland it starts, and Chromium with a font (on QEMU's virtio-gpu display) and
# libpam-systemd and polkitd (the kiosk user's seat, and polkit letting logind activate it: without
# polkitd cage cannot start, hardware/DISPLAYS.md) — are in a second image, built only for a run that needs
# it (BOARD_IMAGE=kiosk: run.sh sets it for --full and for --parts naming a part file that exports
# `image = 'kiosk'`): Chromium's few hundred packages and their maintainer scripts under qemu-user
# doubled the image's build, and CI's runs never start the kiosk.
# The guest has no route to a Debian mirror, so install.sh finds them installed, as on a Pi.
# The kernel package is installed in the image (its modules and initramfs-tools' initrd, made by
# the image's own tools under qemu-user); vmlinuz and the initrd are copied out for -kernel/-initrd.
# The initrd holds only what mounts the root (MODULES=list: virtio_pci, virtio_blk, ext4): with
# initramfs-tools' default (most) it took over 15 minutes under qemu-user, module by module.
BOARD_PACKAGES=(systemd-sysv udev kmod dbus openssh-server iproute2 procps less e2fsprogs initramfs-tools
  gpiod libusb-1.0-0 libudev1 libstdc++6 libgcc-s1 ca-certificates espeak-ng alsa-utils
  usbguard tpm2-tools libtss2-esys-3.0.2-0 libtss2-rc0 libtss2-mu0 libtss2-tcti-device0 unattended-upgrades)
KIOSK_PACKAGES=(cage xwayland chromium fonts-dejavu-core libpam-systemd polkitd)
board_rootfs() {
  local key packages=("${BOARD_PACKAGES[@]}")
  case "${BOARD_IMAGE:-base}" in
    base) ;;
    kiosk) packages+=("${KIOSK_PACKAGES[@]}") ;;
    *) echo "board: BOARD_IMAGE=${BOARD_IMAGE}: base or kiosk" >&2; exit 2 ;;
  esac
  # Bump IMAGE_REV when the customisation below changes: the cache key is the kernel, the package
  # list and this number.
  local IMAGE_REV=6
  key="$(printf '%s\n' "$KVER" "${packages[@]}" "$IMAGE_REV" | sha256sum | cut -c1-12)"
  IMAGE_BASE="$BOARD/image/$key/rootfs.img"
  [ -f "$IMAGE_BASE" ] && [ -f "$KDIR/vmlinuz" ] && return 0
  mkdir -p "$BOARD/ssh"
  [ -f "$BOARD/ssh/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C board -f "$BOARD/ssh/id_ed25519"
  local dir="$BOARD/image/$key" tree="$BOARD/image/$key/tree"
  rm -rf "$dir"; mkdir -p "$tree"
  local includes
  includes="$(IFS=,; echo "${packages[*]},linux-image-$KVER")"
  # The hooks are run by mmdebstrap's shell, with the tree as "$1".
  # shellcheck disable=SC2016
  mmdebstrap --quiet --mode=root --architectures=arm64 --variant=minbase --include="$includes" \
    --aptopt='Acquire::Languages "none"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --setup-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d"' \
    --setup-hook='echo MODULES=list > "$1/etc/initramfs-tools/conf.d/board"' \
    --setup-hook='printf "%s\n" virtio_pci virtio_blk ext4 > "$1/usr/share/initramfs-tools/modules.d/board"' \
    bookworm "$tree" "${MIRRORS[@]}"
  # The board's own settings, as an image builder would make them.
  echo board >"$tree/etc/hostname"
  printf '127.0.0.1\tlocalhost\n127.0.1.1\tboard\n' >"$tree/etc/hosts"
  printf '/dev/vda\t/\text4\terrors=remount-ro\t0\t1\n' >"$tree/etc/fstab"
  mkdir -p "$tree/root/.ssh" "$tree/var/log/journal"
  install -m 0600 "$BOARD/ssh/id_ed25519.pub" "$tree/root/.ssh/authorized_keys"
  chmod 0700 "$tree/root/.ssh"
  # QEMU's user network gives the guest 10.0.2.15/24 (hostfwd forwards there; 10.0.2.100, the
  # reference server's guestfwd, is on that link). A static address, because bookworm's networkd can
  # fail its DHCPv4 client for good when udev announces the link while it configures it ("Failed to
  # configure DHCPv4 client: Device or resource busy",
  # https://github.com/systemd/systemd/issues/24201): a boot whose ssh never answered. No gateway,
  # as restrict=on's DHCP gives none: with a default route, every name look-up (apt's Debian
  # mirrors) waits out its time-outs instead of failing at once, 2 min per apt-get update.
  printf '[Match]\nName=en* eth*\n\n[Network]\nAddress=10.0.2.15/24\n' >"$tree/etc/systemd/network/20-wired.network"
  ln -sf /lib/systemd/system/systemd-networkd.service "$tree/etc/systemd/system/multi-user.target.wants/systemd-networkd.service"
  # Serial console login is not needed (control is over ssh); its getty is kept off the console.
  ln -sf /dev/null "$tree/etc/systemd/system/serial-getty@ttyAMA0.service"
  # No DNS resolver in a restricted user network: sshd must not wait for reverse lookups.
  echo 'UseDNS no' >"$tree/etc/ssh/sshd_config.d/board.conf"
  # gpio-sim and uhid load at boot; gpio-sim needs configfs (mounted by systemd). snd-aloop is the
  # board's sound card: what is played on Loopback,0,0 can be recorded from Loopback,1,0 (the
  # board has no speaker; the test records what the station says there).
  mkdir -p "$tree/lib/modules/$KVER/extra"
  aarch64-linux-gnu-strip --strip-debug -o "$tree/lib/modules/$KVER/extra/gpio-sim.ko" "$KDIR/gpio-sim.ko"
  aarch64-linux-gnu-strip --strip-debug -o "$tree/lib/modules/$KVER/extra/tpm_tis.ko" "$KDIR/tpm_tis.ko"
  chroot "$tree" depmod -a "$KVER"
  printf 'gpio-sim\nuhid\nsnd-aloop\n' >"$tree/etc/modules-load.d/board.conf"
  # The virtual board's speaker (the profile's speech device): what the station plays goes to the
  # loopback card and, sample for sample as the station gave it, into a file in the station's runtime
  # directory (one per playback: speech-tap.raw, .0001, …). A recording of the loopback under TCG
  # loses sound when the emulation stalls; the file is what was played.
  cat >"$tree/etc/asound.conf" <<'ASOUND'
pcm.board_speech {
  type file
  slave.pcm "plughw:Loopback,0,0"
  file "/run/pickup-station/speech-tap.raw"
  format "raw"
  truncate false
}
ASOUND
  mkdir -p "$KDIR"
  cp "$tree/boot/vmlinuz-$KVER" "$KDIR/vmlinuz"
  cp "$tree/boot/initrd.img-$KVER" "$KDIR/initrd.img"
  rm -f "$tree"/etc/machine-id; : >"$tree/etc/machine-id"
  # An ext4 image made from the tree (mke2fs -d): 5 GiB, sparse (room for the kiosk's Chromium).
  mkfs.ext4 -q -F -L board -d "$tree" -E lazy_itable_init=0,lazy_journal_init=0 "$dir/rootfs.img.tmp" 5G
  mv "$dir/rootfs.img.tmp" "$IMAGE_BASE"
  rm -rf "$tree"
}
