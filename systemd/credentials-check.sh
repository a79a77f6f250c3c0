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
# Environment (tests): PICKUP_CREDENTIALS_DIR (default /etc/pickup-station/credentials),
# PICKUP_METRICS_DIR (default /run/pickup-station-metrics), SYSTEMD_CREDS (default systemd-creds).
set -uo pipefail

readonly DIR="${PICKUP_CREDENTIALS_DIR:-/etc/pickup-station/credentials}"
readonly METRICS_DIR="${PICKUP_METRICS_DIR:-/run/pickup-station-metrics}"
read -r -a CREDS <<<"${SYSTEMD_CREDS:-systemd-creds}"
# What the unit loads (LoadCredentialEncrypted=): the names and the files.
readonly NAMES=(station-password technician-tokens)

say() { printf 'pickup-station credentials: %s\n' "$*" >&2; }

failed=0
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
      why="cannot be decrypted on this board: ${err:-no reason given}. Sealed to another TPM or host key (the card moved to another board, the TPM replaced or removed, /var/lib/systemd/credential.secret lost) or the file is damaged: commission the station again"
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

if [ -d "$METRICS_DIR" ]; then
  # Temp file + rename: the collector reads *.prom only, never half a file.
  tmp="$METRICS_DIR/.pickup-station-credentials.prom.$$"
  if printf '%s' "$metrics" >"$tmp" && chmod 0644 "$tmp" && mv -f "$tmp" "$METRICS_DIR/pickup-station-credentials.prom"; then :; else
    rm -f "$tmp"
    say "warning: cannot write $METRICS_DIR/pickup-station-credentials.prom"
  fi
fi

if [ "$failed" = 1 ]; then
  say "the station does not start until its credentials can be decrypted; every lock stays OFF (safe-state runs after this check)"
  exit 1
fi
exit 0
