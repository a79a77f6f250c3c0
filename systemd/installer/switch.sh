# shellcheck shell=bash
# Sourced by install.sh: the switch. Whether the station may be (re)started now, the daemon's update
# lock (a busy station defers), switch_and_prove (stop, switch, prove; known bad and rolled back
# when it does not prove itself), roll_back_to, settle_current (what a cut-off run left, finished)
# and defer. Each step is saved in the record before the next one: the "step" rows of the state
# table, installer/states.tsv.

# can_run_now: whether this run may (re)start the station to prove a release; WHY_NOT says why not.
# The administrator's choices stand: a masked unit is never started, a disabled one only restarted
# when it runs anyway (deb-systemd-invoke's rule); the switch then waits for its next start.
can_run_now() {
  WHY_NOT=""
  if [ -n "$DEFER" ]; then WHY_NOT="the package is being configured by the installer's own repair"; return 1; fi
  if [ "$START" = 0 ]; then WHY_NOT="--no-start"; return 1; fi
  if [ ! -f "$CREDS/station-password.cred" ]; then WHY_NOT="no station password yet"; return 1; fi
  if ! systemd_running; then WHY_NOT="systemd is not running here (a chroot or an image)"; return 1; fi
  case "$(unit_enablement)" in
    masked | masked-runtime) WHY_NOT="the unit is masked"; return 1 ;;
    enabled | enabled-runtime | static | indirect | alias | generated | linked | linked-runtime | transient) return 0 ;;
    *)
      if unit_active; then return 0; fi
      WHY_NOT="the unit is disabled and not running"
      return 1
      ;;
  esac
}

# --- the update lock (UPDATE_LOCK: install.sh says what the daemon writes there) ----------------
# The daemon removes the file at any moment (the station is free again): a read that finds it gone
# reads "" (under pipefail a failed sed would end the script).
lock_field() { # FIELD: a string or number field of the lock file ("" if none)
  station_read "$UPDATE_LOCK" | { sed -n "s/.*\"$1\":\(\"\([^\"]*\)\"\|\([0-9][0-9]*\)\).*/\2\3/p" || true; } | head -n 1
}

lock_held() {
  [ -f "$UPDATE_LOCK" ] || return 1
  local pid
  pid="$(lock_field pid)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# unit_in_transition: "it is restarting: " and the unit's ActiveState/SubState while it is between two
# processes, "" otherwise:
# activating (starting, or waiting to be started again after its process ended), deactivating
# (stopping), or stopped with a job queued for it (systemd's restart job waits for the units the
# start needs — the repair before it — with the unit inactive). A process killed in the middle of a
# box action takes its update lock with it; the next one restores that action from its journal and
# holds the lock again only once it runs. One `systemctl show` for both states: every question is a
# call into PID 1, which on a slow board also has the station's watchdog pings to answer.
unit_in_transition() {
  [ "$LIVE" = 1 ] || return 0
  local state="" sub="" job line
  while IFS= read -r line; do
    case "$line" in
      ActiveState=*) state="${line#ActiveState=}" ;;
      SubState=*) sub="${line#SubState=}" ;;
    esac
  done < <(systemctl show -p ActiveState -p SubState "$NAME" 2>/dev/null || true)
  case "$state" in
    activating | deactivating) echo "it is restarting: $state/$sub" ;;
    *)
      job="$(systemctl list-jobs --no-legend --plain "$NAME.service" 2>/dev/null | awk '{ print $3 " job " $4; exit }' || true)"
      [ -z "$job" ] || echo "it is restarting: $state/$sub, a $job"
      ;;
  esac
}

# station_busy: why the station may not be stopped now ("" when it may): someone using it (the
# daemon's update lock), or the unit between two processes. The lock is asked before and after the
# unit, so that a process ending or starting between the two questions is still seen; while the lock
# is held (a box open, the usual wait) systemd is not asked at all.
station_busy() {
  local reason
  if ! lock_held; then
    reason="$(unit_in_transition)"
    if [ -n "$reason" ]; then
      echo "$reason"
      return 0
    fi
    lock_held || return 0
  fi
  reason="$(lock_field reason)"
  echo "${reason:-the update lock is held}"
}

# wait_for_station SECONDS: 0 once the station is free (at once with --force), 1 if still in use;
# BUSY says why.
wait_for_station() {
  BUSY="$(station_busy)"
  [ -n "$BUSY" ] || return 0
  if [ "$FORCE" = 1 ]; then
    say "the station is in use ($BUSY); --force: not waiting"
    return 0
  fi
  [ "$1" -gt 0 ] || return 1
  say "waiting for the station to be free: $BUSY (at most ${1}s)"
  local waited=0
  while BUSY="$(station_busy)" && [ -n "$BUSY" ]; do
    [ "$waited" -lt "$1" ] || return 1
    sleep 1
    waited=$((waited + 1))
  done
  say "the station is free (waited ${waited}s)"
}

# accept TO FROM: TO has proven itself; FROM (proven, or '') becomes `previous`.
accept() {
  local to="$1" from="$2"
  if [ -n "$from" ] && [ "$from" != "$to" ] && [ -d "$RELEASES/$from" ] && ensure_link "releases/$from" "$OPT/previous"; then :; fi
  S_running="$to"; S_proof=proven; S_proven="$to"; S_switching=""; S_attempts=0
  [ "$S_pending" != "$to" ] || S_pending=""
  [ "$S_knownBad" != "$to" ] || { S_knownBad=""; S_knownBadReason=""; }
  S_result=ok; S_reason=""
  state_save
  prune
}

mark_known_bad() { # VERSION WHY
  S_knownBad="$1"; S_knownBadReason="$2"
  [ "$S_pending" != "$1" ] || S_pending=""
  S_attempts=0
}

# switch_and_prove TO: stop what runs, switch to TO (current and its units), prove it; when it does
# not prove itself, it is known bad and the proven release comes back. Every step is recorded
# before the next one, so that an interruption anywhere can be repaired (--repair, --resume).
switch_and_prove() {
  local to="$1" from="$S_running" t0 why
  if [ "$S_pending" = "$to" ]; then S_attempts=$((S_attempts + 1)); else S_attempts=1; fi
  S_pending="$to"
  if [ "$S_attempts" -gt "$MAX_ATTEMPTS" ]; then
    why="its switch was cut off $((S_attempts - 1)) times before it could prove itself"
    mark_known_bad "$to" "$why"
    S_result=known-bad; S_reason="$why"
    state_save
    journal err "release $to is not tried again: $why; $from keeps running"
    say "error: release $to is not tried again: $why ($from keeps running; --retry-failed tries it)"
    ROLLED_BACK=1
    return 1
  fi
  S_switching="$from>$to"
  state_save
  t0=$(uptime_s)
  if [ -n "$from" ] && [ "$from" != "$to" ] && systemd_running; then host systemctl stop "$NAME"; fi
  activate "$to"
  reload_units
  S_running="$to"; S_proof=unproven; S_switching=""
  state_save
  if prove "$to" restart; then
    say "release $to is healthy after $(( $(uptime_s) - t0 ))s ($HEALTH_NOTE)"
    accept "$to" "$from"
    [ -z "$from" ] || [ "$from" = "$to" ] || journal info "upgraded from $from to $to: healthy ($HEALTH_NOTE)"
    return 0
  fi
  why="$WHY"
  mark_known_bad "$to" "$why"
  S_proof=failed; S_result=failed; S_reason="$why"
  state_save
  if [ -z "$from" ] || [ "$from" = "$to" ] || [ ! -d "$RELEASES/$from" ]; then
    journal err "release $to is not healthy: $why (no previous release to go back to)"
    say "error: release $to is not healthy: $why. There is no proven release to go back to: journalctl --namespace=+$NAME -u $NAME"
    ROLLED_BACK=1
    return 1
  fi
  journal err "upgrade from $from to $to failed: $why; rolling back to $from"
  say "error: $to is not healthy: $why. Rolling back to $from"
  roll_back_to "$from" "$to" "$why" "$t0"
}

# roll_back_to FROM TO WHY T0: FROM (proven) back in place after TO failed.
roll_back_to() {
  local from="$1" to="$2" why="$3" t0="$4"
  # current goes back first: the failed release's stop then runs the proven release's safe-state
  # (ExecStopPost resolves current when it runs), and so does the next start's ExecStartPre.
  S_switching="$to>$from"
  state_save
  activate "$from"
  reload_units
  if systemd_running; then host systemctl stop "$NAME" || true; fi
  S_running="$from"; S_proof=proven; S_switching=""
  state_save
  if prove "$from" restart; then
    S_result=rolled-back; S_reason="$why"
    state_save
    journal err "upgrade from $from to $to failed: $why; rolled back, $from is running again ($HEALTH_NOTE)"
    say "upgrade to $to failed ($why); rolled back: $from is running again after $(( $(uptime_s) - t0 ))s"
    ROLLED_BACK=1
    return 1
  fi
  S_result=rollback-failed; S_reason="$why; $from: $WHY"
  state_save
  journal crit "upgrade from $from to $to failed: $why; the rollback to $from failed too: $WHY"
  die "upgrade to $to failed ($why) and $from did not come back either ($WHY): journalctl --namespace=+$NAME -u $NAME"
}

# settle_current: an earlier run was cut off (apt killed, the lock wait, a power cut not yet
# repaired): the switch half done, or the release that runs not proven. It is proven where it runs
# (a configure retry proves it, it never says "nothing changed" about an unproven release), or the
# proven release comes back.
settle_current() {
  # Inside the installer's own dpkg run: the caller settles it right after.
  [ -z "$DEFER" ] || return 0
  [ -n "$S_running" ] || return 0
  if [ -z "$S_switching" ] && [ "$S_proof" = proven ]; then return 0; fi
  local to="$S_running" from="$S_proven"
  [ "$from" != "$to" ] && [ -d "$RELEASES/$from" ] || from=""
  S_switching=""
  activate "$to"
  reload_units
  if [ "$S_proof" = failed ] && [ -n "$from" ]; then
    say "release $to failed its proof earlier; back to the proven release $from"
    roll_back_to "$from" "$to" "$S_knownBadReason" "$(uptime_s)" || true
    return 0
  fi
  if ! can_run_now; then
    if [ -n "$from" ]; then
      # It cannot be proven now: the proven release goes back in place, TO waits for the next start.
      S_pending="$to"
      activate "$from"
      reload_units
      S_running="$from"; S_proof=proven
    fi
    state_save
    return 0
  fi
  say "release $to is not proven yet (its first start since the install, or an earlier run was cut off): proving it now"
  S_proof=unproven
  state_save
  if prove "$to" running; then
    say "release $to is healthy ($HEALTH_NOTE)"
    accept "$to" "$from"
    return 0
  fi
  local why="$WHY"
  mark_known_bad "$to" "$why"
  S_proof=failed; S_result=failed; S_reason="$why"
  state_save
  [ -n "$from" ] || { journal err "release $to is not healthy: $why (no proven release to go back to)"; ROLLED_BACK=1; return 0; }
  journal err "upgrade from $from to $to failed: $why; rolling back to $from"
  roll_back_to "$from" "$to" "$why" "$(uptime_s)" || true
}

# defer VERSION WHY: installed; the switch waits (pickup-station-upgrade.service, or the next start).
defer() {
  S_pending="$1"; S_result=pending; S_reason="$2"
  state_save
  say "release $1 is installed; the switch waits: $2. pickup-station-upgrade.service switches when the station is free (journalctl -u $NAME-upgrade)"
  journal info "release $1 installed, its switch deferred: $2"
}
