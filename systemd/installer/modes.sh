# shellcheck shell=bash
# Sourced by install.sh: the modes a person or the package runs. Install (first install, the same
# version again, an upgrade switched, deferred or refused as known bad), --rollback by hand and
# --status. The repair and the resume after an interruption are repair.sh's, --uninstall is
# uninstall.sh's.

do_install() {
  TMP="$(mktemp -d)"
  get_release
  local runtime_packages=()
  mapfile -t runtime_packages < <(runtime_packages_of "$STAGE")
  # A package's Depends: brought them (and dpkg holds the lock apt-get would need).
  [ "$PACKAGED" = 1 ] || ensure_packages optional "${runtime_packages[@]}"
  ensure_accounts
  hold_lock 900 || die "another run of the installer holds $INSTALL_LOCK"
  state_load
  note_technician_socket
  install_release
  S_installed="$RELEASE"
  install_installer_units "$RELEASES/$RELEASE"
  ensure_config
  ensure_usbguard_files
  ensure_usb_boot_default
  if [ -n "$KEY_FILE" ] && [ "$PACKAGED" = 0 ] && ensure_file "$KEY_FILE" "$VENDOR_KEY" 0644 root root; then
    say "installed the vendor key $VENDOR_KEY: the next bundles are checked against it"
  fi
  settle_current

  if [ -z "$S_running" ]; then
    first_install
  elif [ "$S_running" = "$RELEASE" ]; then
    same_version
  elif [ "$RELEASE" = "$S_knownBad" ] && [ "$RETRY_FAILED" = 0 ]; then
    S_result=known-bad; S_reason="$S_knownBadReason"
    state_save
    say "release $RELEASE failed its proof before ($S_knownBadReason): not tried again; $S_running keeps running."
    say "  A newer release is tried as usual; this one again only when asked: PICKUP_STATION_RETRY_FAILED=1 apt-get install --reinstall $NAME (install.sh --retry-failed)"
    journal warning "release $RELEASE is known bad ($S_knownBadReason): not tried again; $S_running keeps running"
    [ -n "$PACKAGE_RELEASE" ] || ROLLED_BACK=1
  elif ! can_run_now && [ -z "$S_proven" ]; then
    # Nothing proven runs here yet (a station not configured): it becomes current, proven at its first start.
    activate "$RELEASE"
    reload_units
    S_running="$RELEASE"; S_proof=unproven; S_pending=""; S_result=ok; S_reason="not started: $WHY_NOT"
    state_save
    prune
    say "current release: $RELEASE; not started: $WHY_NOT"
  elif ! can_run_now; then
    defer "$RELEASE" "$WHY_NOT"
  elif ! wait_for_station "$LOCK_WAIT"; then
    defer "$RELEASE" "the station is in use ($BUSY)"
    start_upgrade_service
  else
    switch_and_prove "$RELEASE" || true
  fi
  reload_units
  apply_usb_policy
  apply_console_lockdown
  ensure_usbguard_state
  prune
  release_lock
  if [ "$ROLLED_BACK" = 1 ] && [ -z "$PACKAGE_RELEASE" ]; then exit 1; fi
}

first_install() {
  activate "$RELEASE"
  reload_units
  enable_unit
  S_running="$RELEASE"; S_proof=unproven; S_pending=""
  state_save
  if can_run_now; then
    if prove "$RELEASE" restart; then
      say "release $RELEASE is healthy ($HEALTH_NOTE)"
      accept "$RELEASE" ""
    else
      S_proof=failed; S_result=failed; S_reason="$WHY"
      state_save
      journal err "release $RELEASE is not healthy: $WHY (no previous release to go back to)"
      say "error: release $RELEASE is not healthy: $WHY: journalctl --namespace=+$NAME -u $NAME"
      ROLLED_BACK=1
    fi
  elif [ ! -f "$CREDS/station-password.cred" ]; then
    say "not started yet: install the station password (install.sh --password-file FILE: it is encrypted for this board),"
    say "fill in /etc/$NAME/config.json, then: systemctl start $NAME"
  elif [ "$START" = 0 ]; then
    say "not started (--no-start)"
  else
    say "not started: $WHY_NOT; $NAME starts at the next boot or start and is proven then"
  fi
}

# The version that runs, installed again: nothing changes and nothing restarts, unless the release
# was rebuilt with other content (a checkout) or a new password came.
same_version() {
  activate "$RELEASE"
  reload_units
  if [ "$S_proof" != proven ]; then
    say "release $RELEASE is installed; it is not proven yet: the installer's repair proves it next"
    return 0
  fi
  if [ "$RELEASE_REPLACED" = 0 ] && [ "$PASSWORD_CHANGED" = 0 ]; then
    [ "$S_pending" != "$RELEASE" ] || S_pending=""
    [ "$S_result" != pending ] || { S_result=ok; S_reason=""; }
    state_save
    prune
    say "nothing changed"
    return 0
  fi
  if ! can_run_now; then say "not restarted: $WHY_NOT"; S_proof=unproven; state_save; return 0; fi
  if ! wait_for_station "$LOCK_WAIT"; then defer "$RELEASE" "the station is in use ($BUSY)"; S_proof=unproven; state_save; start_upgrade_service; return 0; fi
  if prove "$RELEASE" restart; then say "release $RELEASE is healthy ($HEALTH_NOTE)"; accept "$RELEASE" ""; return 0; fi
  S_proof=failed; S_result=failed; S_reason="$WHY"
  state_save
  journal err "release $RELEASE is not healthy after its restart: $WHY"
  say "error: release $RELEASE is not healthy: $WHY: journalctl --namespace=+$NAME -u $NAME"
  ROLLED_BACK=1
}

do_rollback() {
  TMP="$(mktemp -d)"
  hold_lock 900 || die "another run of the installer holds $INSTALL_LOCK"
  state_load
  settle_current
  local prev from="$S_running"
  prev="$(previous_version)"
  [ -n "$prev" ] || die "no proven release before $from to roll back to (/opt/$NAME/previous)"
  [ -d "$RELEASES/$prev" ] || die "the previous release $prev is gone"
  wait_for_station "$LOCK_WAIT" || die "the station is still in use after ${LOCK_WAIT}s ($BUSY); nothing was changed. Try again later, or use --force"
  say "rolling back from $from to $prev"
  NODE_BIN=/usr/bin/node
  [ -x "$RELEASES/$prev/node/bin/node" ] && NODE_BIN="$RELEASES/$prev/node/bin/node"
  S_switching="$from>$prev"
  state_save
  if can_run_now && [ -n "$from" ]; then host systemctl stop "$NAME"; fi
  activate "$prev"
  reload_units
  S_running="$prev"; S_switching=""
  if ! can_run_now; then
    S_proof=proven; S_proven="$prev"; S_result=ok; S_reason="rolled back by hand; not started: $WHY_NOT"
    [ -z "$from" ] || ensure_link "releases/$from" "$OPT/previous" || true
    state_save
    say "rolled back to $prev (not started: $WHY_NOT)"
    return 0
  fi
  S_proof=unproven
  state_save
  if prove "$prev" restart; then
    say "release $prev is healthy ($HEALTH_NOTE)"
    accept "$prev" "$from"
    S_result=ok; S_reason="rolled back by hand from $from"
    state_save
    journal warning "rolled back by hand from $from to $prev"
    return 0
  fi
  local why="$WHY"
  journal err "the rollback from $from to $prev failed: $why; back to $from"
  say "error: $prev is not healthy either: $why. Back to $from"
  roll_back_to "$from" "$prev" "$why" "$(uptime_s)" || true
  exit 1
}

# --resume (pickup-station-upgrade.service): dpkg's unfinished work, then the pending switch once

do_status() {
  state_load
  [ -f "$STATE" ] && cat "$STATE"
  printf 'state: %s\n' "$(state_name)"
  printf 'current %s, previous %s; installed %s, %s%s%s\n' "${S_running:-none}" "$(previous_version || true)" "${S_installed:-none}" "${S_proof:-unproven}" \
    "${S_pending:+; pending $S_pending}" "${S_knownBad:+; known bad $S_knownBad ($S_knownBadReason)}"
  if [ -n "$S_pending" ]; then exit 2; fi
  if [ -n "$S_running" ] && [ "$S_running" = "$S_installed" ] && [ "$S_proof" = proven ]; then exit 0; fi
  exit 1
}

# The station's journal namespace (its log lines, patrons' masked identifiers among them): its
# journald stopped, then its files, persistent and volatile, erased. The system journal keeps only
