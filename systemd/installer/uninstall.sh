# shellcheck shell=bash
# Sourced by install.sh: --uninstall, and --uninstall --purge (config, credentials, the station's
# journal and the account too). A package install is removed by apt instead.

purge_journal() {
  host systemctl stop "systemd-journald@$NAME.socket" "systemd-journald-varlink@$NAME.socket" "systemd-journald@$NAME.service" || true
  local d
  for d in "$ROOT"/var/log/journal/*."$NAME" "$ROOT"/run/log/journal/*."$NAME"; do
    [ -d "$d" ] && rm -rf "$d"
  done
  return 0
}

do_uninstall() {
  [ "$PACKAGED" = 0 ] || die "installed by the Debian package: apt-get remove $NAME (purge: apt-get purge $NAME)"
  TMP="$(mktemp -d)"
  # The kiosk's socket first: a connection to it would start the station again.
  if [ -f "$UNIT_DIR/$NAME-kiosk.socket" ]; then host systemctl disable --now --quiet "$NAME-kiosk.socket" || true; fi
  if [ -f "$UNIT_DIR/$NAME-technician.socket" ]; then
    host systemctl disable --now --quiet "$NAME-technician.socket" || true
    if [ "$LIVE" = 0 ]; then systemctl --root="$ROOT" disable --quiet "$NAME-technician.socket" 2>/dev/null || true; fi
  fi
  # The folder its [Install] link was in is named after the station's unit: it goes with it.
  rmdir "$ROOT/etc/systemd/system/$NAME.service.wants" 2>/dev/null || true
  if [ -f "$UNIT_DIR/$NAME.service" ] || [ -f "$LEGACY_UNIT" ]; then disable_unit; fi
  if [ -f "$UNIT_DIR/$NAME-usb-policy.path" ]; then host systemctl disable --now --quiet "$NAME-usb-policy.path" || true; fi
  forget_legacy_unit
  local f
  for f in "$UNIT_DIR/$NAME".* "$UNIT_DIR/$NAME"-*; do
    [ -f "$f" ] && rm -f "$f"
  done
  rm -f "$UDEV_DEST" "$BIN/$NAME" "$BIN/stationctl" "$INSTALLER_COPY" "$ROOT/usr/local/lib/tmpfiles.d/$NAME.conf" "$ROOT/usr/local/lib/modules-load.d/$NAME.conf" "$INSTALL_LOCK"
  rm -f "$JOURNALD_DROPIN_DIR/50-$NAME.conf" "$LOGIND_DROPIN" "$SYSTEM_DROPIN" "$SYSCTL_FILE" "$POLKIT_RULES"
  for f in "${CONSOLE_MASKS[@]}"; do
    if [ -L "$UNIT_DIR/$f" ] && [ "$(readlink "$UNIT_DIR/$f")" = /dev/null ]; then rm -f "$UNIT_DIR/$f"; fi
  done
  rm -rf "$(dirname "$INSTALLER_COPY")/installer" "$(dirname "$INSTALLER_COPY")/installer.partial"
  rmdir "$(dirname "$INSTALLER_COPY")" "$JOURNALD_DROPIN_DIR" 2>/dev/null || true
  rm -rf "$OPT"
  # USBGuard goes back to its own settings (Debian's rules.conf), and the kernel to its default.
  if set_cmdline_param remove; then say "removed $USB_BOOT_PARAM from the kernel's command line (from the next boot)"; fi
  rm -f "$USBGUARD_DROPIN"
  rmdir "$(dirname "$USBGUARD_DROPIN")" 2>/dev/null || true
  host systemctl daemon-reload
  host udevadm control --reload
  if [ -f "$ROOT/usr/sbin/usbguard-daemon" ]; then host systemctl try-restart usbguard.service || true; fi
  if [ "$PURGE" = 1 ]; then
    rm -rf "$ETC" "$ROOT/var/lib/$NAME" "$USBGUARD_DIR/$NAME.d"
    purge_journal
    rm -f "$CHROMIUM_POLICY_LINK"
    rm -rf "$(dirname "$CHROMIUM_POLICY")"
    rm -f "$VENDOR_KEY" "$USBGUARD_DIR/$NAME-daemon.conf" "$USBGUARD_DIR/$NAME-local.conf" "$USBGUARD_DIR/$NAME-profile.conf.proposed"
    rm -f "$ROOT/etc/udev/rules.d/70-$NAME-profile.rules" "$ROOT/etc/udev/$NAME-profile.rules.proposed"
    rm -f "$ROOT/etc/udev/rules.d/90-$NAME-input.rules" "$ROOT/etc/udev/$NAME-input.rules.proposed"
    if id_of passwd "$NAME" >/dev/null; then accounts userdel "$NAME"; fi
    if id_of group "$NAME" >/dev/null; then accounts groupdel "$NAME"; fi
    say "removed everything, config, credentials and the vendor key included (groups gpio, dialout, pickup-hid, i2c, audio, utmp stay; drop-ins in /etc/systemd/system are the administrator's)"
  else
    say "removed; kept /etc/$NAME (config and credentials) and the vendor key: --uninstall --purge removes them too"
  fi
}
