# shellcheck shell=bash
# Sourced by install.sh: the installer's record (install-status.json) read into the S_* variables
# and written back atomically, and the lock that lets one installer run at a time. What each field
# means, and which states and transitions the record goes through, is the table in install.sh.

# --- the installer's record: what is installed, what runs, and whether it is proven -----------

json_string() { # VALUE -> a JSON string (control characters become spaces)
  local s="$1"
  s="${s//\\/\\\\}"; s="${s//\"/\\\"}"
  printf '"%s"' "$(printf '%s' "$s" | tr '\000-\037' ' ')"
}

record_field() { # FIELD of the record file ('' if none)
  { sed -n "s/.*\"$1\":\"\(\([^\"\\\\]\|\\\\.\)*\)\".*/\1/p; s/.*\"$1\":\([0-9][0-9]*\).*/\1/p" "$STATE" 2>/dev/null || true; } |
    head -n 1 | sed 's/\\"/"/g; s/\\\\/\\/g'
}

current_version() { local c; c="$(readlink "$OPT/current" 2>/dev/null || true)"; echo "${c#releases/}"; }
previous_version() { local c; c="$(readlink "$OPT/previous" 2>/dev/null || true)"; echo "${c#releases/}"; }

# state_load: the record as it is on disk; a record written by an earlier installer (no "proof")
# is read as it was meant: the release it ran was proven (the earlier installer only left a release
# running after its health check), and after an automatic rollback `previous` named the failed one.
state_load() {
  local f
  for f in installed running proof proven pending switching knownBad knownBadReason attempts result reason; do
    printf -v "S_$f" '%s' "$(record_field "$f")"
  done
  S_attempts="${S_attempts:-0}"
  if [ -z "$S_proof" ]; then
    S_running="$(current_version)"
    if [ -n "$S_running" ]; then S_proof=proven; S_proven="$S_running"; fi
    if [ "$S_result" = rolled-back ] || [ "$S_result" = rollback-failed ]; then
      S_knownBad="$S_installed"; S_knownBadReason="$S_reason"
      if [ -n "$S_knownBad" ] && [ "$(previous_version)" = "$S_knownBad" ]; then rm -f "$OPT/previous"; fi
    fi
  fi
  # `current` is the truth for what runs; the record follows it.
  S_running="$(current_version)"
}

# state_save: the record, atomically on disk (temp file, fsync, rename, fsync of the folder); not
# rewritten when nothing in it changed (a second run with the same input writes nothing).
state_save() {
  local tmp="$STATE.new.$$" f v body="" first=1
  for f in installed running proof proven pending switching knownBad knownBadReason; do
    [ "$first" = 1 ] || body+=','
    first=0
    v="S_$f"
    body+="\"$f\":$(json_string "${!v}")"
  done
  body+=",\"attempts\":${S_attempts:-0},\"result\":$(json_string "$S_result"),\"reason\":$(json_string "$S_reason")"
  if [ -f "$STATE" ] && [ "$(sed 's/,"at":"[^"]*"}$//' "$STATE")" = "{$body" ]; then return 0; fi
  mkdir -p "$OPT"
  printf '{%s,"at":"%s"}\n' "$body" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$tmp"
  chmod 0644 "$tmp"
  sync_path "$tmp"
  mv -f "$tmp" "$STATE"
  sync_path "$OPT"
}

# --- one installer at a time (the postinst, the resume service, a technician, the repair) ------
# hold_lock WAIT_SECONDS: 0 when held; the repair before a start passes 0 (never waits: the
# installer running is in charge, and it may be what started the station).
hold_lock() {
  mkdir -p "$(dirname "$INSTALL_LOCK")"
  exec 9>"$INSTALL_LOCK"
  if [ "$1" = 0 ]; then flock -n 9; else flock -w "$1" 9; fi
}
release_lock() { flock -u 9 2>/dev/null || true; exec 9>&- || true; }
