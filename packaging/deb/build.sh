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
#   /etc/apt/apt.conf.d/52pickup-station-unattended-upgrades   Debian's security suite and the
#                                                vendor's repository taken unattended (conffile)
#   /usr/lib/systemd/system/pickup-station-reboot.path, .service (enabled: paths.target.wants)
#                                                a reboot an update needs, once the station is free;
#                                                DEBIAN/triggers: Chromium's files changed asks for it
#   /etc/pickup-station-kiosk/chromium-policy.json   the kiosk browser's managed policy (conffile:
#                                                an administrator's edit is kept on upgrade), and
#   /etc/chromium/policies/managed/pickup-station.json   a link to it where Chromium reads it (Chromium
#                                                reads every file there: dpkg's .dpkg-dist/.dpkg-old
#                                                beside a conffile would be read as policies too)
#   /usr/lib/systemd/logind.conf.d/pickup-station.conf   no gettys on other consoles (NAutoVTs=0,
#                                                ReserveVT=0), no key that powers off, reboots or
#                                                suspends (Handle*=ignore);
#                                                /usr/lib/systemd/system.conf.d/pickup-station.conf
#                                                CtrlAltDelBurstAction=none;
#                                                /usr/lib/sysctl.d/90-pickup-station.conf no magic SysRq
#                                                keys (a file of the same name in /etc replaces each)
#   /usr/lib/systemd/system/getty@tty1…6.service -> /dev/null   no getty on any VT (the postinst
#                                                masks ctrl-alt-del.target in /etc: systemd's package
#                                                owns that name under /usr/lib)
# and the maintainer scripts of packaging/deb/debian/: postinst hands the release to its own
# systemd/install.sh (--package-release), which copies it to /opt/pickup-station/releases/<version>
# (hard links), and switches to it when the station is free, with the release's own unit
# (pickup-station.service is not a file of the package: it comes with the switch, so the running
# release always runs under its own unit), checks the new release's health, or defers the switch.
# With --key, a second package: pickup-station-archive-keyring_<version>_all.deb (packaging/deb/keyring.sh;
# --keyring-version V for a version of its own), the vendor's public keys in /usr/share/keyrings/
# (apt's signed-by= and install.sh's bundle check); pickup-station depends on it, and removing
# pickup-station keeps it (as Debian's archive keyrings are packaged).
#
# Required: --security-contact URI --security-policy URL --support-until YYYY-MM-DD (and
# --support-until-reason when the bundle has one; scripts/release/inputs.sh), the same as the bundle
# was built with (its vendor.json; refused when they differ). They land in
# /usr/share/doc/pickup-station/ (vendor.json, security.txt, SECURITY.md) with the package's SBOM
# (sbom.cdx.json, checked against the vendored CycloneDX schema and the release tree: a failure
# fails the build). The changelog is packaging/deb/debian/changelog when its top entry is this
# version (security fixes: urgency=high), NEWS.Debian packaging/deb/debian/NEWS.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=scripts/release/inputs.sh
. "$ROOT/scripts/release/inputs.sh"

ARCH=arm64
BUNDLE=""
OUT=$ROOT/release
KEY=""
KEYRING_VERSION=""
COMPRESSION=xz
while [ $# -gt 0 ]; do
  if release_input "$1" "${2:-}"; then shift 2; continue; fi
  case "$1" in
    --arch) ARCH=${2:?--arch needs a value}; shift 2 ;;
    --bundle) BUNDLE=${2:?--bundle needs a file}; shift 2 ;;
    --out) OUT=${2:?--out needs a directory}; shift 2 ;;
    --key) KEY=${2:?--key needs a public key file}; shift 2 ;;
    --keyring-version) KEYRING_VERSION=${2:?--keyring-version needs a version}; shift 2 ;;
    --compression) COMPRESSION=${2:?--compression xz|gzip}; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 --security-contact URI --security-policy URL --support-until YYYY-MM-DD [--support-until-reason TEXT] [--arch arm64|armv7|x64] [--bundle FILE] [--key PUBKEY.gpg [--keyring-version V]] [--compression xz|gzip] [--out DIR]" >&2; exit 2 ;;
  esac
done
check_release_inputs

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
  bash "$ROOT/scripts/bundle/build.sh" --arch "$ARCH" --out "$OUT" "${RELEASE_INPUTS[@]}" >&2
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

# The vendor's inputs are the bundle's: a package must not say other than the release it carries.
[ -f "$SRC/vendor.json" ] || die "$BUNDLE has no vendor.json (built without the release inputs)"
vendor_field() { node -p 'require(process.argv[1])[process.argv[2]] ?? ""' "$SRC/vendor.json" "$1"; }
for pair in security-contact:securityContact:SECURITY_CONTACT security-policy:securityPolicyUrl:SECURITY_POLICY \
  support-until:supportUntil:SUPPORT_UNTIL support-until-reason:supportUntilReason:SUPPORT_REASON; do
  IFS=: read -r flag field var <<<"$pair"
  [ "$(vendor_field "$field")" = "${!var}" ] || die "--$flag \"${!var}\" differs from the bundle's (\"$(vendor_field "$field")\")"
done
[ -f "$SRC/sbom.cdx.json" ] || die "$BUNDLE has no sbom.cdx.json"
node "$ROOT/scripts/release/check-sbom.mjs" "$SRC/sbom.cdx.json" --tree "$SRC" >&2 || die "the release's SBOM failed its check (above): no package"

# Depends: the packages the release's addons link and the station needs (systemd/runtime-packages,
# which tools/check-bundle.mjs checks against the addons' NEEDED entries), libc6 at least the newest
# glibc symbol version an addon needs (manifest glibcMin), systemd >= 250 (the unit's
# ExecSearchPath=), and Debian's nodejs where the release brings no Node of its own: worked out by
# scripts/release/sbom.mjs, the same list the SBOMs declare.
mapfile -t depends < <(node "$ROOT/scripts/release/sbom.mjs" depends "$SRC" --glibc-min "$(field glibcMin)" | tr ',' '\n' | sed 's/^ *//')

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
conffiles=(/etc/default/pickup-station)
# The operating system's security fixes and the vendor's releases, unattended (a conffile), and the
# reboot an update needs, once the station is free: the path unit enabled by the package's own link.
install -D -m 0644 "$HERE/debian/unattended-upgrades.conf" "$PKG/etc/apt/apt.conf.d/52pickup-station-unattended-upgrades"
conffiles+=(/etc/apt/apt.conf.d/52pickup-station-unattended-upgrades)
for unit in pickup-station-reboot.path pickup-station-reboot.service; do
  install -m 0644 "$HERE/debian/$unit" "$PKG/usr/lib/systemd/system/$unit"
done
install -d -m 0755 "$PKG/usr/lib/systemd/system/paths.target.wants"
ln -s ../pickup-station-reboot.path "$PKG/usr/lib/systemd/system/paths.target.wants/pickup-station-reboot.path"
# USBGuard's settings for the station (a conffile: an administrator's edits are dpkg's to keep) and
# the drop-in that points usbguard.service at them; the profile's rules are install.sh's to write.
if [ -f "$SRC/systemd/usbguard-daemon.conf" ]; then
  install -D -m 0600 "$SRC/systemd/usbguard-daemon.conf" "$PKG/etc/usbguard/pickup-station-daemon.conf"
  install -D -m 0644 "$SRC/systemd/usbguard-dropin.conf" "$PKG/usr/lib/systemd/system/usbguard.service.d/pickup-station.conf"
  conffiles+=(/etc/usbguard/pickup-station-daemon.conf)
fi
# The kiosk's lockdown, from the release (older releases have none).
if [ -f "$SRC/systemd/chromium-policy.json" ]; then
  install -D -m 0644 "$SRC/systemd/chromium-policy.json" "$PKG/etc/pickup-station-kiosk/chromium-policy.json"
  install -d -m 0755 "$PKG/etc/chromium/policies/managed"
  ln -s ../../../pickup-station-kiosk/chromium-policy.json "$PKG/etc/chromium/policies/managed/pickup-station.json"
  conffiles+=(/etc/pickup-station-kiosk/chromium-policy.json)
fi
if [ -f "$SRC/systemd/logind-kiosk.conf" ]; then
  install -D -m 0644 "$SRC/systemd/logind-kiosk.conf" "$PKG/usr/lib/systemd/logind.conf.d/pickup-station.conf"
fi
if [ -f "$SRC/systemd/system-keys.conf" ]; then
  install -D -m 0644 "$SRC/systemd/system-keys.conf" "$PKG/usr/lib/systemd/system.conf.d/pickup-station.conf"
  install -d -m 0755 "$PKG/usr/lib/systemd/system"
  for tty in tty1 tty2 tty3 tty4 tty5 tty6; do ln -s /dev/null "$PKG/usr/lib/systemd/system/getty@$tty.service"; done
fi
if [ -f "$SRC/systemd/polkit-kiosk.rules" ]; then
  install -D -m 0644 "$SRC/systemd/polkit-kiosk.rules" "$PKG/usr/share/polkit-1/rules.d/50-pickup-station-kiosk.rules"
fi
if [ -f "$SRC/systemd/sysctl-kiosk.conf" ]; then
  install -D -m 0644 "$SRC/systemd/sysctl-kiosk.conf" "$PKG/usr/lib/sysctl.d/90-pickup-station.conf"
fi
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
# The maintained changelog when its top entry is this version (its security entries, urgency=high for
# a security fix: what apt-listchanges and a fleet's tooling read); a one-line entry otherwise.
if [ "$(sed -n '1s/^pickup-station (\([^)]*\)).*/\1/p' "$HERE/debian/changelog" 2>/dev/null)" = "$VERSION" ]; then
  gzip -9nc "$HERE/debian/changelog" >"$PKG/usr/share/doc/pickup-station/changelog.gz"
else
  printf 'pickup-station (%s) stable; urgency=medium\n\n  * Release %s (commit %s).\n\n -- Pickup Station Maintainers <pickup-station@example.org>  %s\n' \
    "$VERSION" "$VERSION" "${commit:-unknown}" "$(date -R -u -d "$(field builtAt)" 2>/dev/null || date -R -u)" |
    gzip -9n >"$PKG/usr/share/doc/pickup-station/changelog.gz"
fi
# What an operator must do about a release (apt-listchanges shows it before the upgrade).
[ ! -f "$HERE/debian/NEWS" ] || gzip -9nc "$HERE/debian/NEWS" >"$PKG/usr/share/doc/pickup-station/NEWS.Debian.gz"
# Who to tell about a flaw, until when fixes come, the policy, and what is in the package.
install -m 0644 "$SRC/vendor.json" "$SRC/security.txt" "$PKG/usr/share/doc/pickup-station/"
[ ! -f "$SRC/SECURITY.md" ] || install -m 0644 "$SRC/SECURITY.md" "$PKG/usr/share/doc/pickup-station/SECURITY.md"
# The SBOM's formulation: the tools that made the release (its manifest's record) and this package
# (dpkg-deb and the xz library it compresses with, gzip for the changelogs), with their versions.
node -e 'console.log(JSON.stringify(require(process.argv[1]).builtWith?.toolchain ?? []))' "$SRC/manifest.json" >"$WORK/toolchain-release.json"
dpkg-query -W -f='${Package}\t${Version}\t${Architecture}\n' dpkg "liblzma5:$(dpkg --print-architecture)" gzip |
  node -e 'let t = ""; process.stdin.on("data", (d) => (t += d)).on("end", () => console.log(JSON.stringify(t.trim().split("\n").map((l) => {
    const [pkg, version, architecture] = l.split("\t"); return { package: pkg, version, architecture }; }))));' >"$WORK/toolchain-deb.json"
node "$ROOT/scripts/release/sbom.mjs" write "$SRC" --kind deb --arch "$ARCH" --deb-arch "$DEB_ARCH" \
  --time "${SOURCE_DATE_EPOCH:-$(stat -c %Y "$SRC/manifest.json")}" --depends "$DEPENDS" \
  --toolchain "$WORK/toolchain-release.json" --toolchain "$WORK/toolchain-deb.json" --out "$PKG/usr/share/doc/pickup-station/sbom.cdx.json" >&2
node "$ROOT/scripts/release/check-sbom.mjs" "$PKG/usr/share/doc/pickup-station/sbom.cdx.json" --tree "$SRC" >&2 || die "the package's SBOM failed its check (above): no package"
chmod 0644 "$PKG/usr/share/doc/pickup-station/"*

for f in preinst postinst prerm postrm; do install -m 0755 "$HERE/debian/$f" "$PKG/DEBIAN/$f"; done
printf '%s\n' "${conffiles[@]}" >"$PKG/DEBIAN/conffiles"
# dpkg calls the postinst (triggered) when the kiosk's Chromium changes: it asks for the reboot.
install -m 0644 "$HERE/debian/triggers" "$PKG/DEBIAN/triggers"
chmod -R u+rwX,go+rX,go-w "$PKG"
# USBGuard refuses a settings file anyone but root may read.
if [ -f "$PKG/etc/usbguard/pickup-station-daemon.conf" ]; then chmod 0600 "$PKG/etc/usbguard/pickup-station-daemon.conf"; fi
SIZE=$(du -sk --exclude=DEBIAN "$PKG" | cut -f1)
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$DEB_ARCH/" -e "s/@DEPENDS@/$DEPENDS/" -e "s/@SIZE@/$SIZE/" \
  "$HERE/debian/control.in" >"$PKG/DEBIAN/control"
(cd "$PKG" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$PKG/DEBIAN/md5sums"
chmod 0644 "$PKG/DEBIAN/control" "$PKG/DEBIAN/conffiles" "$PKG/DEBIAN/md5sums" "$PKG/DEBIAN/triggers"

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
# file themselves (Replaces: it moves here). Made by keyring.sh, which also makes it on its own
# when the keys change between releases (a rotation, a revocation).
if [ -n "$KEY" ]; then
  SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH bash "$HERE/keyring.sh" --version "${KEYRING_VERSION:-$VERSION}" --key "$KEY" --out "$OUT"
fi
