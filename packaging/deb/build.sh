#!/usr/bin/env bash
# `bash packaging/deb/build.sh [--arch arm64|armv7|x64] [--bundle FILE] [--out DIR]`: the Debian
# package of a release, pickup-station_<version>_<debian arch>.deb, made with dpkg-deb from the same
# release layout as the offline tarball (built here by scripts/bundle/build.sh unless --bundle names
# one). Runs on the x86_64 build host; needs dpkg-deb and fakeroot-free ownership (--root-owner-group).
#
# The package holds:
#   /usr/lib/pickup-station/release/          the release tree, exactly as in the tarball
#   /usr/lib/systemd/system/pickup-station-repair.service, pickup-station-upgrade.service
#                                                the installer's own units (from the release)
#   /usr/lib/udev/rules.d/99-pickup-station.rules    device permissions (from the release's hardware/)
#   /usr/lib/sysusers.d/pickup-station.conf      the system user and device groups
#   /usr/lib/tmpfiles.d/pickup-station.conf      the metrics textfile's folder on tmpfs
#   /usr/lib/modules-load.d/pickup-station.conf  the tty classes the unit's DeviceAllow= names (usbserial, cdc_acm)
#   /usr/lib/systemd/journald@pickup-station.conf.d/50-pickup-station.conf
#                                                the station's journal namespace: kept 14 days
#   /usr/bin/pickup-station, /usr/bin/stationctl run /opt/pickup-station/current
#   /etc/default/pickup-station                  upgrade settings (conffile)
# and the maintainer scripts of packaging/deb/debian/: postinst hands the release to its own
# systemd/install.sh (--package-release), which copies it to /opt/pickup-station/releases/<version>
# (hard links), and switches to it when the station is free, with the release's own unit
# (pickup-station.service is not a file of the package: it comes with the switch, so the running
# release always runs under its own unit), checks the new release's health, or defers the switch.
# With --key, a second package: pickup-station-archive-keyring_<version>_all.deb, the vendor's public
# key in /usr/share/keyrings/ (apt's signed-by= and install.sh's bundle check); pickup-station
# depends on it, and removing pickup-station keeps it (as Debian's archive keyrings are packaged).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

ARCH=arm64
BUNDLE=""
OUT=$ROOT/release
KEY=""
COMPRESSION=xz
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) ARCH=${2:?--arch needs a value}; shift 2 ;;
    --bundle) BUNDLE=${2:?--bundle needs a file}; shift 2 ;;
    --out) OUT=${2:?--out needs a directory}; shift 2 ;;
    --key) KEY=${2:?--key needs a public key file}; shift 2 ;;
    --compression) COMPRESSION=${2:?--compression xz|gzip}; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--arch arm64|armv7|x64] [--bundle FILE] [--key PUBKEY.gpg] [--compression xz|gzip] [--out DIR]" >&2; exit 2 ;;
  esac
done

die() { printf 'deb: error: %s\n' "$*" >&2; exit 1; }
log() { printf 'deb: %s\n' "$*" >&2; }

case "$ARCH" in
  arm64) DEB_ARCH=arm64 ;;
  armv7) DEB_ARCH=armhf ;;
  x64) DEB_ARCH=amd64 ;;
  *) die "unknown --arch $ARCH (arm64 | armv7 | x64)" ;;
esac
command -v dpkg-deb >/dev/null || die "dpkg-deb is missing (Debian package dpkg)"

if [ -z "$BUNDLE" ]; then
  bash "$ROOT/scripts/bundle/build.sh" --arch "$ARCH" --out "$OUT" >&2
  version=$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")
  BUNDLE=$OUT/pickup-station-$version-linux-$ARCH.tar.gz
fi
[ -f "$BUNDLE" ] || die "no bundle $BUNDLE"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/unpacked"
tar -xzf "$BUNDLE" -C "$WORK/unpacked" --no-same-owner
shopt -s nullglob
tops=("$WORK"/unpacked/*)
if [ "${#tops[@]}" != 1 ] || [ ! -f "${tops[0]}/manifest.json" ]; then die "$BUNDLE: expected one top directory with manifest.json"; fi
SRC=${tops[0]}

field() { node -p 'const m = require(process.argv[1]); const v = process.argv[2].split(".").reduce((o, k) => o?.[k], m); v ?? ""' "$SRC/manifest.json" "$1"; }
VERSION=$(field version)
[[ "$VERSION" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || die "manifest version '$VERSION' is not a Debian version"
MARCH=$(field arch)
[ -z "$MARCH" ] || [ "$MARCH" = "$ARCH" ] || die "$BUNDLE is for $MARCH, not $ARCH"
NODE_BUNDLED=0
[ -x "$SRC/node/bin/node" ] && NODE_BUNDLED=1

# Depends: the packages the release's addons link and the station needs (systemd/runtime-packages,
# which tools/check-bundle.mjs checks against the addons' NEEDED entries), systemd itself (the
# unit, sysusers), and Debian's nodejs where the release brings no Node of its own.
mapfile -t runtime < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SRC/systemd/runtime-packages" | awk '{ print $1 }')
# libc6: at least the newest glibc symbol version an addon needs (manifest glibcMin); systemd >= 250
# for the unit's ExecSearchPath=.
glibc_min=$(field glibcMin)
depends=("${runtime[@]}" "libc6${glibc_min:+ (>= $glibc_min)}" "systemd (>= 250)")
[ "$NODE_BUNDLED" = 1 ] || depends+=("nodejs (>= 20.11)")

PKG=$WORK/pkg
install -d -m 0755 "$PKG/DEBIAN" "$PKG/usr/lib/pickup-station" "$PKG/usr/lib/systemd/system" "$PKG/usr/lib/udev/rules.d" \
  "$PKG/usr/lib/sysusers.d" "$PKG/usr/lib/tmpfiles.d" "$PKG/usr/lib/systemd/journald@pickup-station.conf.d" "$PKG/usr/bin" "$PKG/etc/default" "$PKG/usr/share/doc/pickup-station"
cp -a "$SRC" "$PKG/usr/lib/pickup-station/release"
# The installer's own units; the release's units (pickup-station.service, the kiosk's) are written
# by install.sh at each switch, from the release switched to.
for unit in pickup-station-repair.service pickup-station-upgrade.service; do
  [ -f "$SRC/systemd/$unit" ] || die "$BUNDLE has no systemd/$unit (a release older than the self-repairing upgrade)"
  install -m 0644 "$SRC/systemd/$unit" "$PKG/usr/lib/systemd/system/$unit"
done
if [ -f "$SRC/hardware/99-pickup-station.rules" ]; then
  install -m 0644 "$SRC/hardware/99-pickup-station.rules" "$PKG/usr/lib/udev/rules.d/99-pickup-station.rules"
fi
install -m 0644 "$HERE/debian/sysusers.conf" "$PKG/usr/lib/sysusers.d/pickup-station.conf"
install -m 0644 "$SRC/systemd/tmpfiles.conf" "$PKG/usr/lib/tmpfiles.d/pickup-station.conf"
if [ -f "$SRC/systemd/modules-load.conf" ]; then
  install -D -m 0644 "$SRC/systemd/modules-load.conf" "$PKG/usr/lib/modules-load.d/pickup-station.conf"
fi
install -m 0644 "$SRC/systemd/journald@pickup-station.conf" "$PKG/usr/lib/systemd/journald@pickup-station.conf.d/50-pickup-station.conf"
install -m 0644 "$HERE/debian/default" "$PKG/etc/default/pickup-station"
if [ "$NODE_BUNDLED" = 1 ]; then
  # The release's own Node is nodejs.org's binary, which links zlib (and OpenSSL, ICU) statically;
  # Debian's nodejs is not an option there (bookworm's is 18, the addons are built for 24).
  install -d -m 0755 "$PKG/usr/share/lintian/overrides"
  printf '%s\n' '# nodejs.org Node (node/bin/node) links zlib statically; the release needs its Node 24.' \
    'pickup-station: embedded-library zlib [usr/lib/pickup-station/release/node/bin/node]' >"$PKG/usr/share/lintian/overrides/pickup-station"
  chmod 0644 "$PKG/usr/share/lintian/overrides/pickup-station"
fi
if [ -n "$KEY" ]; then depends+=(pickup-station-archive-keyring); fi
DEPENDS=$(printf '%s, ' "${depends[@]}")
DEPENDS=${DEPENDS%, }
# The technicians' commands: the release the unit runs, with the node it runs.
for cmd in pickup-station:app/main.js stationctl:app/stationctl.js; do
  cat >"$PKG/usr/bin/${cmd%%:*}" <<WRAPPER
#!/bin/sh
# Installed by the pickup-station package: runs the current release (/opt/pickup-station/current).
node=/usr/bin/node
[ -x /opt/pickup-station/current/node/bin/node ] && node=/opt/pickup-station/current/node/bin/node
exec "\$node" /opt/pickup-station/current/${cmd#*:} "\$@"
WRAPPER
  chmod 0755 "$PKG/usr/bin/${cmd%%:*}"
done
# Debian policy: copyright and a compressed changelog; the Node license travels with the release.
cat >"$PKG/usr/share/doc/pickup-station/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: pickup-station
Comment: Proprietary firmware (UNLICENSED); the production dependencies under
 /usr/lib/pickup-station/release/node_modules carry their own licenses, and the
 bundled Node.js (node/) its LICENSE file.

Files: *
Copyright: 2025-2026 Pickup Station Maintainers
License: proprietary
 All rights reserved.
EOF
commit=$(field git.commit)
printf 'pickup-station (%s) stable; urgency=medium\n\n  * Release %s (commit %s).\n\n -- Pickup Station Maintainers <pickup-station@example.org>  %s\n' \
  "$VERSION" "$VERSION" "${commit:-unknown}" "$(date -R -u -d "$(field builtAt)" 2>/dev/null || date -R -u)" |
  gzip -9n >"$PKG/usr/share/doc/pickup-station/changelog.gz"
chmod 0644 "$PKG/usr/share/doc/pickup-station/"*

for f in preinst postinst prerm postrm; do install -m 0755 "$HERE/debian/$f" "$PKG/DEBIAN/$f"; done
echo /etc/default/pickup-station >"$PKG/DEBIAN/conffiles"
chmod -R u+rwX,go+rX,go-w "$PKG"
SIZE=$(du -sk --exclude=DEBIAN "$PKG" | cut -f1)
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$DEB_ARCH/" -e "s/@DEPENDS@/$DEPENDS/" -e "s/@SIZE@/$SIZE/" \
  "$HERE/debian/control.in" >"$PKG/DEBIAN/control"
(cd "$PKG" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$PKG/DEBIAN/md5sums"
chmod 0644 "$PKG/DEBIAN/control" "$PKG/DEBIAN/conffiles" "$PKG/DEBIAN/md5sums"

mkdir -p "$OUT"
DEB=$OUT/pickup-station_${VERSION}_${DEB_ARCH}.deb
# Same inputs, same bytes: fixed owner and file times (SOURCE_DATE_EPOCH, else the bundle's).
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(stat -c %Y "$SRC/manifest.json")}
export SOURCE_DATE_EPOCH
find "$PKG" -newermt "@$SOURCE_DATE_EPOCH" -print0 | xargs -0r touch -h -d "@$SOURCE_DATE_EPOCH"
# xz: the smallest download for a board (gzip at its fastest level: several times faster to build,
# for test releases).
case "$COMPRESSION" in xz) LEVEL=() ;; gzip) LEVEL=(-z1) ;; *) die "--compression is xz or gzip" ;; esac
dpkg-deb --root-owner-group "-Z$COMPRESSION" "${LEVEL[@]}" --build "$PKG" "$DEB" >/dev/null
log "built $DEB"
echo "$(basename "$DEB"): $(du -h "$DEB" | cut -f1) ($(stat -c %s "$DEB") bytes), installed $SIZE KiB; Depends: $DEPENDS"

# The vendor's key in a package of its own, as Debian's archive keyrings are: what apt's Signed-By=
# names must outlive `apt-get remove pickup-station`. Earlier pickup-station packages shipped the
# file themselves (Replaces: it moves here).
if [ -n "$KEY" ]; then
  KPKG=$WORK/keyring
  install -d -m 0755 "$KPKG/DEBIAN" "$KPKG/usr/share/keyrings" "$KPKG/usr/share/doc/pickup-station-archive-keyring"
  install -m 0644 "$KEY" "$KPKG/usr/share/keyrings/pickup-station-archive-keyring.gpg"
  sed -e 's/^Upstream-Name: pickup-station$/Upstream-Name: pickup-station-archive-keyring/' "$PKG/usr/share/doc/pickup-station/copyright" \
    >"$KPKG/usr/share/doc/pickup-station-archive-keyring/copyright"
  printf 'pickup-station-archive-keyring (%s) stable; urgency=medium\n\n  * The vendor key of pickup-station %s.\n\n -- Pickup Station Maintainers <pickup-station@example.org>  %s\n' \
    "$VERSION" "$VERSION" "$(date -R -u -d "@$SOURCE_DATE_EPOCH")" | gzip -9n >"$KPKG/usr/share/doc/pickup-station-archive-keyring/changelog.gz"
  chmod 0644 "$KPKG/usr/share/doc/pickup-station-archive-keyring/"*
  cat >"$KPKG/DEBIAN/control" <<CONTROL
Package: pickup-station-archive-keyring
Version: $VERSION
Architecture: all
Multi-Arch: foreign
Maintainer: Pickup Station Maintainers <pickup-station@example.org>
Section: misc
Priority: optional
Replaces: pickup-station (<< 0.2~)
Installed-Size: $(du -sk --exclude=DEBIAN "$KPKG" | cut -f1)
Homepage: https://example.org/pickup-station
Description: OpenPGP key of the pickup-station vendor's repository
 The public key that signs the vendor's apt repository of pickup-station
 (apt's Signed-By= names it) and its release bundles (install.sh checks
 them against it). Removing pickup-station leaves it in place.
CONTROL
  (cd "$KPKG" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$KPKG/DEBIAN/md5sums"
  chmod 0644 "$KPKG/DEBIAN/control" "$KPKG/DEBIAN/md5sums"
  find "$KPKG" -newermt "@$SOURCE_DATE_EPOCH" -print0 | xargs -0r touch -h -d "@$SOURCE_DATE_EPOCH"
  KDEB=$OUT/pickup-station-archive-keyring_${VERSION}_all.deb
  dpkg-deb --root-owner-group -Zxz --build "$KPKG" "$KDEB" >/dev/null
  log "built $KDEB"
  echo "$(basename "$KDEB"): $(stat -c %s "$KDEB") bytes"
fi
