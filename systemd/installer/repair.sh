# shellcheck shell=bash
# Sourced by install.sh: finishing what an interruption left. dpkg's side (its configure cut off,
# its unpack cut off), --repair (pickup-station-repair.service, before every start: a proven release
# in place) and --resume (pickup-station-upgrade.service: dpkg's leftovers, then the pending switch
# once the station runs and is free).

# --- dpkg's side (the package) -----------------------------------------------------------------
package_status() { dpkg-query -W -f='${db:Status-Abbrev}' "$NAME" 2>/dev/null | tr -d ' ' || true; }
dpkg_clean() { [ -z "$(dpkg --audit 2>/dev/null)" ] && [ "$(package_status)" = ii ]; }
# An apt or dpkg run in progress (the postinst that started this service, an unattended upgrade):
# its own work, not an interruption. unattended-upgrades' shutdown helper (`unattended-upgrade-shutdown
# --wait-for-signal`, running all the time wherever the package is installed) has the same process
# name as the upgrade itself ("unattended-upgr", the kernel's 15 characters): the upgrade is told by
# its command line, or every deferred switch would wait out the bound below.
dpkg_busy() {
  pgrep -x 'dpkg|apt|apt-get' >/dev/null 2>&1 || pgrep -f '(^|/)unattended-upgrade( |$)' >/dev/null 2>&1
}
# Waits for it (bounded) before judging what dpkg left.
wait_for_dpkg() {
  local n=0
  while dpkg_busy; do
    [ "$n" -lt 1800 ] || return 1
    sleep 2
    n=$((n + 2))
  done
}

# run_logged WHAT SECONDS CMD...: CMD with a time limit, its outcome in the journal.
run_logged() {
  local what="$1" limit="$2" t0 rc=0
  shift 2
  t0=$(uptime_s)
  journal info "$what (at most ${limit}s)"
  say "$what (at most ${limit}s)"
  PICKUP_INSTALL_DEFER=1 timeout "$limit" "$@" || rc=$?
  if [ "$rc" = 0 ]; then
    journal info "$what: done in $(( $(uptime_s) - t0 ))s; $NAME is '$(package_status)' in dpkg"
  else
    journal err "$what: $([ "$rc" = 124 ] && echo "stopped at the limit of ${limit}s" || echo "failed (exit $rc)") after $(( $(uptime_s) - t0 ))s; $NAME is '$(package_status)' in dpkg"
  fi
  return "$rc"
}

# The package's configure, cut off (iF, iU): finished before the station starts. Only this package
# and only its configure (a few seconds on a board): its postinst installs and records, the switch
# comes after the start. A half-installed package (cut during the unpack) is reinstalled after.
configure_before_start() {
  [ "$PACKAGED" = 1 ] && [ "$LIVE" = 1 ] || return 0
  case "$(package_status)" in
    iF* | iU*) run_logged "dpkg was interrupted: dpkg --configure $NAME before the station starts" "$REPAIR_WAIT" dpkg --configure "$NAME" || true ;;
  esac
}

# After the start: whatever dpkg left unfinished (every package, as unattended-upgrades'
# AutoFixInterruptedDpkg does), and this package reinstalled when its unpack was cut off (from
# apt's cache: the archive apt downloaded for that run).
repair_package() {
  [ "$PACKAGED" = 1 ] && [ "$LIVE" = 1 ] || return 0
  wait_for_dpkg || { say "a package run is still going after 1800s: not touching dpkg"; return 0; }
  if [ -n "$(dpkg --audit 2>/dev/null)" ]; then run_logged "dpkg was interrupted: dpkg --configure -a" 1800 dpkg --configure -a || true; fi
  case "$(package_status)" in
    iH* | *R)
      local version deb
      version="$(dpkg-query -W -f='${Version}' "$NAME" 2>/dev/null || true)"
      deb="$({ find /var/cache/apt/archives -maxdepth 1 -name "${NAME}_${version//:/%3a}_*.deb" 2>/dev/null || true; } | head -n 1)"
      if [ -n "$deb" ]; then
        run_logged "$NAME $version was cut off while dpkg unpacked it: dpkg -i $deb (apt's cache)" 1800 dpkg -i "$deb" || true
      else
        # apt's package lists may be what the cut took: written by the update just before the
        # upgrade and not yet on the disk, they come back empty beside an intact InRelease, and apt
        # neither fetches them again (the InRelease did not change) nor knows the version to install.
        # An empty index is never a list worth keeping: gone, the update fetches it again.
        find /var/lib/apt/lists -maxdepth 1 -type f -size 0 ! -name lock -delete 2>/dev/null || true
        find /var/lib/apt/lists/partial -mindepth 1 -delete 2>/dev/null || true
        run_logged "$NAME $version was cut off while dpkg unpacked it: apt-get update (no archive in apt's cache)" "$REPAIR_WAIT" \
          apt-get -q update || true
        run_logged "$NAME $version was cut off while dpkg unpacked it: apt-get install --reinstall (no archive in apt's cache)" 1800 \
          env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --reinstall -o Dpkg::Options::=--force-confold "$NAME" || true
      fi
      ;;
  esac
}

do_resume() {
  TMP="$(mktemp -d)"
  local deadline=$(( $(uptime_s) + DEFER_WAIT )) said=""
  repair_package
  while :; do
    hold_lock 900 || die "another run of the installer holds $INSTALL_LOCK"
    state_load
    settle_current
    if [ -z "$S_pending" ] || [ "$S_pending" = "$S_running" ]; then
      if [ -n "$S_pending" ]; then S_pending=""; state_save; fi
      release_lock
      say "nothing pending: $S_running runs ($S_proof)"
      break
    fi
    if [ "$S_pending" = "$S_knownBad" ] && [ "$RETRY_FAILED" = 0 ]; then
      S_pending=""
      state_save
      release_lock
      say "release $S_knownBad is known bad ($S_knownBadReason): not tried again"
      break
    fi
    [ -d "$RELEASES/$S_pending" ] || die "the pending release $S_pending is gone"
    if ! can_run_now; then
      release_lock
      say "release $S_pending waits: $WHY_NOT (the switch comes with the next start of $NAME)"
      break
    fi
    # The proven release serves first (after a boot it is starting), then the switch waits for a free station.
    # --force passes over the update lock, never over a unit between two processes.
    local busy
    if [ "$FORCE" = 0 ]; then busy="$(station_busy)"; else busy="$(unit_in_transition)"; fi
    if [ -z "$busy" ]; then
      switch_and_prove "$S_pending" || true
      release_lock
      break
    fi
    release_lock
    if [ "$said" != "$busy" ]; then say "release $S_pending waits for the station: $busy"; said="$busy"; fi
    if [ "$(uptime_s)" -ge "$deadline" ]; then
      journal err "release $S_pending still waits after ${DEFER_WAIT}s: $busy; the switch is tried again at the next start or package run"
      die "the station is still in use after ${DEFER_WAIT}s ($busy); $S_pending stays pending"
    fi
    sleep 2
  done
  [ "$ROLLED_BACK" = 0 ] || exit 1
}

# --repair (pickup-station-repair.service, before every start of the station): a proven release in
# place whatever an interruption left; dpkg's configure of this package finished (bounded); the rest
# handed to pickup-station-upgrade.service. Never fails the start.
do_repair() {
  TMP="$(mktemp -d)"
  if ! hold_lock 0; then
    say "another run of the installer is in charge"
    return 0
  fi
  [ -f "$STATE" ] || [ -L "$OPT/current" ] || { release_lock; return 0; }
  state_load
  local resume=0 gone
  if [ -n "$S_switching" ] || [ "$S_proof" != proven ]; then
    if [ -n "$S_proven" ] && [ -d "$RELEASES/$S_proven" ] && [ "$S_running" != "$S_proven" ]; then
      gone="${S_switching#*>}"
      [ -n "$gone" ] || gone="$S_running"
      activate "$S_proven"
      reload_units
      if [ "$gone" != "$S_knownBad" ] && [ "$gone" != "$S_proven" ]; then S_pending="$gone"; fi
      S_running="$S_proven"; S_proof=proven; S_switching=""
      S_result=repaired; S_reason="$gone was not proven (cut off); the proven $S_proven was put back before the start"
      state_save
      journal warning "before the start: $gone was not proven (its switch or its proof was cut off); the proven release $S_proven is back in place${S_pending:+; $S_pending is tried again once the station runs}"
      say "before the start: $S_proven (proven) is back in place of $gone"
    elif [ -n "$S_switching" ]; then
      activate "$S_running"
      reload_units
      S_switching=""
      state_save
    fi
    resume=1
  fi
  prune
  release_lock
  configure_before_start
  state_load
  if [ -n "$S_pending" ] || [ "$S_proof" != proven ]; then resume=1; fi
  if [ "$PACKAGED" = 1 ] && [ "$LIVE" = 1 ] && ! dpkg_clean; then resume=1; fi
  [ "$resume" = 0 ] || start_upgrade_service
}
