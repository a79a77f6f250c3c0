#!/usr/bin/env bash
# Can this board decrypt the station's credentials? ExecCondition= of pickup-station.service, run as
# root ("+": the host key and the TPM are root's) before every start, with no credential loaded.
#
# The credentials are systemd credentials encrypted with `systemd-creds encrypt --with-key=host+tpm2`
# (install.sh, docs/operating.md): sealed to the board's TPM2 and the host key when the board has a
# TPM, to the host key (/var/lib/systemd/credential.secret) otherwise. A file that cannot be
# decrypted — the card moved to another board, the TPM replaced or gone, the file damaged, the host
# key lost — would make systemd fail every ExecStartPre= with exit 243 (CREDENTIALS) and restart the
# unit until its start limit. This check says why instead, once per start:
#   - a line per credential on stderr (the unit's journal), never a byte of the secret (decrypt
#     writes to /dev/null; only its error text is kept);
#   - $METRICS_DIR/pickup-station-credentials.prom for node_exporter's textfile collector (alert
#     PickupStationCredentialUndecryptable) and for `stationctl status`, which reads it when the
#     station does not answer;
#   - exit 1: systemd skips the start without marking the unit failed, Restart= does not fire
#     ("condition"), and ExecStopPost= (safe-state) still drives every lock OFF.
# Exit 0 when every credential decrypts (the file then says 0 for each).
#
# How each credential is sealed, read from its file's header (systemd-creds writes the key's kind
# and the TPM policy's PCR mask in the clear before the encrypted part), goes to the same file:
# pickup_station_credentials_sealed{credential,key,pcrs} (key: host+tpm2, tpm2, host or none) and,
# for a TPM-sealed one, pickup_station_credentials_pcrs_measured (0 when every PCR its policy binds
# still holds its reset value: nothing on the board measured into it, so the policy holds nothing;
# docs/security.md, record 0146). A credential sealed to the host key alone gets a warning line:
# the key lies on the same card, so a copy of the card decrypts it (alert PickupStationCredentialsHostOnly).
#
# Runs as root, but the metrics file is written as the owner of its folder (/run/pickup-station-metrics
# belongs to the station's user): a link that user planted there leads only where that user may write
# anyway (docs/security.md, "Privileged steps"; record 0144). A folder others may write is refused.
#
# One failure is not the card's but the TPM's and passes by itself: dictionary-attack lockout
# (TPM_RC_LOCKOUT, 0x921). A TPM counts a use of its keys before a power cut as a failed try at the
# next start; enough power cuts and it refuses every sealed key until its recovery time has passed
# (docs/decisions/0130-a-tpm-in-lockout-is-retried.md). Then the check says so (never "commission
# again"), sets pickup_station_credentials_tpm_lockout 1, and schedules one start of the station
# $PICKUP_TPM_LOCKOUT_RETRY_SEC seconds later (default 600) as a transient timer, so that the station
# comes back by itself once the TPM takes its keys again. `systemctl stop` of the station does not
# cancel a scheduled retry; `systemctl stop pickup-station-credentials-retry.timer` does.
#
# Environment (tests): PICKUP_CREDENTIALS_DIR (default /etc/pickup-station/credentials),
# PICKUP_METRICS_DIR (default /run/pickup-station-metrics), PICKUP_TPM_SYSFS (default
# /sys/class/tpm/tpm0: the kernel's read-only copy of the PCRs), SYSTEMD_CREDS (default systemd-creds),
# SYSTEMD_RUN (default systemd-run; a test's machine must not get the timer),
# PICKUP_TPM_LOCKOUT_RETRY_SEC (default 600; the unit may set it in a drop-in).
set -uo pipefail

readonly DIR="${PICKUP_CREDENTIALS_DIR:-/etc/pickup-station/credentials}"
readonly METRICS_DIR="${PICKUP_METRICS_DIR:-/run/pickup-station-metrics}"
readonly TPM_SYSFS="${PICKUP_TPM_SYSFS:-/sys/class/tpm/tpm0}"
read -r -a CREDS <<<"${SYSTEMD_CREDS:-systemd-creds}"
read -r -a RUN_LATER <<<"${SYSTEMD_RUN:-systemd-run}"
# What the unit loads (LoadCredentialEncrypted=): the names and the files.
readonly NAMES=(station-password technician-tokens)
RETRY_SEC="${PICKUP_TPM_LOCKOUT_RETRY_SEC:-600}"
readonly RETRY_UNIT=pickup-station-credentials-retry

say() { printf 'pickup-station credentials: %s\n' "$*" >&2; }

# seal_of FILE: "KEY PCRS" of a systemd credential file, from its header (base64, as systemd-creds
# writes it, or raw): KEY host+tpm2 | tpm2 | host | none | unknown; PCRS the PCR indexes its TPM
# policy binds, joined by "+" ("-": none; "+signed": a policy signed by a key, not the PCRs' values).
# Header: a 16-byte key id, four le32 sizes (key, block, iv, tag), the iv, padded to 8 bytes; then,
# for a TPM key, the le64 PCR mask.
seal_of() {
  local hex id key signed="" ivsz off mask pcrs="" i
  hex="$(head -c 96 "$1" | base64 -d 2>/dev/null | od -An -v -tx1 | tr -d ' \n')"
  if [ "${#hex}" -lt 120 ]; then hex="$(head -c 72 "$1" | od -An -v -tx1 | tr -d ' \n')"; fi
  id="${hex:0:32}"
  case "$id" in
    5a1c6a86df9d4096b1d5a65e0862f19a | 55b9ed1d38594d43a8319d2ebb332ac6) key=host ;;
    0c7cc07b117645919c4b0bea08bc20fe) key=tpm2 ;;
    faf7eb9341e3412ca1a436f95a29362f) key=tpm2; signed=1 ;;
    93a894094874449090caf2fc93cab553 | ef4ac13679a9480ea7db68897f9f165d) key=host+tpm2 ;;
    af4950a849134eb1a73846304ff30c05 | adbc4ca3efb64201ba881b6f2e4095ea) key=host+tpm2; signed=1 ;;
    058469daf6f54324800549da0f8ea2fb) key=none ;;
    *) printf 'unknown -'; return 0 ;;
  esac
  if [ "$key" = tpm2 ] || [ "$key" = host+tpm2 ]; then
    ivsz=$((16#${hex:48:2}))
    off=$(( ((32 + ivsz + 7) / 8) * 8 ))
    # le64, of which the low 32 bits hold every PCR a board has (24).
    mask=$((16#${hex:$((off * 2 + 6)):2}${hex:$((off * 2 + 4)):2}${hex:$((off * 2 + 2)):2}${hex:$((off * 2)):2}))
    for i in $(seq 0 31); do
      if (( (mask >> i) & 1 )); then pcrs+="${pcrs:++}$i"; fi
    done
  fi
  [ -z "$signed" ] || pcrs+="${pcrs:++}signed"
  printf '%s %s' "$key" "${pcrs:--}"
}

# pcrs_measured PCRS: 0 when every one of these SHA-256 PCRs still holds its reset value (zeros)
# in the kernel's copy, 1 when one holds a measurement, "" when the kernel does not show them.
pcrs_measured() {
  local pcr value any=0
  for pcr in ${1//+/ }; do
    [ "$pcr" != signed ] || continue
    value="$(cat "$TPM_SYSFS/pcr-sha256/$pcr" 2>/dev/null)" || { printf ''; return 0; }
    if [ -z "$value" ]; then printf ''; return 0; fi
    case "$value" in *[!0]*) any=1 ;; esac
  done
  printf '%s' "$any"
}

# write_metrics TEXT: the metrics file, atomically, as the owner of its folder (root only for a
# folder only root may write). A folder group or others may write is not written to.
write_metrics() {
  local text="$1" owner group mode
  read -r owner group mode < <(stat -L -c '%u %g %a' "$METRICS_DIR" 2>/dev/null) || return 1
  if (( 8#$mode & 8#022 )); then
    say "warning: $METRICS_DIR may be written by others than its owner (mode $mode): not writing the metrics file there"
    return 1
  fi
  # shellcheck disable=SC2016 # expanded by the inner shell
  printf '%s' "$text" | setpriv --reuid="$owner" --regid="$group" --clear-groups --no-new-privs -- \
    sh -c 'umask 022; t="$(mktemp "$0/.pickup-station-credentials.XXXXXXXX")" || exit 1
      if cat >"$t" && chmod 0644 "$t" && mv -f "$t" "$0/pickup-station-credentials.prom"; then exit 0; fi
      rm -f "$t"; exit 1' "$METRICS_DIR"
}

if ! [[ "$RETRY_SEC" =~ ^[1-9][0-9]{0,6}$ ]]; then
  say "warning: PICKUP_TPM_LOCKOUT_RETRY_SEC=\"$RETRY_SEC\" is not a number of seconds (1 to 9999999): 600 used"
  RETRY_SEC=600
fi

failed=0
lockout=0
sealed=""
measured=""
metrics="# HELP pickup_station_credential_undecryptable 1 when a credential of the station cannot be decrypted on this board (another TPM or host key than it was sealed to, a damaged or missing file): the station does not start.
# TYPE pickup_station_credential_undecryptable gauge
"
for name in "${NAMES[@]}"; do
  file="$DIR/$name.cred"
  why=""
  if [ ! -e "$file" ]; then
    if [ -e "$DIR/$name" ]; then
      why="only a plain-text copy ($DIR/$name) is there: encrypt it with install.sh (it encrypts and removes plain-text credentials)"
    else
      why="missing ($file): commission the station (docs/operating.md, Install)"
    fi
  else
    read -r key pcrs <<<"$(seal_of "$file")"
    [ "$pcrs" != - ] || pcrs=""
    sealed+="pickup_station_credentials_sealed{credential=\"$name\",key=\"$key\",pcrs=\"$pcrs\"} 1
"
    case "$key" in
      host) say "warning: $name is sealed to the host key alone (no TPM when it was sealed): the key lies on the same card, so a copy of the card decrypts it (docs/security.md)" ;;
      none | unknown) say "warning: $name is not sealed to this board's keys (key: $key): anyone with the card reads it; encrypt it again with install.sh" ;;
    esac
    if [ -n "$pcrs" ]; then
      m="$(pcrs_measured "$pcrs")"
      [ -z "$m" ] || measured+="pickup_station_credentials_pcrs_measured{credential=\"$name\",pcrs=\"$pcrs\"} $m
"
    fi
    # The plain text goes to /dev/null; only systemd-creds's error text is kept.
    if ! err="$("${CREDS[@]}" decrypt --name="$name" "$file" - 2>&1 >/dev/null)"; then
      err="$(printf '%s' "$err" | tr '\n' ' ' | sed 's/  */ /g; s/ $//')"
      if printf '%s' "$err" | grep -qiE '0x0*921|lockout'; then
        lockout=1
        why="cannot be decrypted now: the TPM is in dictionary-attack lockout (${err:-no reason given}). It counts power cuts as failed tries and takes its keys again by itself after its recovery time; the station is started again every $RETRY_SEC s until then. Nothing to commission"
      else
        why="cannot be decrypted on this board: ${err:-no reason given}. Sealed to another TPM or host key (the card moved to another board, the TPM replaced or removed, /var/lib/systemd/credential.secret lost) or the file is damaged: commission the station again"
      fi
    fi
  fi
  if [ -n "$why" ]; then
    failed=1
    say "$name $why"
    metrics+="pickup_station_credential_undecryptable{credential=\"$name\"} 1
"
  else
    metrics+="pickup_station_credential_undecryptable{credential=\"$name\"} 0
"
  fi
done
metrics+="# HELP pickup_station_credentials_tpm_lockout 1 when the board's TPM refuses the station's sealed credentials because it is in dictionary-attack lockout (after power cuts): the station does not start until the TPM recovers by itself, and is retried.
# TYPE pickup_station_credentials_tpm_lockout gauge
pickup_station_credentials_tpm_lockout $lockout
# HELP pickup_station_credentials_sealed 1 for how each credential file is sealed: key host+tpm2 (the board's TPM and the host key on the card), tpm2 (the TPM alone), host (the host key alone: on the same card, so a copy of the card decrypts it), none (not sealed); pcrs: the PCRs its TPM policy binds (empty: none).
# TYPE pickup_station_credentials_sealed gauge
$sealed# HELP pickup_station_credentials_pcrs_measured 1 when a PCR a credential's TPM policy binds holds a measurement at this boot; 0 when every one still holds its reset value (nothing on the board measures into it: the policy holds nothing).
# TYPE pickup_station_credentials_pcrs_measured gauge
$measured"

if [ -d "$METRICS_DIR" ]; then
  # Temp file + rename (the collector reads *.prom only, never half a file), as the folder's owner.
  write_metrics "$metrics" || say "warning: cannot write $METRICS_DIR/pickup-station-credentials.prom"
fi

# One start of the station later, while the TPM is locked out; a transient unit, so nothing is left
# behind once it has fired. "Already loaded" means a retry is already scheduled.
if [ "$lockout" = 1 ]; then
  if out="$("${RUN_LATER[@]}" --no-block --quiet --collect --unit="$RETRY_UNIT" --on-active="$RETRY_SEC" \
    --timer-property=AccuracySec=1s systemctl start --no-block pickup-station.service 2>&1)"; then
    say "the station is started again in $RETRY_SEC s ($RETRY_UNIT.timer)"
  elif printf '%s' "$out" | grep -qi 'already'; then
    say "a start of the station is already scheduled ($RETRY_UNIT.timer)"
  else
    say "warning: cannot schedule a start of the station ($(printf '%s' "$out" | tr '\n' ' ')): start it by hand once the TPM has recovered"
  fi
fi

if [ "$failed" = 1 ]; then
  say "the station does not start until its credentials can be decrypted; every lock stays OFF (safe-state runs after this check)"
  exit 1
fi
exit 0
