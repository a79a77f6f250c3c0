#!/usr/bin/env bash
# The vendor's apt repository of pickup-station, kept by reprepro (Debian package reprepro).
#
#   bash packaging/apt/publish.sh --repo DIR --key-id FINGERPRINT [--dist canary|stable] DEB...
#       add (or replace: one version per distribution) the packages in DIR's distribution
#   bash packaging/apt/publish.sh --repo DIR --key-id FINGERPRINT --promote canary stable
#       give stable what canary has now (after the canary group proved it)
#
# Two distributions (suites): `canary` for the few boards that take a release first, `stable` for
# the fleet. Every change re-signs the distribution's InRelease (and Release.gpg) with --key-id:
# reprepro calls gpg (GNUPGHOME selects the keyring), so this step runs where the private key is
# (the signing machine or a hardware token), never on a build machine; copy DIR to the web server
# afterwards (rsync: only pool/ and dists/ are served; conf/ and db/ are reprepro's own).
#
# Boards trust exactly the vendor's key, by signed-by= (docs/fleet.md):
#   Types: deb
#   URIs: https://apt.example.org/pickup-station
#   Suites: stable
#   Components: main
#   Signed-By: /usr/share/keyrings/pickup-station-archive-keyring.gpg
set -euo pipefail

REPO=""
KEY_ID=""
DIST=stable
PROMOTE=()
debs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repo) REPO=${2:?--repo needs a directory}; shift 2 ;;
    --key-id) KEY_ID=${2:?--key-id needs a fingerprint}; shift 2 ;;
    --dist) DIST=${2:?--dist needs canary or stable}; shift 2 ;;
    --promote) PROMOTE=("${2:?--promote FROM TO}" "${3:?--promote FROM TO}"); shift 3 ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "publish: unknown option $1" >&2; exit 2 ;;
    *) debs+=("$1"); shift ;;
  esac
done
die() { printf 'publish: error: %s\n' "$*" >&2; exit 1; }
if [ -z "$REPO" ] || [ -z "$KEY_ID" ]; then die "usage: $0 --repo DIR --key-id FINGERPRINT [--dist D] DEB... | --promote FROM TO"; fi
command -v reprepro >/dev/null || die "reprepro is missing (Debian package reprepro)"
gpg --batch --list-secret-keys "$KEY_ID" >/dev/null 2>&1 || die "no secret key $KEY_ID in the keyring (GNUPGHOME=${GNUPGHOME:-~/.gnupg})"

mkdir -p "$REPO/conf"
# The distributions, rewritten each time: the key that signs is the one given now.
{
  for d in canary stable; do
    cat <<EOF
Origin: pickup-station
Label: pickup-station
Suite: $d
Codename: $d
Architectures: amd64 arm64 armhf
Components: main
Description: pickup-station releases ($d)
SignWith: $KEY_ID

EOF
  done
} >"$REPO/conf/distributions"
printf 'verbose\nbasedir %s\n' "$(cd "$REPO" && pwd)" >"$REPO/conf/options"

if [ "${#PROMOTE[@]}" = 2 ]; then
  reprepro -b "$REPO" copymatched "${PROMOTE[1]}" "${PROMOTE[0]}" 'pickup-station'
  reprepro -b "$REPO" export "${PROMOTE[1]}"
  echo "publish: ${PROMOTE[1]} now has what ${PROMOTE[0]} has: $(reprepro -b "$REPO" list "${PROMOTE[1]}" pickup-station | tr '\n' ' ')"
  exit 0
fi
case "$DIST" in canary | stable) ;; *) die "--dist is canary or stable, not $DIST" ;; esac
[ "${#debs[@]}" -gt 0 ] || die "no .deb given"
for deb in "${debs[@]}"; do
  [ -f "$deb" ] || die "no file $deb"
  reprepro -b "$REPO" includedeb "$DIST" "$deb"
done
reprepro -b "$REPO" export "$DIST"
echo "publish: $DIST: $(reprepro -b "$REPO" list "$DIST" | tr '\n' ' ')"
