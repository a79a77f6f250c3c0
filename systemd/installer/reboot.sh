# shellcheck shell=bash
# Sourced by install.sh: --reboot-when-free (pickup-station-reboot.service, started by
# pickup-station-reboot.path when /run/reboot-required appears). An update that needs a reboot
# (Debian's kernel packages write that file through unattended-upgrades' kernel hook; the package's
# dpkg trigger writes it when Chromium changed: the kiosk runs the old browser until then) reboots
# the station only once it is free: nobody using it (the daemon's update lock), no package run in
# progress (dpkg's lock), no switch of a release pending or running. A stop that begins after that
# check still drains: the daemon finishes the event in flight before it exits. At most REBOOT_WAIT
# seconds; then the service fails, and the path unit starts it again while the file is there.

readonly REBOOT_REQUIRED="$ROOT/run/reboot-required"

# dpkg_busy: a dpkg or apt run holds its lock now (fcntl locks, as /proc/locks lists them).
dpkg_busy() {
  lslocks --noheadings --raw --output PATH 2>/dev/null |
    grep -qxF -e "$ROOT/var/lib/dpkg/lock-frontend" -e "$ROOT/var/lib/dpkg/lock" -e "$ROOT/var/lib/apt/lists/lock"
}

# reboot_busy: why the station may not reboot now ("" when it may).
reboot_busy() {
  if dpkg_busy; then echo "a package run is in progress (dpkg's lock)"; return 0; fi
  local busy
  busy="$(station_busy)"
  if [ -n "$busy" ]; then echo "the station is in use ($busy)"; return 0; fi
  if [ "$LIVE" = 1 ] && systemctl is-active --quiet "$NAME-upgrade.service"; then echo "a release switch is pending ($NAME-upgrade.service)"; return 0; fi
  echo ""
}

do_reboot_when_free() {
  if [ ! -e "$REBOOT_REQUIRED" ]; then
    say "no reboot required ($REBOOT_REQUIRED is absent)"
    return 0
  fi
  local why busy said="" deadline
  why="$(sort -u "$REBOOT_REQUIRED.pkgs" 2>/dev/null | tr '\n' ' ' | sed 's/ $//' || true)"
  why="${why:-an updated package}"
  deadline=$(($(uptime_s) + REBOOT_WAIT))
  while :; do
    busy="$(reboot_busy)"
    if [ -z "$busy" ]; then
      # No installer run may start a switch between this check and the reboot.
      if hold_lock 0; then break; fi
      busy="another run of the installer is in charge"
    fi
    if [ "$said" != "$busy" ]; then
      say "the reboot for $why waits: $busy"
      journal notice "the reboot for $why waits: $busy"
      said="$busy"
    fi
    if [ "$(uptime_s)" -ge "$deadline" ]; then
      journal err "the reboot for $why still waits after ${REBOOT_WAIT}s: $busy"
      die "the station is still busy after ${REBOOT_WAIT}s ($busy): no reboot yet"
    fi
    sleep 2
  done
  say "the station is free: rebooting for $why"
  journal warning "rebooting for $why: the station is free"
  host systemctl reboot
}
