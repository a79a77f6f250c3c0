# shellcheck shell=bash
# Sourced by install.sh: the installer's record (install-status.json, and install-status.tsv beside
# it) read into the S_* variables and written back atomically; the state table (installer/states.tsv)
# that names the state a record is in and each step between two; the lock that lets one installer
# run at a time. What each field means is in install.sh's header.

# --- the installer's record: what is installed, what runs, and whether it is proven -----------

json_string() { # VALUE -> a JSON string (control characters become spaces)
  local s="$1"
  s="${s//\\/\\\\}"; s="${s//\"/\\\"}"
  printf '"%s"' "$(printf '%s' "$s" | tr '\000-\037' ' ')"
}

readonly RECORD_FIELDS=(installed running proof proven pending switching knownBad knownBadReason attempts result reason)

# The record is written twice from the same values: install-status.json for the daemon (and people),
# install-status.tsv for this installer — "field<TAB>value" lines (a value never holds a tab or a
# newline: control characters become spaces) read by `read`, no JSON parser and no node start on
# each load. The .tsv's first line, "json<TAB>SHA256", binds it to the .json it was written with: a
# .json written by anything else (an earlier installer, one of a downgraded package, a person) has
# another hash, and is then read with node (the release's own, or the board's).
record_tsv() { # SHA256 of the .json: the record in memory in that form
  local f v
  printf 'json\t%s\n' "$1"
  for f in "${RECORD_FIELDS[@]}"; do
    v="S_$f"
    printf '%s\t%s\n' "$f" "$(printf '%s' "${!v}" | tr '\000-\037' ' ')"
  done
}
record_sum() { sha256sum <"$1" | cut -d' ' -f1; }
# record_bound: the .tsv was written with the .json on disk.
record_bound() {
  [ -f "$STATE_TSV" ] && [ -f "$STATE" ] && [ "$(head -n 1 "$STATE_TSV")" = "json$(printf '\t')$(record_sum "$STATE")" ]
}

# read_record: the S_* fields of the record on disk ('' for a field it lacks, all '' without one).
read_record() {
  local f k v node fields
  for f in "${RECORD_FIELDS[@]}"; do printf -v "S_$f" '%s' ''; done
  [ -f "$STATE" ] || return 0
  if record_bound; then
    fields="$(tail -n +2 "$STATE_TSV")"
  else
    node="$NODE_BIN"
    [ -x "$OPT/current/node/bin/node" ] && node="$OPT/current/node/bin/node"
    fields="$("$node" -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      for (const k of process.argv.slice(2)) {
        const v = r[k];
        if (typeof v === "string" || typeof v === "number") process.stdout.write(k + "\t" + String(v).replace(/[\u0000-\u001f]/g, " ") + "\n");
      }' "$STATE" "${RECORD_FIELDS[@]}" 2>&1)" ||
      die "cannot read the installer's record $STATE with $node: ${fields##*$'\n'}"
  fi
  while IFS=$'\t' read -r k v; do
    case " ${RECORD_FIELDS[*]} " in *" $k "*) printf -v "S_$k" '%s' "$v" ;; esac
  done <<<"$fields"
}

# --- the state table (installer/states.tsv: data, read here) -----------------------------------
# Its "state" rows name the state a record is in (the first whose cells hold), its "step" rows every
# change from one state to another a save may make (the "run" and "cut" rows are its test's). Each
# step goes to the journal; a step the table lacks is an error line there.
STATE_ROWS=()
STEP_ROWS=()
load_state_table() {
  local kind rest
  while IFS=$'\t' read -r kind rest; do
    case "$kind" in
      state) STATE_ROWS+=("$rest") ;;
      step) STEP_ROWS+=("$rest") ;;
    esac
  done <"$INSTALLER_HOME/installer/states.tsv"
  if [ "${#STATE_ROWS[@]}" = 0 ] || [ "${#STEP_ROWS[@]}" = 0 ]; then die "$INSTALLER_HOME/installer/states.tsv has no state table"; fi
}

# cell_holds VALUE CELL: a cell of a "state" row (states.tsv says what each means).
cell_holds() {
  case "$2" in
    -) return 0 ;;
    none) [ -z "$1" ] ;;
    some) [ -n "$1" ] ;;
    back) [ -n "$1" ] && [ "${1#*>}" = "$S_proven" ] ;;
    forward) [ -n "$1" ] && [ "${1#*>}" != "$S_proven" ] ;;
    *) [ "$1" = "$2" ] ;;
  esac
}

# state_name: the state the record in memory is in.
state_name() {
  local row name proof switching pending proven result
  if [ -z "$S_running" ] && [ ! -f "$STATE" ]; then printf 'fresh'; return 0; fi
  for row in "${STATE_ROWS[@]}"; do
    IFS=$'\t' read -r name proof switching pending proven result _ <<<"$row"
    cell_holds "$S_proof" "$proof" && cell_holds "$S_switching" "$switching" && cell_holds "$S_pending" "$pending" &&
      cell_holds "$S_proven" "$proven" && cell_holds "$S_result" "$result" && { printf '%s' "$name"; return 0; }
  done
  printf 'unknown'
}

# step_to STATE: the record, just saved, is in STATE; a step from the state before it goes to the
# journal. In a --root tree, PICKUP_INSTALL_CUT=STATE kills the run right after a step into STATE
# is on disk (a power cut there: no trap, no cleanup).
S_STATE=""
step_to() {
  local to="$1" row from next
  [ "$to" != "$S_STATE" ] || return 0
  for row in "${STEP_ROWS[@]}"; do
    IFS=$'\t' read -r from next _ <<<"$row"
    if [ "$from" = "$S_STATE" ] && [ "$next" = "$to" ]; then break; fi
    from=""
  done
  if [ -n "$from" ]; then
    journal info "installer state: $S_STATE -> $to"
  else
    journal err "installer state: $S_STATE -> $to, a step the state table (installer/states.tsv) does not have"
    say "warning: $S_STATE -> $to is not a step of the installer's state table"
  fi
  S_STATE="$to"
  if [ "$LIVE" = 0 ] && [ "${PICKUP_INSTALL_CUT:-}" = "$to" ]; then
    say "cut off after saving '$to' (PICKUP_INSTALL_CUT)"
    kill -9 $$
  fi
}

current_version() { local c; c="$(readlink "$OPT/current" 2>/dev/null || true)"; echo "${c#releases/}"; }
previous_version() { local c; c="$(readlink "$OPT/previous" 2>/dev/null || true)"; echo "${c#releases/}"; }

# state_load: the record as it is on disk; a record written by an earlier installer (no "proof")
# is read as it was meant: the release it ran was proven (the earlier installer only left a release
# running after its health check), and after an automatic rollback `previous` named the failed one.
state_load() {
  read_record
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
  S_STATE="$(state_name)"
}

# state_save: the record, atomically on disk (temp files, fsync, rename, fsync of the folder): the
# .json, then the .tsv bound to it (cut between the two, the .json is read); neither rewritten when
# nothing in it changed (a second run with the same input writes nothing). Then its step (step_to).
state_save() {
  local tmp="$STATE.new.$$" tsv="$STATE_TSV.new.$$" f v body="" first=1
  for f in installed running proof proven pending switching knownBad knownBadReason; do
    [ "$first" = 1 ] || body+=','
    first=0
    v="S_$f"
    body+="\"$f\":$(json_string "${!v}")"
  done
  body+=",\"attempts\":${S_attempts:-0},\"result\":$(json_string "$S_result"),\"reason\":$(json_string "$S_reason")"
  if ! { [ -f "$STATE" ] && [ "$(sed 's/,"at":"[^"]*"}$//' "$STATE")" = "{$body" ] && record_bound; }; then
    mkdir -p "$OPT"
    printf '{%s,"at":"%s"}\n' "$body" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$tmp"
    record_tsv "$(record_sum "$tmp")" >"$tsv"
    chmod 0644 "$tmp" "$tsv"
    sync_path "$tmp"
    sync_path "$tsv"
    mv -f "$tmp" "$STATE"
    sync_path "$OPT"
    mv -f "$tsv" "$STATE_TSV"
    sync_path "$OPT"
  fi
  step_to "$(state_name)"
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
