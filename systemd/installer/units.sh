# shellcheck shell=bash
# Sourced by install.sh: activating a release. `current` switched to it with its own units, udev
# rules, tmpfiles, journald and kiosk lockdown files and the technicians' commands; the USB policy;
# this installer's own units and the copy of the installer they run; the unit's enablement.

# --- activating a release: current, its units, udev rules, wrappers -------------------------
# The technicians' commands run the current release with the node its unit runs (its own
# node/bin/node, else /usr/bin/node), whatever the layout of that release (app/ since bundling;
# dist/src/ before: a rollback may activate one).
write_wrapper() { # NAME APP_ENTRY OLD_ENTRY
  local f="$TMP/wrapper-$1" r="/opt/$NAME/current"
  cat >"$f" <<EOF
#!/bin/sh
# Installed by $NAME install.sh: runs the current release.
node=/usr/bin/node
[ -x $r/node/bin/node ] && node=$r/node/bin/node
[ -f $r/$2 ] && exec "\$node" $r/$2 "\$@"
exec "\$node" $r/$3 "\$@"
EOF
  if ensure_file "$f" "$BIN/$1" 0755 root root; then :; fi
}

is_helper_unit() { local h; for h in "${HELPER_UNITS[@]}"; do [ "$1" = "$h" ] && return 0; done; return 1; }
# A file the package itself ships (never touched here). With --root: DIR/var/lib/pickup-station.files
# stands in for dpkg's list.
PACKAGE_FILES=""
dpkg_owns() {
  [ "$PACKAGED" = 1 ] || return 1
  if [ -z "$PACKAGE_FILES" ]; then
    if [ "$LIVE" = 1 ]; then PACKAGE_FILES="$(dpkg-query -L "$NAME" 2>/dev/null || true)"; else PACKAGE_FILES="$(cat "$ROOT/var/lib/$NAME.files" 2>/dev/null || true)"; fi
    PACKAGE_FILES="${PACKAGE_FILES:-none}"
  fi
  grep -qxF "${1#"$ROOT"}" <<<"$PACKAGE_FILES"
}

release_unit_files() { # VERSION -> the unit files of its systemd/ (this installer's own excepted)
  local f
  for f in "$RELEASES/$1"/systemd/*.service "$RELEASES/$1"/systemd/*.socket "$RELEASES/$1"/systemd/*.timer "$RELEASES/$1"/systemd/*.path; do
    [ -f "$f" ] || continue
    is_helper_unit "$(basename "$f")" && continue
    printf '%s\n' "$f"
  done
}

UNIT_CHANGED=0
UDEV_CHANGED=0
# install_release_units VERSION: its units into UNIT_DIR; units of an earlier release it does not
# have are removed. The unit comes with the switch, never before: the running release always runs
# under its own unit, whatever reloads systemd in between.
install_release_units() {
  local f b keep=" "
  while IFS= read -r f; do
    b="$(basename "$f")"
    keep+="$b "
    if ensure_file "$f" "$UNIT_DIR/$b" 0644 root root; then UNIT_CHANGED=1; fi
  done < <(release_unit_files "$1")
  for f in "$UNIT_DIR/$NAME".* "$UNIT_DIR/$NAME"-*; do
    [ -f "$f" ] || continue
    b="$(basename "$f")"
    case "$b" in *.service | *.socket | *.timer | *.path) ;; *) continue ;; esac
    if is_helper_unit "$b" || dpkg_owns "$f"; then continue; fi
    case "$keep" in *" $b "*) continue ;; esac
    rm -f "$f"
    UNIT_CHANGED=1
  done
  forget_legacy_unit
}

# An earlier installer copied the unit into /etc/systemd/system (bundle installs; the package after a
# rollback): a copy identical to a release's unit is removed. Anything else there is the
# administrator's and stays (a mask included); a unit of their own is named, once per run.
forget_legacy_unit() {
  local f bridge="$ROOT/run/systemd/system/$NAME.service"
  # The package's preinst kept the old package's unit here while dpkg replaced the files.
  if [ -f "$ROOT/run/$NAME-unit-bridge" ]; then
    rm -f "$bridge" "$ROOT/run/$NAME-unit-bridge"
    UNIT_CHANGED=1
  fi
  [ -f "$LEGACY_UNIT" ] && [ ! -L "$LEGACY_UNIT" ] || return 0
  for f in "$RELEASES"/*/systemd/"$NAME".service; do
    if [ -f "$f" ] && cmp -s "$f" "$LEGACY_UNIT"; then
      rm -f "$LEGACY_UNIT"
      UNIT_CHANGED=1
      say "removed the copy of the unit an earlier installer kept in /etc/systemd/system (the release's own unit is in ${UNIT_DIR#"$ROOT"})"
      return 0
    fi
  done
  if [ -z "${LEGACY_NAMED:-}" ]; then
    LEGACY_NAMED=1
    say "note: /etc/systemd/system/$NAME.service is an administrator's unit: it is used instead of the release's own (${UNIT_DIR#"$ROOT"}/$NAME.service)"
  fi
}

# This installer's own units (bundle and source installs; the package ships them), running a copy
# of the newest installer that ran, from SRC (a release tree).
install_installer_units() {
  [ "$PACKAGED" = 0 ] || return 0
  local src="$1" h
  [ -f "$src/systemd/install.sh" ] || return 0
  install_installer_copy "$src/systemd"
  for h in "${HELPER_UNITS[@]}"; do
    [ -f "$src/systemd/$h" ] || continue
    sed "s|/usr/lib/$NAME/release/systemd/install.sh|/usr/local/lib/$NAME/install.sh|g" "$src/systemd/$h" >"$TMP/$h"
    if ensure_file "$TMP/$h" "$UNIT_DIR/$h" 0644 root root; then UNIT_CHANGED=1; fi
  done
}

# install_installer_copy DIR: DIR/install.sh and its job files DIR/installer/*.sh (and its state
# table, installer/states.tsv) as the copy the
# units run, replaced as a set: installer.partial lies beside the copy, on disk, before its first
# file changes and until its last one is in place (a run of the copy meanwhile hands itself to the
# release's own installer: install.sh, "a whole installer"). Job files the new set lacks go.
install_installer_copy() {
  local from="$1" home jobs f partial
  home="$(dirname "$INSTALLER_COPY")"
  jobs="$home/installer"
  partial="$home/installer.partial"
  if ! installer_copy_is "$from"; then
    mkdir -p "$home"
    : >"$partial"
    sync_path "$partial"
    sync_path "$home"
  fi
  for f in "$from"/installer/*.sh "$from"/installer/*.tsv; do
    if [ -f "$f" ] && ensure_file "$f" "$jobs/$(basename "$f")" 0644 root root; then :; fi
  done
  for f in "$jobs"/*.sh "$jobs"/*.tsv; do
    if [ -f "$f" ] && [ ! -f "$from/installer/$(basename "$f")" ]; then rm -f "$f"; fi
  done
  # An installer without job files (an older release's) leaves no empty folder.
  if [ -d "$jobs" ]; then rmdir --ignore-fail-on-non-empty "$jobs"; fi
  if ensure_file "$from/install.sh" "$INSTALLER_COPY" 0755 root root; then :; fi
  if [ -e "$partial" ]; then
    if [ -d "$jobs" ]; then sync_path "$jobs"; fi
    sync_path "$home"
    rm -f "$partial"
    sync_path "$home"
  fi
}

# installer_copy_is DIR: the copy holds DIR's installer already, the same files and no others.
installer_copy_is() {
  local from="$1" jobs f
  jobs="$(dirname "$INSTALLER_COPY")/installer"
  [ ! -e "$(dirname "$INSTALLER_COPY")/installer.partial" ] && cmp -s "$from/install.sh" "$INSTALLER_COPY" || return 1
  for f in "$from"/installer/*.sh "$from"/installer/*.tsv; do
    if [ -f "$f" ] && ! cmp -s "$f" "$jobs/$(basename "$f")"; then return 1; fi
  done
  for f in "$jobs"/*.sh "$jobs"/*.tsv; do
    if [ -f "$f" ] && [ ! -f "$from/installer/$(basename "$f")" ]; then return 1; fi
  done
  return 0
}

# activate VERSION: current -> it, with its units (reload_units makes systemd read them).
activate() {
  local version="$1"
  [ -d "$RELEASES/$version" ] || die "no release $version"
  if ensure_link "releases/$version" "$OPT/current"; then say "current release: $version"; fi
  install_release_units "$version"
  enable_technician_socket
  if [ "$PACKAGED" = 0 ]; then
    if [ -f "$RELEASES/$version/hardware/99-$NAME.rules" ]; then
      if ensure_file "$RELEASES/$version/hardware/99-$NAME.rules" "$UDEV_DEST" 0644 root root; then UDEV_CHANGED=1; fi
    fi
    # The metrics textfile's folder on tmpfs (made at boot): an idle station writes nothing to the SD card.
    if [ -f "$RELEASES/$version/systemd/tmpfiles.conf" ] &&
      ensure_file "$RELEASES/$version/systemd/tmpfiles.conf" "$ROOT/usr/local/lib/tmpfiles.d/$NAME.conf" 0644 root root && systemd_running; then
      host systemd-tmpfiles --create "/usr/local/lib/tmpfiles.d/$NAME.conf"
    fi
    # The tty classes the unit's DeviceAllow= names, registered before it starts (the file says why).
    if [ -f "$RELEASES/$version/systemd/modules-load.conf" ] &&
      ensure_file "$RELEASES/$version/systemd/modules-load.conf" "$ROOT/usr/local/lib/modules-load.d/$NAME.conf" 0644 root root && systemd_running; then
      host modprobe -a usbserial cdc_acm
    fi
    if [ -f "$RELEASES/$version/systemd/journald@$NAME.conf" ]; then
      ensure_dir "$JOURNALD_DROPIN_DIR" 0755 root root
      ensure_file "$RELEASES/$version/systemd/journald@$NAME.conf" "$JOURNALD_DROPIN_DIR/50-$NAME.conf" 0644 root root || true
    fi
    install_lockdown "$version"
    mkdir -p "$BIN"
    write_wrapper "$NAME" app/main.js dist/src/main.js
    write_wrapper stationctl app/stationctl.js dist/src/cli/stationctl.js
  fi
}

# install_lockdown VERSION: what keeps a person at the station's screen and keyboard inside the
# kiosk page, and every keyboard from the station's consoles and power (the package ships the same
# files itself): no getty on any VT (logind's drop-in, the gettys masked), no key that powers off,
# reboots or suspends (logind's drop-in, ctrl-alt-del.target masked, systemd's drop-in), no magic
# SysRq keys (applied now), Chromium's managed policy. apply_console_lockdown puts the consoles'
# part in force now. The policy is in /etc and an administrator may edit it: like dpkg's conffiles,
# it is replaced only while it is still the copy this installer wrote (its hash in POLICY_SHIPPED),
# else kept. Chromium reads it through a link in its managed folder, where nothing else of ours lies
# (Chromium reads every file there).
CONSOLE_CHANGED=0
install_lockdown() {
  local sys="$RELEASES/$1/systemd" shipped="" unit
  if [ -f "$sys/logind-kiosk.conf" ] && ensure_file "$sys/logind-kiosk.conf" "$LOGIND_DROPIN" 0644 root root; then CONSOLE_CHANGED=1; fi
  # systemd reads it at the daemon-reload that follows.
  if [ -f "$sys/system-keys.conf" ] && ensure_file "$sys/system-keys.conf" "$SYSTEM_DROPIN" 0644 root root; then UNIT_CHANGED=1; fi
  if [ -f "$sys/system-keys.conf" ]; then
    ensure_dir "$UNIT_DIR" 0755 root root
    for unit in "${CONSOLE_MASKS[@]}"; do
      # Anything else of that name there (an administrator's unit or link) is theirs.
      if { [ -e "$UNIT_DIR/$unit" ] || [ -L "$UNIT_DIR/$unit" ]; } && [ "$(readlink "$UNIT_DIR/$unit")" != /dev/null ]; then continue; fi
      if ensure_link /dev/null "$UNIT_DIR/$unit"; then UNIT_CHANGED=1; CONSOLE_CHANGED=1; fi
    done
  fi
  if [ -f "$sys/polkit-kiosk.rules" ]; then
    # polkitd reads the folder as it finds it; made here when polkitd is not installed yet.
    [ -d "$(dirname "$POLKIT_RULES")" ] || ensure_dir "$(dirname "$POLKIT_RULES")" 0755 root root
    ensure_file "$sys/polkit-kiosk.rules" "$POLKIT_RULES" 0644 root root || true
  fi
  if [ -f "$sys/sysctl-kiosk.conf" ] && ensure_file "$sys/sysctl-kiosk.conf" "$SYSCTL_FILE" 0644 root root && systemd_running; then
    host /usr/lib/systemd/systemd-sysctl "$(basename "$SYSCTL_FILE")"
  fi
  [ -f "$sys/chromium-policy.json" ] || return 0
  if [ ! -e "$CHROMIUM_POLICY_LINK" ] && [ ! -L "$CHROMIUM_POLICY_LINK" ]; then
    mkdir -p "$(dirname "$CHROMIUM_POLICY_LINK")"
    ensure_link "../../../$NAME-kiosk/chromium-policy.json" "$CHROMIUM_POLICY_LINK" || true
  fi
  [ -f "$POLICY_SHIPPED" ] && shipped="$(cat "$POLICY_SHIPPED")"
  if [ -f "$CHROMIUM_POLICY" ] && ! cmp -s "$sys/chromium-policy.json" "$CHROMIUM_POLICY" &&
    [ "$(sha256sum <"$CHROMIUM_POLICY" | cut -d' ' -f1)" != "$shipped" ]; then
    say "kept $CHROMIUM_POLICY as edited here; release $1's own is $sys/chromium-policy.json"
    journal notice "kept $CHROMIUM_POLICY as edited here; release $1's own is $sys/chromium-policy.json"
    return 0
  fi
  if ensure_file "$sys/chromium-policy.json" "$CHROMIUM_POLICY" 0644 root root; then say "Chromium's managed policy: $CHROMIUM_POLICY"; fi
  sha256sum <"$CHROMIUM_POLICY" | cut -d' ' -f1 >"$POLICY_SHIPPED"
}

reload_units() {
  if [ "$UNIT_CHANGED" = 1 ] && systemd_running; then host systemctl daemon-reload; fi
  if [ "$UDEV_CHANGED" = 1 ] && systemd_running; then
    host udevadm control --reload
    host udevadm trigger --subsystem-match=hidraw --subsystem-match=gpio --subsystem-match=tty
  fi
  UNIT_CHANGED=0
  UDEV_CHANGED=0
}

# --- the USB policy: only the board profile's USB devices authorised (docs/security.md) ----------
# USB_POLICY_NEW: the policy is not in place yet (its path unit not installed) or USBGuard's drop-in
# changed: apply_usb_policy runs once. Later profile changes are the path unit's.
USB_POLICY_NEW=0
ensure_usbguard_files() {
  local src="$RELEASES/$RELEASE/systemd"
  [ -f "$src/usbguard-daemon.conf" ] || return 0
  [ -f "$UNIT_DIR/$NAME-usb-policy.path" ] || USB_POLICY_NEW=1
  ensure_dir "$USBGUARD_DIR" 0755 root root
  ensure_dir "$USBGUARD_DIR/$NAME.d" 0700 root root
  if [ "$PACKAGED" = 0 ]; then
    ensure_file "$src/usbguard-daemon.conf" "$USBGUARD_DIR/$NAME-daemon.conf" 0600 root root --keep || true
    ensure_dir "$(dirname "$USBGUARD_DROPIN")" 0755 root root
    if ensure_file "$src/usbguard-dropin.conf" "$USBGUARD_DROPIN" 0644 root root; then UNIT_CHANGED=1; USB_POLICY_NEW=1; fi
  fi
  : >"$TMP/empty-rules"
  ensure_file "$TMP/empty-rules" "$USBGUARD_DIR/$NAME-local.conf" 0600 root root --keep || true
}

# The current release writes the profile's rules; USBGuard restarts to apply them to the devices
# plugged in now; the path unit follows later changes. A bad profile is named and the rules in
# force stay (the station itself refuses that profile too).
apply_usb_policy() {
  [ "$USB_POLICY_NEW" = 1 ] && [ -f "$UNIT_DIR/$NAME-usb-policy.path" ] && [ -f "$ETC/config.json" ] || return 0
  systemd_running || return 0
  local wrapper="/usr/local/bin/$NAME"
  [ "$PACKAGED" = 1 ] && wrapper="/usr/bin/$NAME"
  if host "$wrapper" usb-policy --config "/etc/$NAME/config.json"; then
    # Its udev rules give the profile's HID devices' hidraw nodes to the station's group and keep
    # their input nodes from logind and libinput (logind lets go of a node on its change event).
    host udevadm control --reload || say "warning: udevadm control --reload failed"
    host udevadm trigger --subsystem-match=hidraw --subsystem-match=input --action=change || say "warning: udevadm trigger failed"
    host systemctl restart usbguard.service || say "warning: usbguard.service did not restart: every USB device not authorised stays so (journalctl -u usbguard)"
  else
    say "warning: no USB policy written (see above): the rules in force stay"
  fi
  host systemctl enable --now --quiet "$NAME-usb-policy.path" || say "warning: systemctl enable $NAME-usb-policy.path failed"
}

# --- the consoles: no getty on a VT, no key that turns the station off (records 0135, 0136) ----
# In force now, not only from the next boot: logind reads its drop-in again (SIGHUP: the keys'
# handlers, no autovt), and a getty on a VT nobody is logged in at is stopped (its mask keeps it from
# starting again). A getty with a session (someone at the screen, running this installer perhaps)
# is left to its user and is gone at the next boot. The package's files arrive with dpkg's unpack:
# a package install applies it when logind's drop-in is not the one it applied last (its hash in
# CONSOLE_APPLIED), so a reinstall of the same package signals nothing.
apply_console_lockdown() {
  local logind="$LOGIND_DROPIN" applied="$OPT/console-lockdown.sha256" digest=""
  [ "$PACKAGED" = 0 ] || logind="$ROOT/usr/lib/systemd/logind.conf.d/$NAME.conf"
  [ -f "$logind" ] && digest="$(sha256sum <"$logind" | cut -d' ' -f1)"
  if [ "$PACKAGED" = 1 ] && [ "$digest" != "$(cat "$applied" 2>/dev/null || true)" ]; then CONSOLE_CHANGED=1; fi
  [ "$CONSOLE_CHANGED" = 1 ] || return 0
  systemd_running || return 0
  host systemctl kill --signal=SIGHUP systemd-logind.service || say "warning: logind did not get SIGHUP: its key handlers change at the next boot"
  printf '%s\n' "$digest" >"$applied"
  CONSOLE_CHANGED=0
  [ "$LIVE" = 1 ] || return 0
  local unit tty busy
  # Who is logged in where (utmp): login(1) records each console session's terminal.
  busy=" $(who 2>/dev/null | awk '{ print $2 }' | tr '\n' ' ') "
  for unit in $(systemctl list-units --no-legend --plain --state=active 'getty@tty*.service' 'autovt@tty*.service' 2>/dev/null | awk '{ print $1 }'); do
    tty="${unit#*@}"
    tty="${tty%.service}"
    case "$busy" in
      *" $tty "*) say "note: someone is logged in on $tty: its getty stays until they log out or the board boots" ;;
      *) if host systemctl stop "$unit"; then say "stopped $unit: no login prompt on a console of the station"; else say "warning: $unit did not stop"; fi ;;
    esac
  done
}

# usbguard.service runs but has not told the station (its drop-in is newer than its start: an upgrade
# from a release without that line, the package's drop-in replaced by dpkg): started again once, so
# that the station does not take a running USBGuard for a missing one.
ensure_usbguard_state() {
  [ "$LIVE" = 1 ] && systemd_running || return 0
  [ ! -e /run/pickup-station-usbguard/state ] || return 0
  systemctl is-active --quiet usbguard.service || return 0
  systemctl daemon-reload || true
  systemctl try-restart usbguard.service || say "warning: usbguard.service did not restart: the station says the USB policy is not enforced until it does (journalctl -u usbguard)"
}

# --- the kernel's default for new USB devices ---------------------------------------------------
# usbcore.authorized_default=0: every USB device, one plugged in before power-on too, stays
# unauthorised until USBGuard has judged it, and stays so if USBGuard never runs (record 0145). A
# Raspberry Pi's firmware reads the kernel's command line from cmdline.txt on the boot partition
# (/boot/firmware since Bookworm, /boot before): one line, parameters separated by spaces. Applied
# at the next boot; the station's status says until then that the devices present at power-on were
# authorised first.
readonly USB_BOOT_PARAM=usbcore.authorized_default=0
cmdline_file() {
  local f
  for f in "$ROOT/boot/firmware/cmdline.txt" "$ROOT/boot/cmdline.txt"; do
    # Bookworm keeps a /boot/cmdline.txt that only says where the real one moved.
    if [ -f "$f" ] && ! grep -q 'DO NOT EDIT' "$f"; then printf '%s' "$f"; return 0; fi
  done
  return 1
}

# set_cmdline_param add|remove: the first line of cmdline.txt with USB_BOOT_PARAM (any other value
# of that parameter replaced), or without it; written atomically; 0 when it changed.
set_cmdline_param() {
  local file line want
  file="$(cmdline_file)" || return 1
  line="$(head -n 1 "$file")"
  want="$(printf '%s' "$line" | sed -E 's/(^|[[:space:]])usbcore\.authorized_default=[^[:space:]]*//g; s/^[[:space:]]+//; s/[[:space:]]+$//')"
  [ "$1" = remove ] || want="${want:+$want }$USB_BOOT_PARAM"
  [ "$want" != "$line" ] || return 1
  printf '%s\n' "$want" >"$file.new.$$" || die "cannot write $file"
  sync_path "$file.new.$$"
  mv -f "$file.new.$$" "$file" || die "cannot write $file"
  sync_path "$(dirname "$file")"
  return 0
}

ensure_usb_boot_default() {
  if [ -z "$(cmdline_file)" ]; then
    say "note: no cmdline.txt (/boot/firmware or /boot): not a Raspberry Pi's boot partition. Add $USB_BOOT_PARAM to the kernel's command line (docs/operating.md): until then a USB device plugged in before power-on is authorised before USBGuard starts"
    return 0
  fi
  if set_cmdline_param add; then
    say "the kernel's command line ($(cmdline_file | sed "s|^$ROOT||")) now keeps every USB device unauthorised until USBGuard judges it ($USB_BOOT_PARAM): from the next boot"
    journal info "added $USB_BOOT_PARAM to $(cmdline_file | sed "s|^$ROOT||") (applied at the next boot)"
  fi
}

# --- the service ------------------------------------------------------------------------------
unit_enablement() {
  if [ "$LIVE" = 1 ]; then systemctl is-enabled "$NAME" 2>/dev/null || true; else systemctl --root="$ROOT" is-enabled "$NAME" 2>/dev/null || true; fi
}
unit_active() { [ "$LIVE" = 1 ] && systemctl is-active --quiet "$NAME"; }

# The [Install] symlink, made once: on the first install. Later runs leave enablement to the
# administrator (a disabled or masked unit stays so).
enable_unit() {
  if [ "$LIVE" = 1 ]; then
    systemctl enable --quiet "$NAME" || say "warning: systemctl enable $NAME failed"
  else
    systemctl --root="$ROOT" enable --quiet "$NAME" 2>/dev/null || true
  fi
}

disable_unit() {
  if [ "$LIVE" = 1 ]; then
    # Stopping runs ExecStopPost: every lock OFF before the files go.
    systemctl disable --now --quiet "$NAME" || true
  else
    host systemctl stop "$NAME"
    systemctl --root="$ROOT" disable --quiet "$NAME" 2>/dev/null || true
  fi
}

# The technician port's socket unit (the release's pickup-station-technician.socket): enabled once,
# when it first comes with a release (or at the first install). An administrator who disabled it
# afterwards keeps it so (the station then answers on its unix socket only).
TECHNICIAN_SOCKET_NEW=0
note_technician_socket() { [ -f "$UNIT_DIR/$NAME-technician.socket" ] || TECHNICIAN_SOCKET_NEW=1; }
enable_technician_socket() {
  [ "$TECHNICIAN_SOCKET_NEW" = 1 ] && [ -f "$UNIT_DIR/$NAME-technician.socket" ] || return 0
  if [ "$LIVE" = 1 ]; then
    systemctl enable --quiet "$NAME-technician.socket" || say "warning: systemctl enable $NAME-technician.socket failed: the technician port answers on its unix socket only"
  else
    systemctl --root="$ROOT" enable --quiet "$NAME-technician.socket" 2>/dev/null || true
  fi
  TECHNICIAN_SOCKET_NEW=0
}

start_upgrade_service() {
  if systemd_running && [ -f "$UNIT_DIR/$NAME-upgrade.service" ]; then host systemctl start --no-block "$NAME-upgrade.service"; fi
}
