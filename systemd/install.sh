#!/usr/bin/env bash
# Install, upgrade, roll back or remove the pickup-station service on Raspberry Pi OS (Bookworm,
# Trixie; arm64 or armhf) or any Debian with systemd.
#
#   sudo systemd/install.sh                      build this source checkout and install it
#   sudo ./install.sh --bundle pickup-station-<version>-linux-arm64.tar.gz
#                                                install from a release bundle (offline: no compiler,
#                                                no registry)
#   sudo ./install.sh --rollback                 switch back to the previous release
#   sudo ./install.sh --uninstall [--purge]      remove (keeps config and credentials unless --purge)
#   install.sh --package-release DIR             what the Debian package's postinst runs: install the
#                                                release tree DIR the package unpacked
#
# Layout it creates (all root-owned unless said):
#   /opt/pickup-station/releases/<version>/   one release: app/ node_modules/ package.json systemd/
#                                             hardware/ manifest.json, node/ when it ships its own
#                                             Node (the unit runs that one) (0755/0644)
#   /opt/pickup-station/current  -> releases/<version>   what the unit runs (switched atomically)
#   /opt/pickup-station/previous -> releases/<older>     what --rollback goes back to
#                                             (only current and previous are kept)
#   /etc/systemd/system/pickup-station.service   copied from the active release
#   /etc/systemd/system/pickup-station-kiosk.socket  likewise, not enabled: a kiosk station enables
#                                             it (hardware/DISPLAYS.md) so that systemd holds the
#                                             kiosk page's port across station restarts
#   /etc/udev/rules.d/99-pickup-station.rules    copied from the active release's hardware/
#   /etc/pickup-station/                      0750 root:pickup-station
#   /etc/pickup-station/config.json           0640 root:pickup-station, from the template once,
#                                             never overwritten
#   /etc/pickup-station/credentials/          0700 root:root
#     station-password, technician-tokens     0600 root:root (systemd's LoadCredential= reads them
#                                             as root and hands the service a private copy)
#   /usr/local/bin/pickup-station, stationctl small wrappers running the current release
#   user pickup-station (system, no login, home /var/lib/pickup-station = the unit's StateDirectory),
#   group pickup-station; groups gpio, dialout, pickup-hid, i2c, audio created if missing.
#
# A release bundle is a .tar.gz whose top level (or single top directory) holds app/ (main.js,
# stationctl.js, ...), node_modules/ (production only, addons built for the target), package.json,
# systemd/, hardware/, manifest.json, and optionally node/bin/node: the Node the unit then runs
# (the arm64 release ships Node 24; without it the unit runs Debian's /usr/bin/node, >= 20.11).
# manifest.json: {"name": "pickup-station", "version": "<semver>", "arch": "arm64" | "armv7" |
# "x64" (optional), "nodeMajor": 24 (optional: the Node major the addons were built for),
# "checksums": {"<path in bundle>": "<sha256 hex>", ...} (optional: each listed file is verified;
# a bundled node/bin/node must be listed: it is checked with sha256sum before it is run)}. The
# version names the release directory.
#
# A bundle is signed: FILE.sig beside it, a detached OpenPGP signature checked with gpgv (on every
# Debian and Pi OS: apt depends on it) against the vendor's public key,
# /usr/share/keyrings/pickup-station-archive-keyring.gpg (installed with the first release from
# --key FILE; the Debian package ships it too). Nothing of the bundle is unpacked or run before
# the signature checks out; --insecure-skip-signature installs an unsigned one, and says so in the
# journal. The sha256 manifest then checks every file.
#
# An upgrade proves itself: the old release is stopped (its ExecStopPost drives every lock OFF),
# current switches, the new one starts, and within --health-wait seconds (default 180) it must be
# active with READY=1, answer /healthz on its technician port, and have finished its first /state
# (answered, or deactivated with the server unreachable) — as its /run/pickup-station/release.json
# says. If not, current switches back, the previous release starts again (its ExecStartPre drives
# every lock OFF first), an error line naming both versions and the reason goes to the journal,
# /opt/pickup-station/install-status.json records installed vs running (the station's
# pickup_station_release_mismatch metric), and the script exits 1.
#
# Idempotent: a second run with the same input changes nothing and restarts nothing.
#
# An upgrade or a rollback does not restart a station that someone is using: while the daemon holds
# its update lock (/run/pickup-station/updates.lock: a box action in progress, a box open, an event
# in flight, a PIN being typed), it waits — at most --lock-wait seconds (default 600), saying why —
# before it changes anything; --force does not wait. (A stop drains anyway: the event in flight is
# answered and an answered box-open carried out before the locks go OFF.)
#
# Testing without touching this machine: --root DIR (or DESTDIR=DIR) installs into DIR. Files
# get their real modes and owners (numeric ids from DIR/etc/passwd and DIR/etc/group, which must
# exist; users and groups are added there with useradd/groupadd --prefix DIR). Nothing is run
# against the live system: systemctl, udevadm and apt-get are printed as "would run: ..." and, if
# PICKUP_INSTALL_RECORD is set, appended to that file.
set -euo pipefail
umask 022

readonly NAME=pickup-station
readonly MIN_NODE=20.11.0
readonly SUPPLEMENTARY_GROUPS=(gpio dialout pickup-hid i2c audio)
# What a release needs on a board (the libraries its addons link, the libgpiod tools) comes with the
# release: its systemd/runtime-packages, which its tools/check-bundle.mjs checks against the addons.
# A release without that file (older bundles) gets this list.
readonly FALLBACK_RUNTIME_PACKAGES=(libusb-1.0-0 libudev1 libstdc++6 libgcc-s1 gpiod procps)
readonly BUILD_PACKAGES=(build-essential python3)       # node-gyp, for onoff's epoll addon (source installs only)

ROOT="${DESTDIR:-}"
MODE=install
BUNDLE=""
PURGE=0
START=1
PASSWORD_FILE=""
NODE_BIN="${NODE:-/usr/bin/node}"   # the board's node; a bundle's own node/bin/node replaces it
CHANGED=0       # something the running service depends on changed: restart it
FORCE=0         # do not wait for the station's update lock
LOCK_WAIT=600   # seconds to wait for it
HEALTH_WAIT=180 # seconds a new release has to prove itself healthy before it is rolled back
PACKAGE_RELEASE=""  # --package-release DIR: the release tree the Debian package unpacked
KEY_FILE=""     # --key FILE: the vendor's public key (else the installed one)
SIGNATURE=""    # --signature FILE (default: the bundle's name + .sig)
SKIP_SIGNATURE=0
TMP=""

say() { printf '%s: %s\n' "$NAME" "$*"; }
die() { printf '%s: error: %s\n' "$NAME" "$*" >&2; exit 1; }

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  cat <<EOF

Options:
  --bundle FILE          install or upgrade from a release bundle (offline)
  --rollback             activate the previous release
  --uninstall            stop, disable and remove the service and the releases
  --purge                with --uninstall: also /etc/pickup-station, /var/lib/pickup-station and
                         the user and group pickup-station
  --password-file FILE   install FILE as the station-password credential (0600 root)
  --no-start             install and enable, but do not (re)start
  --lock-wait SECONDS    wait at most this long for the station to be free (default 600)
  --health-wait SECONDS  how long a new release has to prove healthy before it is rolled back
                         (default 180)
  --force                do not wait for the station to be free (a box open, an event in flight)
  --key FILE             the vendor's public key (binary OpenPGP, gpg --export) the bundle's
                         signature is checked against; installed for the next upgrades
  --signature FILE       the bundle's detached signature (default: the bundle's name + .sig)
  --insecure-skip-signature   install a bundle without checking its signature (logged)
  --package-release DIR  install the release tree DIR (the Debian package's postinst)
  --root DIR             install into DIR, touch nothing else (also: DESTDIR=DIR)
  -h, --help             this text
EOF
}

while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) [ $# -ge 2 ] || die "--bundle needs a file"; BUNDLE="$2"; shift 2 ;;
    --bundle=*) BUNDLE="${1#*=}"; shift ;;
    --rollback) MODE=rollback; shift ;;
    --uninstall) MODE=uninstall; shift ;;
    --purge) PURGE=1; shift ;;
    --password-file) [ $# -ge 2 ] || die "--password-file needs a file"; PASSWORD_FILE="$2"; shift 2 ;;
    --no-start) START=0; shift ;;
    --force) FORCE=1; shift ;;
    --lock-wait) [ $# -ge 2 ] || die "--lock-wait needs seconds"; LOCK_WAIT="$2"; shift 2 ;;
    --lock-wait=*) LOCK_WAIT="${1#*=}"; shift ;;
    --health-wait) [ $# -ge 2 ] || die "--health-wait needs seconds"; HEALTH_WAIT="$2"; shift 2 ;;
    --health-wait=*) HEALTH_WAIT="${1#*=}"; shift ;;
    --key) [ $# -ge 2 ] || die "--key needs a file"; KEY_FILE="$2"; shift 2 ;;
    --signature) [ $# -ge 2 ] || die "--signature needs a file"; SIGNATURE="$2"; shift 2 ;;
    --insecure-skip-signature) SKIP_SIGNATURE=1; shift ;;
    --package-release) [ $# -ge 2 ] || die "--package-release needs a directory"; PACKAGE_RELEASE="$2"; shift 2 ;;
    --root) [ $# -ge 2 ] || die "--root needs a directory"; ROOT="$2"; shift 2 ;;
    --root=*) ROOT="${1#*=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option: $1 (see --help)" ;;
  esac
done
[ "$PURGE" = 0 ] || [ "$MODE" = uninstall ] || die "--purge only goes with --uninstall"
[ -z "$BUNDLE" ] || [ "$MODE" = install ] || die "--bundle does not go with --$MODE"
[ -z "$PACKAGE_RELEASE" ] || [ -z "$BUNDLE" ] || die "--package-release does not go with --bundle"
[ -z "$PACKAGE_RELEASE" ] || [ "$MODE" = install ] || die "--package-release does not go with --$MODE"
case "$LOCK_WAIT" in ''|*[!0-9]*) die "--lock-wait needs a whole number of seconds, got: $LOCK_WAIT" ;; esac
case "$HEALTH_WAIT" in ''|*[!0-9]*|0) die "--health-wait needs a whole number of seconds > 0, got: $HEALTH_WAIT" ;; esac

if [ -n "$ROOT" ]; then
  ROOT="$(cd "$ROOT" 2>/dev/null && pwd)" || die "--root: no such directory"
  [ "$ROOT" != / ] || ROOT=""
fi
LIVE=1; [ -z "$ROOT" ] || LIVE=0
[ "$(id -u)" = 0 ] || die "must run as root (it creates a user, and owns files as root and $NAME)"

readonly OPT="$ROOT/opt/$NAME"
readonly RELEASES="$OPT/releases"
readonly ETC="$ROOT/etc/$NAME"
readonly CREDS="$ETC/credentials"
readonly UNIT_DEST="$ROOT/etc/systemd/system/$NAME.service"
readonly KIOSK_SOCKET_DEST="$ROOT/etc/systemd/system/$NAME-kiosk.socket"
readonly UDEV_DEST="$ROOT/etc/udev/rules.d/99-$NAME.rules"
readonly BIN="$ROOT/usr/local/bin"
readonly VENDOR_KEY="$ROOT/usr/share/keyrings/$NAME-archive-keyring.gpg"
readonly INSTALL_STATUS="$OPT/install-status.json"
readonly RELEASE_STATUS="$ROOT/run/$NAME/release.json"
# Installed by the Debian package: dpkg owns the unit (/lib/systemd/system), the udev rules and the
# commands (/usr/bin); the releases under /opt are still this script's.
readonly PACKAGED_UNIT="$ROOT/lib/systemd/system/$NAME.service"
PACKAGED=0
if [ -n "$PACKAGE_RELEASE" ] || [ -f "$ROOT/usr/lib/$NAME/release/manifest.json" ]; then PACKAGED=1; fi

cleanup() {
  if [ -n "$TMP" ]; then rm -rf "$TMP"; fi
  rm -rf "/var/tmp/$NAME-stage"
}
trap cleanup EXIT

# --- the live system, or a record of what would be done to it --------------------------------
host() {
  if [ "$LIVE" = 1 ]; then
    "$@"
  else
    say "would run: $*"
    if [ -n "${PICKUP_INSTALL_RECORD:-}" ]; then printf '%s\n' "$*" >>"$PICKUP_INSTALL_RECORD"; fi
  fi
}

# useradd/groupadd/userdel/groupdel on the target's /etc files (--prefix for a --root install).
accounts() {
  local cmd="$1"; shift
  if [ "$LIVE" = 1 ]; then "$cmd" "$@"; else "$cmd" --prefix "$ROOT" "$@"; fi
}

id_of() { # FILE NAME -> numeric id from a passwd/group file of the target
  awk -F: -v n="$2" '$1 == n { print $3; found = 1 } END { exit !found }' "$ROOT/etc/$1"
}
uid_of() { id_of passwd "$1" || die "no user $1 in $ROOT/etc/passwd"; }
gid_of() { id_of group "$1" || die "no group $1 in $ROOT/etc/group"; }

# --- idempotent file operations (each sets CHANGED only when something changed) -------------
# ensure_dir DIR MODE OWNER GROUP
ensure_dir() {
  local dir="$1" mode="$2" uid gid
  uid="$(uid_of "$3")"; gid="$(gid_of "$4")"
  if [ ! -d "$dir" ]; then
    mkdir -p "$dir" || die "cannot create $dir"
  fi
  if [ "$(stat -c '%a %u %g' "$dir")" != "${mode#0} $uid $gid" ]; then
    chown "$uid:$gid" "$dir" || die "cannot chown $dir"
    chmod "$mode" "$dir" || die "cannot chmod $dir"
  fi
}

# ensure_file SRC DEST MODE OWNER GROUP [--keep]: copy unless identical; --keep: never replace
# an existing DEST's content (config), only create it.
ensure_file() {
  local src="$1" dest="$2" mode="$3" uid gid
  uid="$(uid_of "$4")"; gid="$(gid_of "$5")"
  if [ -e "$dest" ] && [ "${6:-}" = --keep ]; then
    return 0
  fi
  if [ -f "$dest" ] && cmp -s "$src" "$dest" && [ "$(stat -c '%a %u %g' "$dest")" = "${mode#0} $uid $gid" ]; then
    return 1
  fi
  # Functions called in an `if` run without set -e: every step checks for itself.
  mkdir -p "$(dirname "$dest")" || die "cannot create $(dirname "$dest")"
  install -m "$mode" -o "$uid" -g "$gid" "$src" "$dest.new.$$" || die "cannot write $dest"
  mv -f "$dest.new.$$" "$dest" || die "cannot write $dest"
  return 0
}

# ensure_link TARGET LINK: atomic switch (rename over the old link).
ensure_link() {
  if [ -L "$2" ] && [ "$(readlink "$2")" = "$1" ]; then return 1; fi
  ln -sfn "$1" "$2.new.$$" || die "cannot create $2"
  mv -fT "$2.new.$$" "$2" || die "cannot point $2 to $1"
  return 0
}

# --- checks -----------------------------------------------------------------------------------
version_ge() { # A >= B, dotted numbers
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

check_node() {
  local v
  command -v "$NODE_BIN" >/dev/null 2>&1 || die "no Node.js at $NODE_BIN (the unit runs /usr/bin/node unless the release ships its own).
  Node >= $MIN_NODE is needed. Raspberry Pi OS Trixie: apt-get install nodejs.
  Bookworm ships Node 18: install Node 20 or 22 from NodeSource's Debian packages first."
  v="$("$NODE_BIN" --version 2>/dev/null)" || die "$NODE_BIN --version failed"
  v="${v#v}"
  version_ge "$v" "$MIN_NODE" || die "Node $v at $NODE_BIN is too old: $MIN_NODE or newer is needed (Bookworm's nodejs is 18: use NodeSource's Node 20 or 22)"
  NODE_VERSION="$v"
}

# ensure_packages required|optional PKG...: apt-get install what is missing (live systems only).
ensure_packages() {
  local kind="$1"; shift
  local missing=() p
  if [ "$LIVE" = 0 ]; then
    host apt-get install -y --no-install-recommends "$@"
    return 0
  fi
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ "${#missing[@]}" -gt 0 ] || return 0
  say "installing Debian packages: ${missing[*]}"
  # A fresh image may have no package lists yet: update once and retry.
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" &&
    ! { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; }; then
    [ "$kind" = required ] && die "could not install ${missing[*]}"
    say "warning: could not install ${missing[*]} (offline?). Without libusb-1.0-0 and libudev1 no HID"
    say "  scanner or keypad loads; without gpiod the GPIO character-device backend cannot run. Install them"
    say "  (copy the .deb files over with the bundle: apt-get download ${missing[*]}) and run this again."
  fi
}

# runtime_packages_of DIR: the package names of DIR/systemd/runtime-packages, one per line
runtime_packages_of() {
  local list="$1/systemd/runtime-packages"
  if [ -f "$list" ]; then
    sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list" | awk '{ print $1 }'
  else
    printf '%s\n' "${FALLBACK_RUNTIME_PACKAGES[@]}"
  fi
}

target_arch() {
  case "$(uname -m)" in
    aarch64|arm64) echo arm64 ;;
    armv7l|armv6l|armhf) echo armv7 ;;
    x86_64) echo x64 ;;
    *) uname -m ;;
  esac
}

# --- users and groups -------------------------------------------------------------------------
ensure_accounts() {
  if [ ! -f "$ROOT/etc/passwd" ] || [ ! -f "$ROOT/etc/group" ]; then die "$ROOT/etc/passwd and $ROOT/etc/group must exist"; fi
  local g
  for g in "${SUPPLEMENTARY_GROUPS[@]}" "$NAME"; do
    if ! id_of group "$g" >/dev/null; then
      accounts groupadd --system "$g"
      say "created group $g"
    fi
  done
  if ! id_of passwd "$NAME" >/dev/null; then
    accounts useradd --system --gid "$NAME" --home-dir "/var/lib/$NAME" --no-create-home \
      --shell /usr/sbin/nologin --comment "library pickup station" "$NAME"
    say "created system user $NAME (groups come from the unit's SupplementaryGroups=)"
  fi
}

# --- getting a release ------------------------------------------------------------------------
manifest_field() { # FILE EXPR -> prints the value ('' if absent)
  "$NODE_BIN" -e '
    const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const v = process.argv[2].split(".").reduce((o, k) => (o == null ? undefined : o[k]), m);
    process.stdout.write(v == null ? "" : String(v));' "$1" "$2"
}

verify_checksums() { # DIR: every file listed in manifest.checksums matches
  "$NODE_BIN" -e '
    const fs = require("fs"), path = require("path"), crypto = require("crypto");
    const dir = process.argv[1];
    const sums = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")).checksums || {};
    let bad = 0;
    for (const [file, want] of Object.entries(sums)) {
      const p = path.join(dir, file);
      if (!p.startsWith(dir + path.sep)) { console.error("outside the bundle: " + file); bad++; continue; }
      let got = "";
      try { got = crypto.createHash("sha256").update(fs.readFileSync(p)).digest("hex"); } catch { got = "(missing)"; }
      if (got !== want) { console.error("checksum mismatch: " + file + " " + got); bad++; }
    }
    process.exit(bad ? 1 : 0);' "$1" || die "the bundle is damaged (checksums in manifest.json do not match)"
}

# journal PRIORITY MESSAGE: a line in the system journal (syslog identifier pickup-station-install)
# besides the output: what apt or Ansible print scrolls away, the journal stays.
journal() {
  if [ "$LIVE" = 1 ]; then
    if command -v logger >/dev/null 2>&1; then logger -t "$NAME-install" -p "daemon.$1" -- "$2" || true; fi
  else
    host logger -t "$NAME-install" -p "daemon.$1" -- "$2"
  fi
}

# verify_signature FILE: FILE.sig (or --signature) is a detached OpenPGP signature of FILE by the
# vendor's key. Runs before anything of the bundle is unpacked.
verify_signature() {
  local bundle="$1" sig="${SIGNATURE:-$1.sig}" key="${KEY_FILE:-$VENDOR_KEY}" out
  if [ "$SKIP_SIGNATURE" = 1 ]; then
    say "WARNING: --insecure-skip-signature: installing $(basename "$bundle") without checking who made it"
    journal warning "installing $(basename "$bundle") without checking its signature (--insecure-skip-signature)"
    return 0
  fi
  [ -f "$sig" ] || die "no signature $sig: refusing an unsigned release (--insecure-skip-signature installs it anyway)"
  [ -f "$key" ] || die "no vendor key $key: give the vendor's public key with --key FILE (it is installed with the first release)"
  command -v gpgv >/dev/null 2>&1 || die "gpgv is missing (Debian package gpgv): cannot check the signature"
  mkdir -p "$TMP/gnupg" && chmod 0700 "$TMP/gnupg"
  if ! out="$(gpgv --homedir "$TMP/gnupg" --status-fd 1 --keyring "$(cd "$(dirname "$key")" && pwd)/$(basename "$key")" "$sig" "$bundle" 2>&1)" ||
    ! grep -q '^\[GNUPG:\] VALIDSIG ' <<<"$out"; then
    journal err "refused $(basename "$bundle"): its signature does not check out against $key"
    die "bad signature: $(basename "$bundle") is not signed by the vendor key $key ($(grep -o 'BADSIG\|NO_PUBKEY\|NODATA\|ERRSIG' <<<"$out" | head -n 1 || true))"
  fi
  say "signature ok: signed by $(sed -n 's/^\[GNUPG:\] VALIDSIG \([0-9A-F]*\) .*/\1/p' <<<"$out" | head -n 1)"
}

# extract_bundle FILE -> sets STAGE to the directory holding manifest.json (tar only: no node yet)
extract_bundle() {
  [ -f "$1" ] || die "no bundle file $1"
  mkdir -p "$TMP/bundle"
  tar -xzf "$1" -C "$TMP/bundle" --no-same-owner || die "cannot unpack $1 (not a .tar.gz?)"
  if [ -f "$TMP/bundle/manifest.json" ]; then
    STAGE="$TMP/bundle"
  else
    local tops=("$TMP"/bundle/*)
    if [ "${#tops[@]}" != 1 ] || [ ! -f "${tops[0]}/manifest.json" ]; then die "no manifest.json at the top of $1"; fi
    STAGE="${tops[0]}"
  fi
}

# choose_node: the bundle's own node/bin/node when it ships one, else the board's ($NODE_BIN, >=
# MIN_NODE). A bundled node is checked with sha256sum against manifest.json before it is run at
# all, then must run here (architecture, glibc); it then does the manifest work below too.
choose_node() {
  local bundled="$STAGE/node/bin/node" want got v
  if [ ! -e "$bundled" ]; then
    check_node
    return 0
  fi
  want="$(grep -o '"node/bin/node": *"[0-9a-f]\{64\}"' "$STAGE/manifest.json" | grep -o '[0-9a-f]\{64\}' || true)"
  [ -n "$want" ] || die "the bundle ships node/bin/node but manifest.json has no checksum for it"
  got="$(sha256sum "$bundled" | cut -d' ' -f1)"
  [ "$got" = "$want" ] || die "the bundle is damaged (checksum mismatch: node/bin/node)"
  v="$("$bundled" --version 2>&1)" || die "the bundle's node/bin/node does not run on this board: ${v:-no output} (wrong architecture or glibc?)"
  NODE_BIN="$bundled"
  NODE_VERSION="${v#v}"
  say "the release ships Node $NODE_VERSION (node/bin/node): the unit runs it"
}

# verify_bundle: manifest, checksums, architecture and Node major of STAGE, with NODE_BIN
verify_bundle() {
  local f
  for f in app/main.js node_modules package.json systemd/$NAME.service; do
    [ -e "$STAGE/$f" ] || die "the bundle lacks $f"
  done
  [ "$(manifest_field "$STAGE/manifest.json" name)" = "$NAME" ] || die "manifest.json is not $NAME's"
  verify_checksums "$STAGE"
  local arch want_major
  arch="$(manifest_field "$STAGE/manifest.json" arch)"
  case "$arch" in arm) arch=armv7 ;; esac
  if [ -n "$arch" ] && [ "$LIVE" = 1 ] && [ "$arch" != "$(target_arch)" ]; then
    die "the bundle is for $arch, this board is $(target_arch)"
  fi
  want_major="$(manifest_field "$STAGE/manifest.json" nodeMajor)"
  if [ -n "$want_major" ] && [ "$want_major" != "${NODE_VERSION%%.*}" ]; then
    die "the bundle's native addons are built for Node $want_major, this board has Node $NODE_VERSION"
  fi
}

# build_from_source -> sets STAGE to a freshly built release tree
build_from_source() {
  local src
  src="$(cd "$(dirname "$0")/.." && pwd)"
  if [ ! -f "$src/package.json" ] || [ ! -f "$src/tsconfig.build.json" ]; then die "not a source checkout ($src): use --bundle FILE"; fi
  ensure_packages required "${BUILD_PACKAGES[@]}"
  say "building in $src"
  (cd "$src" && npm ci --no-audit --no-fund && npm run build)
  # A fixed staging path: node-gyp writes absolute paths into its build files, and a random one
  # would make every rebuild differ from the installed release (no idempotent re-run).
  STAGE="/var/tmp/$NAME-stage"
  rm -rf "$STAGE"
  mkdir -p "$STAGE"
  cp -a "$src/app" "$src/package.json" "$src/package-lock.json" "$src/systemd" "$STAGE/"
  [ -d "$src/hardware" ] && cp -a "$src/hardware" "$STAGE/"
  [ -f "$src/README.md" ] && cp -a "$src/README.md" "$STAGE/"
  [ -d "$src/docs" ] && cp -a "$src/docs" "$STAGE/"
  (cd "$STAGE" && npm ci --omit=dev --no-audit --no-fund)
  # Compiler intermediates are not needed at run time.
  rm -rf "$STAGE"/node_modules/*/build/Release/obj.target "$STAGE"/node_modules/*/build/Release/.deps
  local version rev=""
  version="$(manifest_field "$STAGE/package.json" version)"
  if command -v git >/dev/null && git -C "$src" rev-parse --short HEAD >/dev/null 2>&1; then
    rev="-$(git -C "$src" rev-parse --short HEAD)"
    git -C "$src" diff --quiet HEAD 2>/dev/null || rev="$rev-dirty"
  fi
  "$NODE_BIN" -e '
    const [version, arch, node] = process.argv.slice(1);
    process.stdout.write(JSON.stringify({ name: "pickup-station", version, arch, nodeMajor: Number(node.split(".")[0]), source: "built from a checkout" }, null, 2) + "\n");' \
    "$version$rev" "$(target_arch)" "$NODE_VERSION" >"$STAGE/manifest.json"
}

# install_release: copy STAGE to releases/<version> (unless identical); sets RELEASE
install_release() {
  local version dest tmpdest
  version="$(manifest_field "$STAGE/manifest.json" version)"
  [[ "$version" =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] || die "bad version in manifest.json: '$version'"
  RELEASE="$version"
  dest="$RELEASES/$version"
  ensure_dir "$OPT" 0755 root root
  ensure_dir "$RELEASES" 0755 root root
  if [ -d "$dest" ] && diff -r -q --no-dereference "$STAGE" "$dest" >/dev/null 2>&1; then
    say "release $version is already installed"
    return 0
  fi
  tmpdest="$RELEASES/.new-$version.$$"
  rm -rf "$tmpdest"
  # The package's tree: hard links (no second copy on the SD card). dpkg replaces a file by renaming
  # a new one over it, so the releases here keep their content when the package is upgraded.
  if [ "$PACKAGED" = 1 ] && [ -n "$PACKAGE_RELEASE" ] && cp -al "$STAGE" "$tmpdest" 2>/dev/null; then :; else
    rm -rf "$tmpdest"
    cp -a "$STAGE" "$tmpdest"
  fi
  chown -R 0:0 "$tmpdest"
  chmod -R u+rwX,go+rX,go-w "$tmpdest"
  if [ -d "$dest" ]; then
    # Same version, different content (a rebuilt checkout): replace it.
    mv "$dest" "$RELEASES/.old-$version.$$"
    mv "$tmpdest" "$dest"
    rm -rf "$RELEASES/.old-$version.$$"
    CHANGED=1
  else
    mv "$tmpdest" "$dest"
  fi
  say "installed release $version"
}

# --- activating a release: symlinks, unit, udev rules, wrappers -------------------------------
# The technicians' commands run the current release with the node its unit runs (its own
# node/bin/node, else /usr/bin/node), whatever the layout of that release (app/ since bundling;
# dist/src/ before: a rollback may activate one).
write_wrapper() { # NAME APP_ENTRY OLD_ENTRY
  local f="$TMP/wrapper-$1" r="/opt/$NAME/current"
  cat >"$f" <<EOF
#!/bin/sh
# Installed by $NAME install.sh: runs the current release.
node=/usr/bin/node
[ -x $r/node/bin/node ] && node=$r/node/bin/node
[ -f $r/$2 ] && exec "\$node" $r/$2 "\$@"
exec "\$node" $r/$3 "\$@"
EOF
  if ensure_file "$f" "$BIN/$1" 0755 root root; then :; fi
}

UNIT_CHANGED=0
UDEV_CHANGED=0
activate() { # VERSION: make it current; the old current becomes previous
  local version="$1" old=""
  [ -d "$RELEASES/$version" ] || die "no release $version"
  if [ -L "$OPT/current" ]; then old="$(readlink "$OPT/current")"; fi
  if [ "$old" != "releases/$version" ]; then
    if [ -n "$old" ] && [ -d "$OPT/$old" ]; then ensure_link "$old" "$OPT/previous" || true; fi
    ensure_link "releases/$version" "$OPT/current" || true
    CHANGED=1
    say "current release: $version${old:+ (previous: ${old#releases/})}"
  fi
  if [ "$PACKAGED" = 1 ]; then
    activate_packaged_unit "$version"
  else
    if ensure_file "$RELEASES/$version/systemd/$NAME.service" "$UNIT_DEST" 0644 root root; then UNIT_CHANGED=1; CHANGED=1; fi
    if [ -f "$RELEASES/$version/systemd/$NAME-kiosk.socket" ]; then
      if ensure_file "$RELEASES/$version/systemd/$NAME-kiosk.socket" "$KIOSK_SOCKET_DEST" 0644 root root; then UNIT_CHANGED=1; fi
    fi
    if [ -f "$RELEASES/$version/hardware/99-$NAME.rules" ]; then
      if ensure_file "$RELEASES/$version/hardware/99-$NAME.rules" "$UDEV_DEST" 0644 root root; then UDEV_CHANGED=1; fi
    fi
    mkdir -p "$BIN"
    write_wrapper "$NAME" app/main.js dist/src/main.js
    write_wrapper stationctl app/stationctl.js dist/src/cli/stationctl.js
  fi
  prune
}

# The package's unit is the one the package's release came with. A release rolled back to may have
# another: it goes into /etc/systemd/system (which overrides /lib) until the package's release is
# current again.
activate_packaged_unit() {
  local unit="$RELEASES/$1/systemd/$NAME.service"
  if [ -f "$PACKAGED_UNIT" ] && cmp -s "$unit" "$PACKAGED_UNIT"; then
    if [ -e "$UNIT_DEST" ]; then rm -f "$UNIT_DEST"; UNIT_CHANGED=1; CHANGED=1; fi
  elif ensure_file "$unit" "$UNIT_DEST" 0644 root root; then
    UNIT_CHANGED=1; CHANGED=1
    say "release $1 runs with its own unit: $UNIT_DEST"
  fi
}

prune() { # keep current and previous only
  local keep_c keep_p d
  keep_c="$(readlink "$OPT/current" 2>/dev/null || true)"
  keep_p="$(readlink "$OPT/previous" 2>/dev/null || true)"
  for d in "$RELEASES"/*/; do
    [ -d "$d" ] || continue
    d="releases/$(basename "$d")"
    if [ "$d" != "$keep_c" ] && [ "$d" != "$keep_p" ]; then
      rm -rf "${OPT:?}/$d"
      say "removed old release ${d#releases/}"
    fi
  done
}

# --- config and credentials -------------------------------------------------------------------
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
  if [ -n "$PASSWORD_FILE" ]; then
    [ -f "$PASSWORD_FILE" ] || die "no password file $PASSWORD_FILE"
    if ensure_file "$PASSWORD_FILE" "$CREDS/station-password" 0600 root root; then CHANGED=1; say "installed the station password"; fi
  fi
  # LoadCredential= of a missing file fails the start: an empty token list means "no technician
  # may log in" until one is added.
  if [ ! -e "$CREDS/technician-tokens" ]; then
    : >"$TMP/empty"
    ensure_file "$TMP/empty" "$CREDS/technician-tokens" 0600 root root || true
  fi
  local f
  for f in "$CREDS"/*; do
    [ -f "$f" ] || continue
    if [ "$(stat -c '%a %u %g' "$f")" != "600 0 0" ]; then chown 0:0 "$f"; chmod 0600 "$f"; fi
  done
}

# --- the service ------------------------------------------------------------------------------
# Whether this run ends with the service (re)started.
will_start() { [ "$START" = 1 ] && [ -f "$CREDS/station-password" ]; }

# systemd runs here (not a chroot, not an image being prepared).
systemd_running() { [ "$LIVE" = 0 ] || [ -d /run/systemd/system ]; }

current_version() { local c; c="$(readlink "$OPT/current" 2>/dev/null || true)"; echo "${c#releases/}"; }

# Before current switches to another release: the running one stops first, so its own
# ExecStopPost (safe-state of the release it runs) drives every lock OFF.
stop_for_switch() { # FROM TO
  [ -n "$1" ] && [ "$1" != "$2" ] && will_start && systemd_running || return 0
  host systemctl stop "$NAME"
}

apply_to_system() { # FROM: the release current was before this run ('' on a first install)
  if [ "$UNIT_CHANGED" = 1 ] && systemd_running; then host systemctl daemon-reload; fi
  if [ "$UDEV_CHANGED" = 1 ] && systemd_running; then
    host udevadm control --reload
    host udevadm trigger --subsystem-match=hidraw --subsystem-match=gpio --subsystem-match=tty
  fi
  enable_unit
  if [ "$START" = 0 ]; then
    say "not started (--no-start)"
  elif [ ! -f "$CREDS/station-password" ]; then
    say "not started yet: put the station password into /etc/$NAME/credentials/station-password (0600 root),"
    say "fill in /etc/$NAME/config.json, then: systemctl start $NAME"
  elif [ "$CHANGED" = 0 ]; then
    say "nothing changed"
  elif ! systemd_running; then
    say "systemd is not running here (a chroot or an image): $NAME starts at the next boot"
  else
    start_proven "$1" "$RELEASE"
  fi
}

# --- proving a release healthy, and going back when it is not --------------------------------
uptime_s() { cut -d. -f1 /proc/uptime; }   # monotonic (the wall clock may jump on a board's first NTP sync)

release_field() { # FIELD of the daemon's release.json ('' if none or null)
  sed -n "s/.*\"$1\":\(\"\([^\"]*\)\"\|\([0-9][0-9]*\)\).*/\2\3/p" "$RELEASE_STATUS" 2>/dev/null | head -n 1
}

# healthz_ok URL: the technician port's /healthz answers 200 {"ok":true} (http://host:port/healthz
# or unix:/path/healthz), asked with the node the current release runs.
healthz_ok() {
  local node=/usr/bin/node
  [ -x "$OPT/current/node/bin/node" ] && node="$OPT/current/node/bin/node"
  "$node" -e '
    const http = require("http");
    const url = process.argv[1];
    const unix = url.match(/^unix:(.*)\/healthz$/);
    const req = http.get(unix ? { socketPath: unix[1], path: "/healthz" } : url, { timeout: 3000 }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => {
        let ok = false;
        try { ok = res.statusCode === 200 && JSON.parse(body).ok === true; } catch {}
        if (!ok) console.error("HTTP " + res.statusCode);
        process.exit(ok ? 0 : 1);
      });
    });
    req.on("timeout", () => req.destroy(new Error("no answer in 3 s")));
    req.on("error", (e) => { console.error(e.message); process.exit(1); });' "$1" 2>&1
}

# health_now VERSION: 0 when the unit runs VERSION and it has proven itself; else WHY says what is
# missing, and FATAL is set when waiting longer cannot help (the process exited).
health_now() {
  local version="$1" state sub pid v first healthz out
  FATAL=""
  state="$(systemctl show -p ActiveState --value "$NAME")"
  sub="$(systemctl show -p SubState --value "$NAME")"
  if [ "$state" != active ]; then
    WHY="the unit is $state/$sub"
    case "$state/$sub" in
      activating/auto-restart | failed/* | inactive/*)
        FATAL="it exited ($state/$sub, result $(systemctl show -p Result --value "$NAME"), exit status $(systemctl show -p ExecMainStatus --value "$NAME"))" ;;
    esac
    return 1
  fi
  pid="$(systemctl show -p MainPID --value "$NAME")"
  if [ ! -f "$RELEASE_STATUS" ] || [ "$(release_field pid)" != "$pid" ]; then WHY="no $RELEASE_STATUS from its main process $pid"; return 1; fi
  v="$(release_field version)"
  if [ "$v" != "$version" ] && [ "${version#"$v"-}" = "$version" ]; then
    FATAL="the running daemon is version $v, not $version"; WHY="$FATAL"; return 1
  fi
  first="$(release_field firstState)"
  if [ "$first" = pending ] || [ -z "$first" ]; then WHY="its first /state has not finished"; return 1; fi
  healthz="$(release_field healthz)"
  if [ -n "$healthz" ] && ! out="$(healthz_ok "$healthz")"; then WHY="$healthz: ${out:-no answer}"; return 1; fi
  HEALTH_NOTE="first /state $first${healthz:+, $healthz ok}"
  return 0
}

# start_healthy VERSION: start the unit and wait (at most HEALTH_WAIT seconds in all) for VERSION
# to prove itself. Type=notify: start returns once READY=1 came, or fails when the process exits.
start_healthy() {
  local version="$1" deadline out rc=0 restarted=0
  deadline=$(( $(uptime_s) + HEALTH_WAIT ))
  systemctl reset-failed "$NAME" 2>/dev/null || true   # a release that failed before may have used up StartLimitBurst=
  out="$(timeout "$HEALTH_WAIT" systemctl start "$NAME" 2>&1)" || rc=$?
  if [ "$rc" = 124 ]; then WHY="no READY=1 within ${HEALTH_WAIT}s"; return 1; fi
  if [ "$rc" != 0 ]; then
    health_now "$version" || true
    WHY="it did not start: ${FATAL:-$out}"
    return 1
  fi
  while ! health_now "$version"; do
    # pickup-station-kiosk.socket starts the station on a connection: the kiosk browser, reconnecting
    # while the old release was stopped for the switch, may have started that one again. Once.
    if [ "$restarted" = 0 ] && [ "${FATAL#the running daemon is version}" != "$FATAL" ]; then
      restarted=1
      say "the old release was started again meanwhile (by the kiosk's socket): restarting into $version"
      systemctl restart "$NAME" || true
      continue
    fi
    if [ -n "$FATAL" ]; then WHY="$FATAL"; return 1; fi
    if [ "$(uptime_s)" -ge "$deadline" ]; then WHY="not healthy within ${HEALTH_WAIT}s: $WHY"; return 1; fi
    sleep 1
  done
}

write_install_status() { # INSTALLED RUNNING RESULT [REASON]
  "$NODE_BIN" -e '
    const [installed, running, result, reason] = process.argv.slice(1);
    process.stdout.write(JSON.stringify({ installed, running, result, ...(reason ? { reason } : {}), at: new Date().toISOString() }) + "\n");' \
    "$1" "$2" "$3" "${4:-}" >"$INSTALL_STATUS.new.$$" 2>/dev/null || printf '{"installed":"%s","running":"%s","result":"%s"}\n' "$1" "$2" "$3" >"$INSTALL_STATUS.new.$$"
  chmod 0644 "$INSTALL_STATUS.new.$$"
  mv -f "$INSTALL_STATUS.new.$$" "$INSTALL_STATUS"
}

# start_proven FROM TO: start TO; if it does not prove healthy in time, switch back to FROM.
start_proven() {
  local from="$1" to="$2" t0 why
  if [ "$LIVE" = 0 ]; then
    host systemctl restart "$NAME"
    say "would wait up to ${HEALTH_WAIT}s for $to to prove healthy"
    write_install_status "$to" "$to" ok
    return 0
  fi
  t0=$(uptime_s)
  if start_healthy "$to"; then
    say "release $to is healthy after $(( $(uptime_s) - t0 ))s ($HEALTH_NOTE)"
    write_install_status "$to" "$to" ok
    [ -z "$from" ] || [ "$from" = "$to" ] || journal info "upgraded from $from to $to: healthy ($HEALTH_NOTE)"
    return 0
  fi
  why="$WHY"
  if [ -z "$from" ] || [ "$from" = "$to" ] || [ ! -d "$RELEASES/$from" ]; then
    write_install_status "$to" none failed "$why"
    journal err "release $to is not healthy: $why (no previous release to go back to)"
    die "release $to is not healthy: $why. There is no previous release to go back to: journalctl -u $NAME"
  fi
  journal err "upgrade from $from to $to failed: $why; rolling back to $from"
  say "error: $to is not healthy: $why. Rolling back to $from"
  # current goes back first: the failed release's stop then runs the previous release's safe-state
  # (ExecStopPost resolves current when it runs), and so does the next start's ExecStartPre.
  UNIT_CHANGED=0
  activate "$from"
  if [ "$UNIT_CHANGED" = 1 ]; then systemctl daemon-reload; fi
  systemctl stop "$NAME" || true
  if start_healthy "$from"; then
    write_install_status "$to" "$from" rolled-back "$why"
    journal err "upgrade from $from to $to failed: $why; rolled back, $from is running again ($HEALTH_NOTE)"
    die "upgrade to $to failed ($why); rolled back: $from is running again after $(( $(uptime_s) - t0 ))s"
  fi
  write_install_status "$to" none rollback-failed "$why; $from: $WHY"
  journal crit "upgrade from $from to $to failed: $why; the rollback to $from failed too: $WHY"
  die "upgrade to $to failed ($why) and $from did not come back either ($WHY): journalctl -u $NAME"
}

# The [Install] symlink. With --root, systemctl --root edits only files under the root (it does
# not talk to the running systemd).
enable_unit() {
  if [ "$LIVE" = 1 ]; then
    systemctl is-enabled --quiet "$NAME" 2>/dev/null || systemctl enable --quiet "$NAME"
  else
    systemctl --root="$ROOT" is-enabled --quiet "$NAME" 2>/dev/null || systemctl --root="$ROOT" enable --quiet "$NAME" 2>/dev/null
  fi
}

disable_unit() {
  if [ "$LIVE" = 1 ]; then
    # Stopping runs ExecStopPost: every lock OFF before the files go.
    systemctl disable --now --quiet "$NAME" || true
  else
    host systemctl stop "$NAME"
    systemctl --root="$ROOT" disable --quiet "$NAME" 2>/dev/null || true
  fi
}

# --- the update lock --------------------------------------------------------------------------
# The daemon writes {"pid":N,"reason":"box 3 is open","since":"..."} while someone uses the station
# (src/systemd/update-lock.ts) and removes it when the station is free; systemd removes the whole
# runtime directory when the service stops. A lock whose pid is not running is stale.
readonly UPDATE_LOCK="$ROOT/run/$NAME/updates.lock"

lock_field() { # FIELD: a string or number field of the lock file ("" if none)
  sed -n "s/.*\"$1\":\(\"\([^\"]*\)\"\|\([0-9][0-9]*\)\).*/\2\3/p" "$UPDATE_LOCK" 2>/dev/null | head -n 1
}

lock_held() {
  [ -f "$UPDATE_LOCK" ] || return 1
  local pid
  pid="$(lock_field pid)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

wait_for_station() { # before anything the running service depends on changes
  lock_held || return 0
  if [ "$FORCE" = 1 ]; then
    say "the station is in use ($(lock_field reason)); --force: not waiting"
    return 0
  fi
  say "waiting for the station to be free: $(lock_field reason) (at most ${LOCK_WAIT}s; --force does not wait)"
  local waited=0
  while lock_held; do
    if [ "$waited" -ge "$LOCK_WAIT" ]; then
      die "the station is still in use after ${LOCK_WAIT}s ($(lock_field reason)); nothing was changed. Try again later, or use --force"
    fi
    sleep 1
    waited=$((waited + 1))
  done
  say "the station is free (waited ${waited}s)"
}

# --- modes ------------------------------------------------------------------------------------
do_install() {
  TMP="$(mktemp -d)"
  if [ -n "$PACKAGE_RELEASE" ]; then
    [ -f "$PACKAGE_RELEASE/manifest.json" ] || die "no release in $PACKAGE_RELEASE (manifest.json)"
    STAGE="$(cd "$PACKAGE_RELEASE" && pwd)"
    choose_node
    verify_bundle
  elif [ -n "$BUNDLE" ]; then
    [ -f "$BUNDLE" ] || die "no bundle file $BUNDLE"
    verify_signature "$BUNDLE"
    extract_bundle "$BUNDLE"
    choose_node
    verify_bundle
  else
    check_node
    build_from_source
  fi
  local runtime_packages=()
  mapfile -t runtime_packages < <(runtime_packages_of "$STAGE")
  # A package's Depends: brought them (and dpkg holds the lock apt-get would need).
  [ "$PACKAGED" = 1 ] || ensure_packages optional "${runtime_packages[@]}"
  ensure_accounts
  wait_for_station
  install_release
  ensure_config
  local from
  from="$(current_version)"
  stop_for_switch "$from" "$RELEASE"
  activate "$RELEASE"
  if [ -n "$KEY_FILE" ] && [ "$PACKAGED" = 0 ] && ensure_file "$KEY_FILE" "$VENDOR_KEY" 0644 root root; then
    say "installed the vendor key $VENDOR_KEY: the next bundles are checked against it"
  fi
  apply_to_system "$from"
}

do_rollback() {
  TMP="$(mktemp -d)"
  [ -L "$OPT/previous" ] || die "no previous release to roll back to"
  local prev cur
  prev="$(readlink "$OPT/previous")"
  cur="$(readlink "$OPT/current")"
  [ -d "$OPT/$prev" ] || die "the previous release $prev is gone"
  wait_for_station
  say "rolling back from ${cur#releases/} to ${prev#releases/}"
  RELEASE="${prev#releases/}"
  activate "$RELEASE"
  NODE_BIN=/usr/bin/node
  [ -x "$OPT/current/node/bin/node" ] && NODE_BIN="$OPT/current/node/bin/node"
  if [ "$LIVE" = 1 ] && will_start && systemd_running; then
    if [ "$UNIT_CHANGED" = 1 ]; then systemctl daemon-reload; fi
    systemctl stop "$NAME" || true
    start_healthy "$RELEASE" || die "$RELEASE is not healthy either: $WHY (journalctl -u $NAME)"
    say "release $RELEASE is healthy ($HEALTH_NOTE)"
    write_install_status "$RELEASE" "$RELEASE" ok
    journal warning "rolled back by hand from ${cur#releases/} to $RELEASE"
  else
    apply_to_system "${cur#releases/}"
  fi
}

do_uninstall() {
  [ "$PACKAGED" = 0 ] || die "installed by the Debian package: apt-get remove $NAME (purge: apt-get purge $NAME)"
  # The kiosk's socket first: a connection to it would start the station again.
  if [ -f "$KIOSK_SOCKET_DEST" ]; then host systemctl disable --now --quiet "$NAME-kiosk.socket"; fi
  if [ -f "$UNIT_DEST" ]; then disable_unit; fi
  rm -f "$UNIT_DEST" "$KIOSK_SOCKET_DEST" "$UDEV_DEST" "$BIN/$NAME" "$BIN/stationctl"
  rm -rf "$OPT"
  host systemctl daemon-reload
  host udevadm control --reload
  if [ "$PURGE" = 1 ]; then
    rm -rf "$ETC" "$ROOT/var/lib/$NAME" "$ROOT/etc/systemd/system/$NAME.service.d"
    rm -f "$VENDOR_KEY"
    if id_of passwd "$NAME" >/dev/null; then accounts userdel "$NAME"; fi
    if id_of group "$NAME" >/dev/null; then accounts groupdel "$NAME"; fi
    say "removed everything, config, credentials and the vendor key included (groups gpio, dialout, pickup-hid, i2c, audio stay)"
  else
    say "removed; kept /etc/$NAME (config and credentials) and the vendor key: --uninstall --purge removes them too"
  fi
}

case "$MODE" in
  install) do_install ;;
  rollback) do_rollback ;;
  uninstall) do_uninstall ;;
esac
