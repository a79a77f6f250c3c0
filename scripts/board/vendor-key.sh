#!/usr/bin/env bash
# The board's throwaway vendor key (sourced by run.sh): made once (ed25519, no passphrase), kept in
# BOARD/vendor-key as an exported secret key and its fingerprint. gpg itself runs in a short
# temporary home: its agent's socket lives there, and a socket path is limited to 108 bytes (a
# checkout under a long CI path would not fit under .board/).
# shellcheck shell=bash

# board_sign BUNDLE KEYRING: BUNDLE.sig by the release's own scripts/bundle/sign.sh; KEYRING: the
# public key, binary (what a board is given). Sets VENDOR_FPR.
board_sign() {
  local keep="$BOARD/vendor-key" home
  home="$(mktemp -d /tmp/psk.XXXXXX)"
  command -v gpg >/dev/null || { apt-get install -y -qq --no-install-recommends gpg >/dev/null; }
  if [ -s "$keep/fingerprint" ] && [ -s "$keep/secret.key" ]; then
    gpg --homedir "$home" --batch --quiet --import "$keep/secret.key"
  else
    rm -rf "$keep" && mkdir -m 0700 "$keep"   # BOARD exists (run.sh made it)
    gpg --homedir "$home" --batch --quiet --pinentry-mode loopback --passphrase '' \
      --quick-gen-key 'Pickup Station Board Vendor (throwaway) <board@example.invalid>' ed25519 sign never
    gpg --homedir "$home" --batch --with-colons --list-keys | awk -F: '/^fpr:/ { print $10; exit }' >"$keep/fingerprint"
    gpg --homedir "$home" --batch --yes --output "$keep/secret.key" --export-secret-keys "$(cat "$keep/fingerprint")"
  fi
  VENDOR_FPR="$(cat "$keep/fingerprint")"
  gpg --homedir "$home" --batch --quiet --yes --output "$2" --export "$VENDOR_FPR"
  GNUPGHOME="$home" bash "$ROOT/scripts/bundle/sign.sh" --key-id "$VENDOR_FPR" "$1" >/dev/null
  gpgconf --homedir "$home" --kill gpg-agent 2>/dev/null || true
  rm -rf "$home"
}
