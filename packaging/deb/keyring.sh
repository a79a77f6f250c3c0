#!/usr/bin/env bash
# `bash packaging/deb/keyring.sh --version V --key FILE [--key FILE ...] [--out DIR]`: the package
# pickup-station-archive-keyring_<V>_all.deb, the vendor's public keys as one keyring in
# /usr/share/keyrings/pickup-station-archive-keyring.gpg (apt's Signed-By= for the vendor's
# repository, install.sh's bundle check). packaging/deb/build.sh --key makes it with each release;
# on its own it is how the keys change between releases (docs/fleet.md, "The signing key's life"):
#
#   a rotation's handover  --key new.gpg --key current.gpg   both valid: a repository signed by
#                          either (or both) verifies; published under the current key, taken by
#                          every board before the repository is signed by the new key alone
#   the end of a handover  --key new.gpg                     the old key no longer trusted
#   a revocation           --key new.gpg --key old-revoked.gpg   the old key with its revocation
#                          certificate merged in: apt (REVKEYSIG) and install.sh refuse anything it
#                          signs, also where an old keyring copy would otherwise still trust it
#
# Each FILE is a binary OpenPGP export (gpg --export). The keys' fingerprints and states (valid,
# revoked, expired) go in the package's changelog and description, so `apt changelog
# pickup-station-archive-keyring` says which keys a board trusts. The version must sort after the
# one the boards have (date-based, as Debian's archive keyrings: 2026.12.05). Same inputs, same bytes
# (SOURCE_DATE_EPOCH, default the newest key file's time).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

VERSION=""
KEYS=()
OUT=$ROOT/release
while [ $# -gt 0 ]; do
  case "$1" in
    --version) VERSION=${2:?--version needs a value}; shift 2 ;;
    --key) KEYS+=("${2:?--key needs a file}"); shift 2 ;;
    --out) OUT=${2:?--out needs a directory}; shift 2 ;;
    -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 --version V --key FILE [--key FILE ...] [--out DIR]" >&2; exit 2 ;;
  esac
done
die() { printf 'keyring: error: %s\n' "$*" >&2; exit 1; }
if [ -z "$VERSION" ] || [ "${#KEYS[@]}" = 0 ]; then echo "usage: $0 --version V --key FILE [--key FILE ...] [--out DIR]" >&2; exit 2; fi
[[ "$VERSION" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || die "--version $VERSION is not a Debian version"
command -v gpg >/dev/null || die "gpg is missing (Debian package gpg): it reads the keys"

WORK=$(mktemp -d)
trap 'gpgconf --homedir "$WORK/gnupg" --kill gpg-agent 2>/dev/null || true; rm -rf "$WORK"' EXIT
mkdir -m 0700 "$WORK/gnupg"
KEYRING=$WORK/keyring.gpg
: >"$KEYRING"
newest=0
for k in "${KEYS[@]}"; do
  [ -f "$k" ] || die "no key file $k"
  # A public key and nothing else: never a secret key in a package.
  listing=$(gpg --homedir "$WORK/gnupg" --batch --with-colons --show-keys "$k" 2>/dev/null) || die "$k is not an OpenPGP key"
  grep -q '^pub:' <<<"$listing" || die "$k holds no public key"
  ! grep -q '^sec:' <<<"$listing" || die "$k holds a secret key: give the public key (gpg --export)"
  cat "$k" >>"$KEYRING"
  [ "$(stat -c %Y "$k")" -le "$newest" ] || newest=$(stat -c %Y "$k")
done
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$newest}
# Each key: fingerprint, state (gpg's validity field: r revoked, e expired), user id.
mapfile -t described < <(gpg --homedir "$WORK/gnupg" --batch --with-colons --show-keys "$KEYRING" 2>/dev/null | awk -F: '
  /^pub:/ { state = ($2 == "r") ? "REVOKED" : ($2 == "e") ? "expired" : "valid"; expires = ($7 == "") ? "no expiry" : "expires " strftime("%Y-%m-%d", $7, 1); fpr = "" }
  /^fpr:/ && fpr == "" { fpr = $10 }
  /^uid:/ && fpr != "" { print fpr " (" state ", " expires "): " $10; fpr = "x" }')
[ "${#described[@]}" -gt 0 ] || die "no key read from ${KEYS[*]}"
[ "$(printf '%s\n' "${described[@]}" | grep -vc '(REVOKED')" -gt 0 ] || die "every key given is revoked: a board would trust nothing"

KPKG=$WORK/pkg
install -d -m 0755 "$KPKG/DEBIAN" "$KPKG/usr/share/keyrings" "$KPKG/usr/share/doc/pickup-station-archive-keyring" "$KPKG/etc/apt/apt.conf.d"
install -m 0644 "$KEYRING" "$KPKG/usr/share/keyrings/pickup-station-archive-keyring.gpg"
# apt installs the keyring as pickup-station's dependency, so marked automatic: without this,
# `apt autoremove` after removing pickup-station would take the key that apt's Signed-By= needs
# to install it again. A conffile: an administrator who wants it gone removes the package.
printf '%s\n' '// pickup-station-archive-keyring: the vendor repository'"'"'s key stays when pickup-station is removed.' \
  'APT::NeverAutoRemove { "^pickup-station-archive-keyring$"; };' >"$KPKG/etc/apt/apt.conf.d/50pickup-station-archive-keyring"
chmod 0644 "$KPKG/etc/apt/apt.conf.d/50pickup-station-archive-keyring"
echo /etc/apt/apt.conf.d/50pickup-station-archive-keyring >"$KPKG/DEBIAN/conffiles"
cat >"$KPKG/usr/share/doc/pickup-station-archive-keyring/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: pickup-station-archive-keyring
Comment: The public OpenPGP keys of the pickup-station vendor.

Files: *
Copyright: 2025-2026 Pickup Station Maintainers
License: proprietary
 All rights reserved.
EOF
{
  printf 'pickup-station-archive-keyring (%s) stable; urgency=medium\n\n  * The keys a board trusts for the vendor'"'"'s repository and bundles:\n' "$VERSION"
  printf '    - %s\n' "${described[@]}"
  printf '\n -- Pickup Station Maintainers <pickup-station@example.org>  %s\n' "$(date -R -u -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$KPKG/usr/share/doc/pickup-station-archive-keyring/changelog.gz"
chmod 0644 "$KPKG/usr/share/doc/pickup-station-archive-keyring/"*
{
  cat <<CONTROL
Package: pickup-station-archive-keyring
Version: $VERSION
Architecture: all
Multi-Arch: foreign
Maintainer: Pickup Station Maintainers <pickup-station@example.org>
Section: misc
Priority: optional
Replaces: pickup-station (<< 0.2~)
Breaks: pickup-station (<< 0.2~)
Installed-Size: $(du -sk --exclude=DEBIAN "$KPKG" | cut -f1)
Homepage: https://example.org/pickup-station
Description: OpenPGP keys of the pickup-station vendor's repository
 The public keys that sign the vendor's apt repository of pickup-station
 (apt's Signed-By= names them) and its release bundles (install.sh checks
 them against them); a revoked key with its revocation, so that nothing
 it signs is trusted. Removing pickup-station leaves it in place, and apt
 autoremove does not take it (APT::NeverAutoRemove).
 .
 Keys:
CONTROL
  printf ' %s\n' "${described[@]}"
} >"$KPKG/DEBIAN/control"
(cd "$KPKG" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$KPKG/DEBIAN/md5sums"
chmod 0644 "$KPKG/DEBIAN/control" "$KPKG/DEBIAN/md5sums" "$KPKG/DEBIAN/conffiles"
find "$KPKG" -newermt "@$SOURCE_DATE_EPOCH" -print0 | xargs -0r touch -h -d "@$SOURCE_DATE_EPOCH"
mkdir -p "$OUT"
KDEB=$OUT/pickup-station-archive-keyring_${VERSION}_all.deb
dpkg-deb --root-owner-group -Zxz --build "$KPKG" "$KDEB" >/dev/null
printf 'keyring: built %s\n' "$KDEB" >&2
echo "$(basename "$KDEB"): $(stat -c %s "$KDEB") bytes; keys: $(printf '%s; ' "${described[@]}" | sed 's/; $//')"
