# shellcheck shell=bash
# Sourced by install.sh: /etc/pickup-station/config.json (from the release's template, once, never
# overwritten) and the credentials the unit loads, encrypted for this board with systemd-creds
# (its TPM2 and host key, or the host key alone); a plain-text credential is encrypted, then removed.

# --- config and credentials -------------------------------------------------------------------
# systemd-creds of the machine the credentials are for. With --root the target's keys are not this
# machine's: a credential is then written only when SYSTEMD_CREDS names a command that seals for the
# target (the tests' board), never with this machine's host key.
read -r -a SYSTEMD_CREDS_CMD <<<"${SYSTEMD_CREDS:-systemd-creds}"
# The key: the TPM2 and the host key when the kernel has a TPM 2.0 (a resource manager node),
# the host key otherwise. Not systemd-creds's own `auto`: systemd 252 (bookworm) takes the TPM into
# `auto` only when UEFI firmware reports one, and a Raspberry Pi with a TPM HAT (no UEFI, the TPM
# from the device tree) would get the host key alone — seen on the virtual board, where
# `--with-key=auto` wrote a host-key credential beside a working TPM.
credential_key() {
  if [ -n "${PICKUP_CREDENTIAL_KEY:-}" ]; then printf '%s' "$PICKUP_CREDENTIAL_KEY"
  elif [ -c "${PICKUP_TPM_DEVICE:-/dev/tpmrm0}" ]; then printf 'host+tpm2'
  else printf 'host'; fi
}
CREDENTIAL_KEY="$(credential_key)"
readonly CREDENTIAL_KEY
# A TPM key's policy binds PCR 7 (the Secure Boot state, where a firmware measures it): what
# systemd-creds 252 chose by default, fixed here so that another systemd's default does not change
# it. A Raspberry Pi measures nothing into it, so there the binding holds nothing, and the credential
# check says so (docs/security.md; record 0146: why not other PCRs or a signed policy yet).
TPM2_PCRS=()
case "$CREDENTIAL_KEY" in *tpm2*) TPM2_PCRS=(--tpm2-pcrs=7) ;; esac
readonly TPM2_PCRS
readonly SEALED_CREDENTIALS=(station-password technician-tokens)
can_seal() { [ "$LIVE" = 1 ] || [ -n "${SYSTEMD_CREDS:-}" ]; }

# seal_credential NAME PLAIN_FILE: PLAIN_FILE encrypted as $CREDS/NAME.cred; returns 1 (nothing
# written) when the one there already decrypts to the same bytes (the plain text only ever goes
# through a pipe, never to a file).
seal_credential() {
  local name="$1" src="$2" dest="$CREDS/$1.cred"
  if [ -f "$dest" ] && "${SYSTEMD_CREDS_CMD[@]}" decrypt --name="$name" "$dest" - 2>/dev/null | cmp -s - "$src"; then
    return 1
  fi
  "${SYSTEMD_CREDS_CMD[@]}" encrypt --with-key="$CREDENTIAL_KEY" "${TPM2_PCRS[@]}" --name="$name" "$src" "$TMP/$name.cred" >/dev/null ||
    die "cannot encrypt the credential $name (systemd-creds encrypt --with-key=$CREDENTIAL_KEY ${TPM2_PCRS[*]})"
  ensure_file "$TMP/$name.cred" "$dest" 0600 root root
  rm -f "$TMP/$name.cred"
  return 0
}

# A plain-text file gone: overwritten first where the filesystem lets it (flash cards may keep old
# blocks: docs/operating.md says so), then removed.
remove_plain() {
  if command -v shred >/dev/null 2>&1; then shred -u -z "$1" 2>/dev/null || rm -f "$1"; else rm -f "$1"; fi
}

ensure_config() {
  ensure_dir "$ETC" 0750 root "$NAME"
  if [ ! -e "$ETC/config.json" ]; then
    if [ -f "$RELEASES/$RELEASE/systemd/config.template.json" ]; then
      ensure_file "$RELEASES/$RELEASE/systemd/config.template.json" "$ETC/config.json" 0640 root "$NAME" --keep
      say "wrote a config template to /etc/$NAME/config.json: fill in the station, server and board"
    else
      say "warning: no config template in this release; write /etc/$NAME/config.json (0640 root:$NAME)"
    fi
  fi
  ensure_dir "$CREDS" 0700 root root
  local name
  if [ -n "$PASSWORD_FILE" ]; then
    [ -f "$PASSWORD_FILE" ] || die "no password file $PASSWORD_FILE"
    can_seal || die "--password-file with --root: a credential is encrypted for the board's own TPM and host key; run install.sh --password-file on the board"
    if seal_credential station-password "$PASSWORD_FILE"; then PASSWORD_CHANGED=1; say "installed the station password, encrypted ($CREDS/station-password.cred)"; fi
  fi
  # Plain-text credentials (an earlier release, or put there by hand): encrypted, then removed.
  for name in "${SEALED_CREDENTIALS[@]}"; do
    [ -f "$CREDS/$name" ] || continue
    if ! can_seal; then
      say "warning: $CREDS/$name is plain text: run install.sh on the board to encrypt it"
      continue
    fi
    if seal_credential "$name" "$CREDS/$name"; then PASSWORD_CHANGED=1; fi
    remove_plain "$CREDS/$name"
    say "encrypted the credential $name ($CREDS/$name.cred) and removed its plain-text file"
  done
  # A credential the unit loads must be there: an empty token list means "no technician may log in"
  # until one is added (stationctl token new; docs/technician.md). Not in an image being built (no
  # systemd running): sealing there would make a host key every card flashed from it shares; the
  # board's first install.sh run (commissioning) writes it.
  if [ ! -e "$CREDS/technician-tokens.cred" ] && can_seal && systemd_running; then
    : >"$TMP/empty"
    seal_credential technician-tokens "$TMP/empty" || true
  fi
  local f
  for f in "$CREDS"/*; do
    [ -f "$f" ] || continue
    if [ "$(stat -c '%a %u %g' "$f")" != "600 0 0" ]; then chown 0:0 "$f"; chmod 0600 "$f"; fi
  done
}
