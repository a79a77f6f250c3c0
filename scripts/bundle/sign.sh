#!/usr/bin/env bash
# `bash scripts/bundle/sign.sh --key-id FINGERPRINT FILE...`: a detached OpenPGP signature
# FILE.sig beside each release file (the bundle tarball; any file a board checks with gpgv).
#
# Boards check it with gpgv (Debian package gpgv, which apt depends on: every Debian and Pi OS has
# it) against the vendor's public key — the same key that signs the apt repository — so signing
# needs nothing a board lacks. Only this step needs the private key: run it on the signing machine
# (or with the key on a hardware token: gpg asks the card), with just the tarball copied there, and
# copy FILE.sig back. GNUPGHOME selects the keyring as for gpg itself.
#
# After signing, each signature is checked with gpgv against the exported public key, so a wrong
# --key-id fails here rather than on a board.
set -euo pipefail

KEY_ID=""
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --key-id) KEY_ID=${2:?--key-id needs a fingerprint}; shift 2 ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) files+=("$1"); shift ;;
  esac
done
if [ -z "$KEY_ID" ] || [ "${#files[@]}" = 0 ]; then echo "usage: $0 --key-id FINGERPRINT FILE..." >&2; exit 2; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gpg --batch --quiet --output "$work/key.gpg" --export "$KEY_ID"
[ -s "$work/key.gpg" ] || { echo "sign: no public key $KEY_ID in the keyring" >&2; exit 1; }
for f in "${files[@]}"; do
  [ -f "$f" ] || { echo "sign: no file $f" >&2; exit 1; }
  gpg --batch --quiet --yes --local-user "$KEY_ID" --output "$f.sig" --detach-sign "$f"
  mkdir -p "$work/gnupg" && chmod 0700 "$work/gnupg"
  gpgv --homedir "$work/gnupg" --quiet --keyring "$work/key.gpg" "$f.sig" "$f" 2>/dev/null ||
    { echo "sign: the signature of $f does not verify against $KEY_ID" >&2; exit 1; }
  echo "signed: $f.sig ($KEY_ID)"
done
