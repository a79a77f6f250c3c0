#!/usr/bin/env bash
# The vendor's apt repository of pickup-station, kept by reprepro (Debian package reprepro).
#
#   bash packaging/apt/publish.sh --repo DIR --key-id FINGERPRINT [--dist canary|stable] DEB...
#       add (or replace: one version per distribution) the packages in DIR's distribution
#   bash packaging/apt/publish.sh --repo DIR --key-id FINGERPRINT --promote canary stable
#       give stable what canary has now (after the canary group proved it)
#   bash packaging/apt/publish.sh --repo DIR --key-id FINGERPRINT --refresh
#       sign both distributions again with a new Valid-Until (weekly, from the signing machine)
#
# Every Release carries Valid-Until (--valid-for, default 30d: reprepro's ValidFor): apt refuses
# metadata past it, so a mirror or a cache that keeps serving old signed metadata cannot hold a
# fleet on an old release for longer than that. The price: the repository must be signed again
# before it runs out, also when nothing was published (--refresh, e.g. a weekly cron job where the
# key is; docs/fleet.md). DEB... may include pickup-station-archive-keyring_<v>_all.deb (build.sh --key).
#
# Two distributions (suites): `canary` for the few boards that take a release first, `stable` for
# the fleet. Every change re-signs the distribution's InRelease (and Release.gpg) with --key-id
# (given twice during a key handover: each InRelease then carries both signatures, and a board
# that trusts either key verifies it; docs/fleet.md, "The signing key's life"):
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
KEY_IDS=()
DIST=stable
PROMOTE=()
REFRESH=0
VALID_FOR=30d
debs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repo) REPO=${2:?--repo needs a directory}; shift 2 ;;
    --key-id) KEY_IDS+=("${2:?--key-id needs a fingerprint}"); shift 2 ;;
    --dist) DIST=${2:?--dist needs canary or stable}; shift 2 ;;
    --promote) PROMOTE=("${2:?--promote FROM TO}" "${3:?--promote FROM TO}"); shift 3 ;;
    --refresh) REFRESH=1; shift ;;
    --valid-for) VALID_FOR=${2:?--valid-for needs a duration (30d, 2m)}; shift 2 ;;
    -h | --help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "publish: unknown option $1" >&2; exit 2 ;;
    *) debs+=("$1"); shift ;;
  esac
done
die() { printf 'publish: error: %s\n' "$*" >&2; exit 1; }
if [ -z "$REPO" ] || [ "${#KEY_IDS[@]}" = 0 ]; then die "usage: $0 --repo DIR --key-id FINGERPRINT [--key-id FINGERPRINT] [--dist D] [--valid-for 30d] DEB... | --promote FROM TO | --refresh"; fi
[[ "$VALID_FOR" =~ ^[1-9][0-9]*[dmy]$ ]] || die "--valid-for is a number and d, m (31 days) or y: $VALID_FOR"
command -v reprepro >/dev/null || die "reprepro is missing (Debian package reprepro)"
for key in "${KEY_IDS[@]}"; do
  gpg --batch --list-secret-keys "$key" >/dev/null 2>&1 || die "no secret key $key in the keyring (GNUPGHOME=${GNUPGHOME:-~/.gnupg})"
done

mkdir -p "$REPO/conf"
# The distributions, rewritten each time: the keys that sign are the ones given now.
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
SignWith: ${KEY_IDS[*]}
ValidFor: $VALID_FOR

EOF
  done
} >"$REPO/conf/distributions"
printf 'verbose\nbasedir %s\n' "$(cd "$REPO" && pwd)" >"$REPO/conf/options"

if [ "$REFRESH" = 1 ]; then
  for d in canary stable; do reprepro -b "$REPO" export "$d"; done
  echo "publish: signed again: $(sed -n 's/^Valid-Until: /valid until /p' "$REPO/dists/stable/Release")"
  exit 0
fi
if [ "${#PROMOTE[@]}" = 2 ]; then
  reprepro -b "$REPO" copymatched "${PROMOTE[1]}" "${PROMOTE[0]}" 'pickup-station*'
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
