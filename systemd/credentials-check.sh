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
# PICKUP_METRICS_DIR (default /run/pickup-station-metrics), SYSTEMD_CREDS (default systemd-creds),
# SYSTEMD_RUN (default systemd-run; a test's machine must not get the timer),
# PICKUP_TPM_LOCKOUT_RETRY_SEC (default 600; the unit may set it in a drop-in).
set -uo pipefail

readonly DIR="${PICKUP_CREDENTIALS_DIR:-/etc/pickup-station/credentials}"
readonly METRICS_DIR="${PICKUP_METRICS_DIR:-/run/pickup-station-metrics}"
read -r -a CREDS <<<"${SYSTEMD_CREDS:-systemd-creds}"
read -r -a RUN_LATER <<<"${SYSTEMD_RUN:-systemd-run}"
# What the unit loads (LoadCredentialEncrypted=): the names and the files.
readonly NAMES=(station-password technician-tokens)
RETRY_SEC="${PICKUP_TPM_LOCKOUT_RETRY_SEC:-600}"
readonly RETRY_UNIT=pickup-station-credentials-retry

say() { printf 'pickup-station credentials: %s\n' "$*" >&2; }

if ! [[ "$RETRY_SEC" =~ ^[1-9][0-9]{0,6}$ ]]; then
  say "warning: PICKUP_TPM_LOCKOUT_RETRY_SEC=\"$RETRY_SEC\" is not a number of seconds (1 to 9999999): 600 used"
  RETRY_SEC=600
fi

failed=0
lockout=0
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
"

if [ -d "$METRICS_DIR" ]; then
  # Temp file + rename: the collector reads *.prom only, never half a file.
  tmp="$METRICS_DIR/.pickup-station-credentials.prom.$$"
  if printf '%s' "$metrics" >"$tmp" && chmod 0644 "$tmp" && mv -f "$tmp" "$METRICS_DIR/pickup-station-credentials.prom"; then :; else
    rm -f "$tmp"
    say "warning: cannot write $METRICS_DIR/pickup-station-credentials.prom"
  fi
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
