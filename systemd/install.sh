#!/usr/bin/env bash
# Install, upgrade, roll back or remove the pickup-station service on Raspberry Pi OS (Bookworm,
# Trixie; arm64 or armhf) or any Debian with systemd.
#
#   sudo systemd/install.sh                      build this source checkout and install it
#   sudo ./install.sh --bundle pickup-station-<version>-linux-arm64.tar.gz
#                                                install from a release bundle (offline: no compiler,
#                                                no registry)
#   sudo ./install.sh --rollback                 switch back to the last proven release before this one
#   sudo ./install.sh --uninstall [--purge]      remove (keeps config and credentials unless --purge)
#   install.sh --status                          what is installed, what runs, whether it is proven
#   install.sh --package-release DIR             what the Debian package's postinst runs: install the
#                                                release tree DIR the package unpacked
#   install.sh --resume                          pickup-station-upgrade.service: finish a deferred or
#                                                interrupted upgrade
#   install.sh --repair                          pickup-station-repair.service: before the station
#                                                starts, put a proven release in place
#
# Layout it creates (all root-owned unless said):
#   /opt/pickup-station/releases/<version>/   one release: app/ node_modules/ package.json systemd/
#                                             hardware/ manifest.json, node/ when it ships its own
#                                             Node (the unit runs that one) (0755/0644)
#   /opt/pickup-station/current  -> releases/<version>   what the unit runs (switched atomically)
#   /opt/pickup-station/previous -> releases/<older>     the proven release before it: what
#                                             --rollback goes back to (never one that failed)
#   /opt/pickup-station/install-status.json   the installer's record (below)
#   <units>/pickup-station.service            the current release's own unit (and its other units:
#                                             kiosk), written at each switch, so the running release
#                                             always runs under its own unit. <units> is
#                                             /usr/local/lib/systemd/system (bundle and source
#                                             installs), /usr/lib/systemd/system (the package)
#   <units>/pickup-station-repair.service, pickup-station-upgrade.service   this installer's own
#                                             units (the package ships them; written here otherwise)
#   /usr/local/lib/pickup-station/install.sh  the installer those units run (bundle installs)
#   /etc/udev/rules.d/99-pickup-station.rules copied from the active release's hardware/
#   /etc/usbguard/pickup-station-daemon.conf  USBGuard's settings for the station, 0600, written once
#                                             (the package's conffile); <units>/usbguard.service.d/
#                                             pickup-station.conf points usbguard.service at it
#   /etc/usbguard/pickup-station.d/50-profile.conf   the board profile's USB rules, written by
#                                             `pickup-station usb-policy` at each run and by
#                                             pickup-station-usb-policy.path on a profile change
#   /etc/usbguard/pickup-station-local.conf   a site's own USB rules, 0600, created empty, never
#                                             overwritten
#   /etc/pickup-station/                      0750 root:pickup-station
#   /etc/pickup-station/config.json           0640 root:pickup-station, from the template once,
#                                             never overwritten
#   /etc/pickup-station/credentials/          0700 root:root
#     station-password.cred, technician-tokens.cred   0600 root:root, encrypted for this board
#                                             (systemd-creds encrypt --with-key=host+tpm2: its TPM2 and
#                                             host key, the host key alone without a TPM); systemd's
#                                             LoadCredentialEncrypted= decrypts them as root and hands
#                                             the service a private copy. A plain-text credential of
#                                             an earlier release is encrypted and then removed.
#   /usr/local/bin/pickup-station, stationctl small wrappers running the current release
#   user pickup-station (system, no login, home /var/lib/pickup-station = the unit's StateDirectory),
#   group pickup-station; groups gpio, dialout, pickup-hid, i2c, audio, utmp created if missing.
# Nothing in /etc/systemd/system is written: that is the administrator's (a mask, a disabled unit,
# drop-ins stay as they are).
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
# --key FILE; the package pickup-station-archive-keyring ships it too). Nothing of the bundle is
# unpacked or run before the signature checks out; --insecure-skip-signature installs an unsigned
# one, and says so in the journal. The sha256 manifest then checks every file.
#
# Proof is a recorded state (install-status.json, written by temp file + fsync + rename):
#   {"installed":"1.2.0","running":"1.1.0","proof":"proven","proven":"1.1.0","pending":"",
#    "switching":"","knownBad":"1.2.0","knownBadReason":"...","attempts":0,"result":"rolled-back",
#    "reason":"...","at":"..."}
# installed: the version handed to the installer last; running: where `current` points; proof: of
# that release (proven | unproven | failed); proven: the last release proven healthy; pending: a
# release installed and waiting for its switch; switching: "FROM>TO" while a switch is half done;
# knownBad: a release that failed its proof, not tried again until a newer one arrives or
# --retry-failed. The daemon reports installed, proof, pending and knownBad (status, metrics).
#
# A switch proves itself: the old release is stopped (its ExecStopPost drives every lock OFF),
# current switches with the release's unit, the new one starts, and within --health-wait seconds
# (default 180) it must be active with READY=1, answer /healthz on its technician port, and have
# finished its first /state (answered, or deactivated with the server unreachable) — as its
# /run/pickup-station/release.json says. If not, it is recorded as known bad, current switches back
# to the proven release, that one starts again (its ExecStartPre drives every lock OFF first) and
# must prove itself too; an error line naming both versions and the reason goes to the journal.
# Exit status after such a rollback: 1, except for the package's postinst (0: dpkg's state stays
# clean; the outcome is in install-status.json, the journal and the metrics).
#
# A busy station defers, it does not fail: while the daemon holds its update lock
# (/run/pickup-station/updates.lock: a box action in progress, a box open, an event in flight, a PIN
# being typed) the installer waits at most --lock-wait seconds (default 60; the package: 0), then
# installs the release, records it as pending and leaves the switch to pickup-station-upgrade.service,
# which waits (at most DEFER_WAIT) until the station is free. --force does not wait. The same
# happens when the unit is masked, or disabled and not running: the switch waits for its next start.
#
# Interrupted anywhere (a power cut, apt killed): pickup-station-repair.service runs before every
# start of the station; it puts the last proven release back in place when the switch was half done
# or the new release was not proven yet (that one is retried once the station runs), finishes
# dpkg's configuration of this package within REPAIR_WAIT seconds, and hands the rest to
# pickup-station-upgrade.service.
#
# Idempotent: a second run with the same input changes nothing and restarts nothing.
#
# Settings: /etc/default/pickup-station (LOCK_WAIT, HEALTH_WAIT, DEFER_WAIT, REPAIR_WAIT); options
# override them.
#
# Testing without touching this machine: --root DIR (or DESTDIR=DIR) installs into DIR. Files
# get their real modes and owners (numeric ids from DIR/etc/passwd and DIR/etc/group, which must
# exist; users and groups are added there with useradd/groupadd --prefix DIR). Nothing is run
# against the live system: systemctl, udevadm and apt-get are printed as "would run: ..." and, if
# PICKUP_INSTALL_RECORD is set, appended to that file; a release is taken as proven.
set -euo pipefail
umask 022

readonly NAME=pickup-station
readonly MIN_NODE=20.11.0
readonly SUPPLEMENTARY_GROUPS=(gpio dialout pickup-hid i2c audio utmp)
# What a release needs on a board (the libraries its addons link, the libgpiod tools) comes with the
# release: its systemd/runtime-packages, which its tools/check-bundle.mjs checks against the addons.
# A release without that file (older bundles) gets this list.
readonly FALLBACK_RUNTIME_PACKAGES=(libusb-1.0-0 libudev1 libstdc++6 libgcc-s1 gpiod procps)
readonly BUILD_PACKAGES=(build-essential python3)       # node-gyp, for onoff's epoll addon (source installs only)
# This installer's own units: not the release's, not switched with it.
readonly HELPER_UNITS=("$NAME-repair.service" "$NAME-upgrade.service")
# A release whose switch was cut off this many times (a power cut during each proof) counts as bad.
readonly MAX_ATTEMPTS=3

ROOT="${DESTDIR:-}"
MODE=install
BUNDLE=""
PURGE=0
START=1
PASSWORD_FILE=""
NODE_BIN="${NODE:-/usr/bin/node}"   # the board's node; a bundle's own node/bin/node replaces it
FORCE=0         # do not wait for the station's update lock
RETRY_FAILED="${PICKUP_STATION_RETRY_FAILED:-0}"  # try a known-bad release again (also through apt: the environment reaches the postinst)
PASSWORD_CHANGED=0  # --password-file installed a new password: the station restarts to read it
LOCK_WAIT=""    # seconds to wait for a free station before deferring ('' = the settings or 60)
HEALTH_WAIT=""  # seconds a new release has to prove itself healthy before it is rolled back (180)
DEFER_WAIT=""   # seconds pickup-station-upgrade.service waits for a free station (86400)
REPAIR_WAIT=""  # seconds the repair before a start may spend on dpkg (120)
PACKAGE_RELEASE=""  # --package-release DIR: the release tree the Debian package unpacked
KEY_FILE=""     # --key FILE: the vendor's public key (else the installed one)
SIGNATURE=""    # --signature FILE (default: the bundle's name + .sig)
SKIP_SIGNATURE=0
TMP=""
# Set in the environment by this installer when it runs dpkg itself (the repair, the resume): the
# package's postinst then only installs and records; the caller does the switch.
DEFER="${PICKUP_INSTALL_DEFER:-}"

say() { printf '%s: %s\n' "$NAME" "$*"; }
die() { printf '%s: error: %s\n' "$NAME" "$*" >&2; exit 1; }

usage() {
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
  cat <<EOF

Options:
  --bundle FILE          install or upgrade from a release bundle (offline)
  --rollback             activate the last proven release before the current one
  --uninstall            stop, disable and remove the service and the releases
  --purge                with --uninstall: also /etc/pickup-station, /var/lib/pickup-station and
                         the user and group pickup-station
  --status               print the installer's record; exit 0 when the installed release runs
                         proven, 2 while an upgrade is pending, 1 otherwise
  --password-file FILE   install FILE as the station-password credential, encrypted for this board
                         (systemd-creds --with-key=host+tpm2 when /dev/tpmrm0 is there, host
                         otherwise; PICKUP_CREDENTIAL_KEY overrides)
  --no-start             install and enable, but do not (re)start
  --lock-wait SECONDS    wait at most this long for the station to be free before deferring the
                         switch to pickup-station-upgrade.service (default 60)
  --health-wait SECONDS  how long a new release has to prove healthy before it is rolled back
                         (default 180)
  --force                do not wait for the station to be free (a box open, an event in flight)
  --retry-failed         try a release again that failed its proof before
  --key FILE             the vendor's public key (binary OpenPGP, gpg --export) the bundle's
                         signature is checked against; installed for the next upgrades
  --signature FILE       the bundle's detached signature (default: the bundle's name + .sig)
  --insecure-skip-signature   install a bundle without checking its signature (logged)
  --package-release DIR  install the release tree DIR (the Debian package's postinst)
  --resume               finish a deferred or interrupted upgrade (pickup-station-upgrade.service)
  --repair               before a start: a proven release in place (pickup-station-repair.service)
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
    --status) MODE=status; shift ;;
    --resume) MODE=resume; shift ;;
    --repair) MODE=repair; shift ;;
    --purge) PURGE=1; shift ;;
    --password-file) [ $# -ge 2 ] || die "--password-file needs a file"; PASSWORD_FILE="$2"; shift 2 ;;
    --no-start) START=0; shift ;;
    --force) FORCE=1; shift ;;
    --retry-failed) RETRY_FAILED=1; shift ;;
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

if [ -n "$ROOT" ]; then
  ROOT="$(cd "$ROOT" 2>/dev/null && pwd)" || die "--root: no such directory"
  [ "$ROOT" != / ] || ROOT=""
fi
LIVE=1; [ -z "$ROOT" ] || LIVE=0
[ "$(id -u)" = 0 ] || die "must run as root (it creates a user, and owns files as root and $NAME)"

# The settings file (a conffile of the package): KEY=number lines; options given win.
settings() {
  local file="$ROOT/etc/default/$NAME" key value
  [ -r "$file" ] || return 0
  while IFS='=' read -r key value; do
    value="${value%%#*}"; value="${value//[[:space:]\"\']/}"
    case "$key" in
      LOCK_WAIT) [ -n "$LOCK_WAIT" ] || LOCK_WAIT="$value" ;;
      HEALTH_WAIT) [ -n "$HEALTH_WAIT" ] || HEALTH_WAIT="$value" ;;
      DEFER_WAIT) [ -n "$DEFER_WAIT" ] || DEFER_WAIT="$value" ;;
      REPAIR_WAIT) [ -n "$REPAIR_WAIT" ] || REPAIR_WAIT="$value" ;;
    esac
  done <"$file"
}
settings
LOCK_WAIT="${LOCK_WAIT:-60}"; HEALTH_WAIT="${HEALTH_WAIT:-180}"; DEFER_WAIT="${DEFER_WAIT:-86400}"; REPAIR_WAIT="${REPAIR_WAIT:-120}"
case "$LOCK_WAIT" in ''|*[!0-9]*) die "--lock-wait needs a whole number of seconds, got: $LOCK_WAIT" ;; esac
case "$HEALTH_WAIT" in ''|*[!0-9]*|0) die "--health-wait needs a whole number of seconds > 0, got: $HEALTH_WAIT" ;; esac
case "$DEFER_WAIT" in ''|*[!0-9]*) die "DEFER_WAIT needs a whole number of seconds, got: $DEFER_WAIT" ;; esac
case "$REPAIR_WAIT" in ''|*[!0-9]*|0) die "REPAIR_WAIT needs a whole number of seconds > 0, got: $REPAIR_WAIT" ;; esac

readonly OPT="$ROOT/opt/$NAME"
readonly RELEASES="$OPT/releases"
readonly ETC="$ROOT/etc/$NAME"
readonly CREDS="$ETC/credentials"
readonly UDEV_DEST="$ROOT/etc/udev/rules.d/99-$NAME.rules"
readonly BIN="$ROOT/usr/local/bin"
readonly VENDOR_KEY="$ROOT/usr/share/keyrings/$NAME-archive-keyring.gpg"
readonly STATE="$OPT/install-status.json"
readonly RELEASE_STATUS="$ROOT/run/$NAME/release.json"
readonly INSTALL_LOCK="$ROOT/run/$NAME-install.lock"
# The unit an earlier installer copied into the administrator's directory (removed when it is ours).
readonly LEGACY_UNIT="$ROOT/etc/systemd/system/$NAME.service"
# Installed by the Debian package: dpkg owns the release tree it unpacked, this installer's units,
# the udev rules and the commands (/usr/bin); the releases under /opt and the release's units are
# this script's.
PACKAGED=0
if [ -n "$PACKAGE_RELEASE" ] || [ -f "$ROOT/usr/lib/$NAME/release/manifest.json" ]; then PACKAGED=1; fi
if [ "$PACKAGED" = 1 ]; then UNIT_DIR="$ROOT/usr/lib/systemd/system"; else UNIT_DIR="$ROOT/usr/local/lib/systemd/system"; fi
readonly UNIT_DIR PACKAGED
readonly INSTALLER_COPY="$ROOT/usr/local/lib/$NAME/install.sh"
# journald's settings for the station's journal namespace (LogNamespace=): retention 14 days. The
# package ships its own copy under /usr/lib; an operator's drop-in in /etc/systemd overrides it.
readonly JOURNALD_DROPIN_DIR="$ROOT/usr/local/lib/systemd/journald@$NAME.conf.d"
# The kiosk's lockdown (install_lockdown; the package ships these under /usr/lib and /etc itself).
readonly LOGIND_DROPIN="$ROOT/usr/local/lib/systemd/logind.conf.d/$NAME.conf"
readonly SYSCTL_FILE="$ROOT/usr/local/lib/sysctl.d/90-$NAME.conf"
readonly CHROMIUM_POLICY="$ROOT/etc/$NAME-kiosk/chromium-policy.json"
readonly CHROMIUM_POLICY_LINK="$ROOT/etc/chromium/policies/managed/$NAME.json"
readonly POLICY_SHIPPED="$OPT/chromium-policy.sha256"

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

# journal PRIORITY MESSAGE: a line in the system journal (syslog identifier pickup-station-install)
# besides the output: what apt or Ansible print scrolls away, the journal stays.
journal() {
  if [ "$LIVE" = 1 ]; then
    if command -v logger >/dev/null 2>&1; then logger -t "$NAME-install" -p "daemon.$1" -- "$2" || true; fi
  else
    host logger -t "$NAME-install" -p "daemon.$1" -- "$2"
  fi
}

# sync_path PATH: its data (a file) or its entries (a folder) on disk before the next step.
sync_path() { sync "$1" 2>/dev/null || true; }

# --- idempotent file operations (each returns 0 only when something changed) -----------------
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

# ensure_file SRC DEST MODE OWNER GROUP [--keep]: copy unless identical (temp file, fsync, rename);
# --keep: never replace an existing DEST's content (config), only create it.
ensure_file() {
  local src="$1" dest="$2" mode="$3" uid gid
  uid="$(uid_of "$4")"; gid="$(gid_of "$5")"
  if [ -e "$dest" ] && [ "${6:-}" = --keep ]; then
    return 1
  fi
  if [ -f "$dest" ] && [ ! -L "$dest" ] && cmp -s "$src" "$dest" && [ "$(stat -c '%a %u %g' "$dest")" = "${mode#0} $uid $gid" ]; then
    return 1
  fi
  # Functions called in an `if` run without set -e: every step checks for itself.
  mkdir -p "$(dirname "$dest")" || die "cannot create $(dirname "$dest")"
  install -m "$mode" -o "$uid" -g "$gid" "$src" "$dest.new.$$" || die "cannot write $dest"
  sync_path "$dest.new.$$"
  mv -f "$dest.new.$$" "$dest" || die "cannot write $dest"
  return 0
}

# ensure_link TARGET LINK: atomic switch (rename over the old link), on disk before it returns.
ensure_link() {
  if [ -L "$2" ] && [ "$(readlink "$2")" = "$1" ]; then return 1; fi
  ln -sfn "$1" "$2.new.$$" || die "cannot create $2"
  mv -fT "$2.new.$$" "$2" || die "cannot point $2 to $1"
  sync_path "$(dirname "$2")"
  return 0
}

# --- the installer's record: what is installed, what runs, and whether it is proven -----------
S_installed="" S_running="" S_proof="" S_proven="" S_pending="" S_switching="" S_knownBad="" S_knownBadReason=""
S_attempts=0 S_result="" S_reason=""

json_string() { # VALUE -> a JSON string (control characters become spaces)
  local s="$1"
  s="${s//\\/\\\\}"; s="${s//\"/\\\"}"
  printf '"%s"' "$(printf '%s' "$s" | tr '\000-\037' ' ')"
}

record_field() { # FIELD of the record file ('' if none)
  { sed -n "s/.*\"$1\":\"\(\([^\"\\\\]\|\\\\.\)*\)\".*/\1/p; s/.*\"$1\":\([0-9][0-9]*\).*/\1/p" "$STATE" 2>/dev/null || true; } |
    head -n 1 | sed 's/\\"/"/g; s/\\\\/\\/g'
}

current_version() { local c; c="$(readlink "$OPT/current" 2>/dev/null || true)"; echo "${c#releases/}"; }
previous_version() { local c; c="$(readlink "$OPT/previous" 2>/dev/null || true)"; echo "${c#releases/}"; }

# state_load: the record as it is on disk; a record written by an earlier installer (no "proof")
# is read as it was meant: the release it ran was proven (the earlier installer only left a release
# running after its health check), and after an automatic rollback `previous` named the failed one.
state_load() {
  local f
  for f in installed running proof proven pending switching knownBad knownBadReason attempts result reason; do
    printf -v "S_$f" '%s' "$(record_field "$f")"
  done
  S_attempts="${S_attempts:-0}"
  if [ -z "$S_proof" ]; then
    S_running="$(current_version)"
    if [ -n "$S_running" ]; then S_proof=proven; S_proven="$S_running"; fi
    if [ "$S_result" = rolled-back ] || [ "$S_result" = rollback-failed ]; then
      S_knownBad="$S_installed"; S_knownBadReason="$S_reason"
      if [ -n "$S_knownBad" ] && [ "$(previous_version)" = "$S_knownBad" ]; then rm -f "$OPT/previous"; fi
    fi
  fi
  # `current` is the truth for what runs; the record follows it.
  S_running="$(current_version)"
}

# state_save: the record, atomically on disk (temp file, fsync, rename, fsync of the folder); not
# rewritten when nothing in it changed (a second run with the same input writes nothing).
state_save() {
  local tmp="$STATE.new.$$" f v body="" first=1
  for f in installed running proof proven pending switching knownBad knownBadReason; do
    [ "$first" = 1 ] || body+=','
    first=0
    v="S_$f"
    body+="\"$f\":$(json_string "${!v}")"
  done
  body+=",\"attempts\":${S_attempts:-0},\"result\":$(json_string "$S_result"),\"reason\":$(json_string "$S_reason")"
  if [ -f "$STATE" ] && [ "$(sed 's/,"at":"[^"]*"}$//' "$STATE")" = "{$body" ]; then return 0; fi
  mkdir -p "$OPT"
  printf '{%s,"at":"%s"}\n' "$body" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$tmp"
  chmod 0644 "$tmp"
  sync_path "$tmp"
  mv -f "$tmp" "$STATE"
  sync_path "$OPT"
}

# --- one installer at a time (the postinst, the resume service, a technician, the repair) ------
# hold_lock WAIT_SECONDS: 0 when held; the repair before a start passes 0 (never waits: the
# installer running is in charge, and it may be what started the station).
hold_lock() {
  mkdir -p "$(dirname "$INSTALL_LOCK")"
  exec 9>"$INSTALL_LOCK"
  if [ "$1" = 0 ]; then flock -n 9; else flock -w "$1" 9; fi
}
release_lock() { flock -u 9 2>/dev/null || true; exec 9>&- || true; }

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

# manifest_field FILE FIELD -> the value of a top-level field ('' if absent), with NODE_BIN
manifest_field() {
  "$NODE_BIN" -e '
    const v = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[process.argv[2]];
    process.stdout.write(v == null ? "" : String(v));' "$1" "$2"
}

# verify_bundle: manifest, checksums, architecture and Node major of STAGE, with NODE_BIN. One node
# start for all of it (a start costs seconds on a slow board); node/bin/node was checked already.
verify_bundle() {
  local f out
  for f in app/main.js node_modules package.json systemd/$NAME.service; do
    [ -e "$STAGE/$f" ] || die "the bundle lacks $f"
  done
  out="$("$NODE_BIN" -e '
    const fs = require("fs"), path = require("path"), crypto = require("crypto");
    const dir = process.argv[1];
    const m = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
    let bad = 0;
    for (const [file, want] of Object.entries(m.checksums || {})) {
      if (file === "node/bin/node") continue;
      const p = path.join(dir, file);
      if (!p.startsWith(dir + path.sep)) { console.error("outside the bundle: " + file); bad++; continue; }
      let got = "";
      try { got = crypto.createHash("sha256").update(fs.readFileSync(p)).digest("hex"); } catch { got = "(missing)"; }
      if (got !== want) { console.error("checksum mismatch: " + file + " " + got); bad++; }
    }
    const field = (k) => (m[k] == null || m[k] === "" ? "-" : String(m[k]).replace(/[^A-Za-z0-9._+~-]/g, "?"));
    process.stdout.write([field("name"), field("version"), field("arch"), field("nodeMajor")].join(" ") + "\n");
    process.exit(bad ? 3 : 0);' "$STAGE" 2>&1)" || {
    printf '%s\n' "$out" | head -n -1 >&2
    die "the bundle is damaged (checksums in manifest.json do not match)"
  }
  local name version arch want_major
  read -r name version arch want_major <<<"$(tail -n 1 <<<"$out")"
  [ "$arch" != - ] || arch=""
  [ "$want_major" != - ] || want_major=""
  [ "$name" = "$NAME" ] || die "manifest.json is not $NAME's"
  M_VERSION="$version"
  case "$arch" in arm) arch=armv7 ;; esac
  if [ -n "$arch" ] && [ "$LIVE" = 1 ] && [ "$arch" != "$(target_arch)" ]; then
    die "the bundle is for $arch, this board is $(target_arch)"
  fi
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


# --- a release in place ----------------------------------------------------------------------
# same_release A B: the same release. A bundle's manifest lists the sha256 of every file, so equal
# manifests are equal releases (no second read of 128 MiB); a checkout's build is compared file by file.
same_release() {
  if grep -q '"checksums"' "$1/manifest.json" 2>/dev/null; then
    cmp -s "$1/manifest.json" "$2/manifest.json"
  else
    diff -r -q --no-dereference "$1" "$2" >/dev/null 2>&1
  fi
}

# install_release: STAGE into releases/<version> (unless the same release is there); sets RELEASE,
# and RELEASE_REPLACED when a release of the same version but other content was replaced.
RELEASE_REPLACED=0
install_release() {
  local version dest tmpdest
  version="${M_VERSION:-$(manifest_field "$STAGE/manifest.json" version)}"
  [[ "$version" =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] || die "bad version in manifest.json: '$version'"
  RELEASE="$version"
  dest="$RELEASES/$version"
  ensure_dir "$OPT" 0755 root root
  ensure_dir "$RELEASES" 0755 root root
  if [ -d "$dest" ] && same_release "$STAGE" "$dest"; then
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
  # On disk before `current` can ever point at it (a copy's data may still be in the page cache; dpkg's
  # files, which the hard links share, it synced itself).
  sync -f "$tmpdest" 2>/dev/null || sync
  if [ -d "$dest" ]; then
    # Same version, different content (a rebuilt checkout): replace it.
    mv "$dest" "$RELEASES/.old-$version.$$"
    mv "$tmpdest" "$dest"
    rm -rf "$RELEASES/.old-$version.$$"
    RELEASE_REPLACED=1
  else
    mv "$tmpdest" "$dest"
  fi
  sync_path "$RELEASES"
  say "installed release $version"
}

# prune_stale_temps: the temporary files of a run cut off before its rename (NAME.new.PID: the record,
# current, previous, units, udev rules, wrappers), once that PID is no longer alive. Holds the lock.
prune_stale_temps() {
  local f pid
  for f in "$OPT"/*.new.* "$UNIT_DIR"/*.new.* "$(dirname "$UDEV_DEST")"/*.new.* "$BIN"/*.new.* "$(dirname "$INSTALLER_COPY")"/*.new.*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    pid="${f##*.new.}"
    case "$pid" in '' | *[!0-9]*) continue ;; esac
    if [ "$pid" = "$$" ] || kill -0 "$pid" 2>/dev/null; then continue; fi
    rm -f "$f"
    say "removed $(basename "$f"), left by an interrupted run"
  done
}

# prune: keep the releases the record names (current, previous, proven, pending, installed); remove
# the rest and what an interrupted run left (.new-*, .old-*, stale temporary files). Holds the installer lock.
prune() {
  local keep d v
  prune_stale_temps
  keep=" $(current_version) $(previous_version) $S_proven $S_pending $S_installed "
  for d in "$RELEASES"/.new-* "$RELEASES"/.old-*; do
    [ -e "$d" ] || continue
    rm -rf "$d"
    say "removed $(basename "$d"), left by an interrupted run"
  done
  for d in "$RELEASES"/*/; do
    [ -d "$d" ] || continue
    v="$(basename "$d")"
    case "$keep" in *" $v "*) continue ;; esac
    rm -rf "${RELEASES:?}/$v"
    say "removed old release $v"
  done
}

# --- activating a release: current, its units, udev rules, wrappers -------------------------
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

is_helper_unit() { local h; for h in "${HELPER_UNITS[@]}"; do [ "$1" = "$h" ] && return 0; done; return 1; }
# A file the package itself ships (never touched here). With --root: DIR/var/lib/pickup-station.files
# stands in for dpkg's list.
PACKAGE_FILES=""
dpkg_owns() {
  [ "$PACKAGED" = 1 ] || return 1
  if [ -z "$PACKAGE_FILES" ]; then
    if [ "$LIVE" = 1 ]; then PACKAGE_FILES="$(dpkg-query -L "$NAME" 2>/dev/null || true)"; else PACKAGE_FILES="$(cat "$ROOT/var/lib/$NAME.files" 2>/dev/null || true)"; fi
    PACKAGE_FILES="${PACKAGE_FILES:-none}"
  fi
  grep -qxF "${1#"$ROOT"}" <<<"$PACKAGE_FILES"
}

release_unit_files() { # VERSION -> the unit files of its systemd/ (this installer's own excepted)
  local f
  for f in "$RELEASES/$1"/systemd/*.service "$RELEASES/$1"/systemd/*.socket "$RELEASES/$1"/systemd/*.timer "$RELEASES/$1"/systemd/*.path; do
    [ -f "$f" ] || continue
    is_helper_unit "$(basename "$f")" && continue
    printf '%s\n' "$f"
  done
}

UNIT_CHANGED=0
UDEV_CHANGED=0
# install_release_units VERSION: its units into UNIT_DIR; units of an earlier release it does not
# have are removed. The unit comes with the switch, never before: the running release always runs
# under its own unit, whatever reloads systemd in between.
install_release_units() {
  local f b keep=" "
  while IFS= read -r f; do
    b="$(basename "$f")"
    keep+="$b "
    if ensure_file "$f" "$UNIT_DIR/$b" 0644 root root; then UNIT_CHANGED=1; fi
  done < <(release_unit_files "$1")
  for f in "$UNIT_DIR/$NAME".* "$UNIT_DIR/$NAME"-*; do
    [ -f "$f" ] || continue
    b="$(basename "$f")"
    case "$b" in *.service | *.socket | *.timer | *.path) ;; *) continue ;; esac
    if is_helper_unit "$b" || dpkg_owns "$f"; then continue; fi
    case "$keep" in *" $b "*) continue ;; esac
    rm -f "$f"
    UNIT_CHANGED=1
  done
  forget_legacy_unit
}

# An earlier installer copied the unit into /etc/systemd/system (bundle installs; the package after a
# rollback): a copy identical to a release's unit is removed. Anything else there is the
# administrator's and stays (a mask included); a unit of their own is named, once per run.
forget_legacy_unit() {
  local f bridge="$ROOT/run/systemd/system/$NAME.service"
  # The package's preinst kept the old package's unit here while dpkg replaced the files.
  if [ -f "$ROOT/run/$NAME-unit-bridge" ]; then
    rm -f "$bridge" "$ROOT/run/$NAME-unit-bridge"
    UNIT_CHANGED=1
  fi
  [ -f "$LEGACY_UNIT" ] && [ ! -L "$LEGACY_UNIT" ] || return 0
  for f in "$RELEASES"/*/systemd/"$NAME".service; do
    if [ -f "$f" ] && cmp -s "$f" "$LEGACY_UNIT"; then
      rm -f "$LEGACY_UNIT"
      UNIT_CHANGED=1
      say "removed the copy of the unit an earlier installer kept in /etc/systemd/system (the release's own unit is in ${UNIT_DIR#"$ROOT"})"
      return 0
    fi
  done
  if [ -z "${LEGACY_NAMED:-}" ]; then
    LEGACY_NAMED=1
    say "note: /etc/systemd/system/$NAME.service is an administrator's unit: it is used instead of the release's own (${UNIT_DIR#"$ROOT"}/$NAME.service)"
  fi
}

# This installer's own units (bundle and source installs; the package ships them), running a copy
# of the newest installer that ran, from SRC (a release tree).
install_installer_units() {
  [ "$PACKAGED" = 0 ] || return 0
  local src="$1" h
  [ -f "$src/systemd/install.sh" ] || return 0
  if ensure_file "$src/systemd/install.sh" "$INSTALLER_COPY" 0755 root root; then :; fi
  for h in "${HELPER_UNITS[@]}"; do
    [ -f "$src/systemd/$h" ] || continue
    sed "s|/usr/lib/$NAME/release/systemd/install.sh|/usr/local/lib/$NAME/install.sh|g" "$src/systemd/$h" >"$TMP/$h"
    if ensure_file "$TMP/$h" "$UNIT_DIR/$h" 0644 root root; then UNIT_CHANGED=1; fi
  done
}

# activate VERSION: current -> it, with its units (reload_units makes systemd read them).
activate() {
  local version="$1"
  [ -d "$RELEASES/$version" ] || die "no release $version"
  if ensure_link "releases/$version" "$OPT/current"; then say "current release: $version"; fi
  install_release_units "$version"
  if [ "$PACKAGED" = 0 ]; then
    if [ -f "$RELEASES/$version/hardware/99-$NAME.rules" ]; then
      if ensure_file "$RELEASES/$version/hardware/99-$NAME.rules" "$UDEV_DEST" 0644 root root; then UDEV_CHANGED=1; fi
    fi
    # The metrics textfile's folder on tmpfs (made at boot): an idle station writes nothing to the SD card.
    if [ -f "$RELEASES/$version/systemd/tmpfiles.conf" ] &&
      ensure_file "$RELEASES/$version/systemd/tmpfiles.conf" "$ROOT/usr/local/lib/tmpfiles.d/$NAME.conf" 0644 root root && systemd_running; then
      host systemd-tmpfiles --create "/usr/local/lib/tmpfiles.d/$NAME.conf"
    fi
    # The tty classes the unit's DeviceAllow= names, registered before it starts (the file says why).
    if [ -f "$RELEASES/$version/systemd/modules-load.conf" ] &&
      ensure_file "$RELEASES/$version/systemd/modules-load.conf" "$ROOT/usr/local/lib/modules-load.d/$NAME.conf" 0644 root root && systemd_running; then
      host modprobe -a usbserial cdc_acm
    fi
    if [ -f "$RELEASES/$version/systemd/journald@$NAME.conf" ]; then
      ensure_dir "$JOURNALD_DROPIN_DIR" 0755 root root
      ensure_file "$RELEASES/$version/systemd/journald@$NAME.conf" "$JOURNALD_DROPIN_DIR/50-$NAME.conf" 0644 root root || true
    fi
    install_lockdown "$version"
    mkdir -p "$BIN"
    write_wrapper "$NAME" app/main.js dist/src/main.js
    write_wrapper stationctl app/stationctl.js dist/src/cli/stationctl.js
  fi
}

# install_lockdown VERSION: what keeps a person at the station's screen and keyboard inside the
# kiosk page (the package ships the same files itself): no gettys on other consoles (logind, read at
# boot), no magic SysRq keys (applied now), Chromium's managed policy. The policy is in /etc and an
# administrator may edit it: like dpkg's conffiles, it is replaced only while it is still the copy
# this installer wrote (its hash in POLICY_SHIPPED), else kept. Chromium reads it through a link in
# its managed folder, where nothing else of ours lies (Chromium reads every file there).
install_lockdown() {
  local sys="$RELEASES/$1/systemd" shipped=""
  if [ -f "$sys/logind-kiosk.conf" ]; then ensure_file "$sys/logind-kiosk.conf" "$LOGIND_DROPIN" 0644 root root || true; fi
  if [ -f "$sys/sysctl-kiosk.conf" ] && ensure_file "$sys/sysctl-kiosk.conf" "$SYSCTL_FILE" 0644 root root && systemd_running; then
    host /usr/lib/systemd/systemd-sysctl "$(basename "$SYSCTL_FILE")"
  fi
  [ -f "$sys/chromium-policy.json" ] || return 0
  if [ ! -e "$CHROMIUM_POLICY_LINK" ] && [ ! -L "$CHROMIUM_POLICY_LINK" ]; then
    mkdir -p "$(dirname "$CHROMIUM_POLICY_LINK")"
    ensure_link "../../../$NAME-kiosk/chromium-policy.json" "$CHROMIUM_POLICY_LINK" || true
  fi
  [ -f "$POLICY_SHIPPED" ] && shipped="$(cat "$POLICY_SHIPPED")"
  if [ -f "$CHROMIUM_POLICY" ] && ! cmp -s "$sys/chromium-policy.json" "$CHROMIUM_POLICY" &&
    [ "$(sha256sum <"$CHROMIUM_POLICY" | cut -d' ' -f1)" != "$shipped" ]; then
    say "kept $CHROMIUM_POLICY as edited here; release $1's own is $sys/chromium-policy.json"
    journal notice "kept $CHROMIUM_POLICY as edited here; release $1's own is $sys/chromium-policy.json"
    return 0
  fi
  if ensure_file "$sys/chromium-policy.json" "$CHROMIUM_POLICY" 0644 root root; then say "Chromium's managed policy: $CHROMIUM_POLICY"; fi
  sha256sum <"$CHROMIUM_POLICY" | cut -d' ' -f1 >"$POLICY_SHIPPED"
}

reload_units() {
  if [ "$UNIT_CHANGED" = 1 ] && systemd_running; then host systemctl daemon-reload; fi
  if [ "$UDEV_CHANGED" = 1 ] && systemd_running; then
    host udevadm control --reload
    host udevadm trigger --subsystem-match=hidraw --subsystem-match=gpio --subsystem-match=tty
  fi
  UNIT_CHANGED=0
  UDEV_CHANGED=0
}

# --- the USB policy: only the board profile's USB devices authorised (docs/security.md) ----------
readonly USBGUARD_DIR="$ROOT/etc/usbguard"
readonly USBGUARD_DROPIN="$UNIT_DIR/usbguard.service.d/$NAME.conf"
# USB_POLICY_NEW: the policy is not in place yet (its path unit not installed) or USBGuard's drop-in
# changed: apply_usb_policy runs once. Later profile changes are the path unit's.
USB_POLICY_NEW=0
ensure_usbguard_files() {
  local src="$RELEASES/$RELEASE/systemd"
  [ -f "$src/usbguard-daemon.conf" ] || return 0
  [ -f "$UNIT_DIR/$NAME-usb-policy.path" ] || USB_POLICY_NEW=1
  ensure_dir "$USBGUARD_DIR" 0755 root root
  ensure_dir "$USBGUARD_DIR/$NAME.d" 0700 root root
  if [ "$PACKAGED" = 0 ]; then
    ensure_file "$src/usbguard-daemon.conf" "$USBGUARD_DIR/$NAME-daemon.conf" 0600 root root --keep || true
    ensure_dir "$(dirname "$USBGUARD_DROPIN")" 0755 root root
    if ensure_file "$src/usbguard-dropin.conf" "$USBGUARD_DROPIN" 0644 root root; then UNIT_CHANGED=1; USB_POLICY_NEW=1; fi
  fi
  : >"$TMP/empty-rules"
  ensure_file "$TMP/empty-rules" "$USBGUARD_DIR/$NAME-local.conf" 0600 root root --keep || true
}

# The current release writes the profile's rules; USBGuard restarts to apply them to the devices
# plugged in now; the path unit follows later changes. A bad profile is named and the rules in
# force stay (the station itself refuses that profile too).
apply_usb_policy() {
  [ "$USB_POLICY_NEW" = 1 ] && [ -f "$UNIT_DIR/$NAME-usb-policy.path" ] && [ -f "$ETC/config.json" ] || return 0
  systemd_running || return 0
  local wrapper="/usr/local/bin/$NAME"
  [ "$PACKAGED" = 1 ] && wrapper="/usr/bin/$NAME"
  if host "$wrapper" usb-policy --config "/etc/$NAME/config.json"; then
    host systemctl restart usbguard.service || say "warning: usbguard.service did not restart: every USB device not authorised stays so (journalctl -u usbguard)"
  else
    say "warning: no USB policy written (see above): the rules in force stay"
  fi
  host systemctl enable --now --quiet "$NAME-usb-policy.path" || say "warning: systemctl enable $NAME-usb-policy.path failed"
}

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
  "${SYSTEMD_CREDS_CMD[@]}" encrypt --with-key="$CREDENTIAL_KEY" --name="$name" "$src" "$TMP/$name.cred" >/dev/null ||
    die "cannot encrypt the credential $name (systemd-creds encrypt --with-key=$CREDENTIAL_KEY)"
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


# --- the service ------------------------------------------------------------------------------
# systemd runs here (not a chroot, not an image being prepared).
systemd_running() { [ "$LIVE" = 0 ] || [ -d /run/systemd/system ]; }

unit_enablement() {
  if [ "$LIVE" = 1 ]; then systemctl is-enabled "$NAME" 2>/dev/null || true; else systemctl --root="$ROOT" is-enabled "$NAME" 2>/dev/null || true; fi
}
unit_active() { [ "$LIVE" = 1 ] && systemctl is-active --quiet "$NAME"; }

# can_run_now: whether this run may (re)start the station to prove a release; WHY_NOT says why not.
# The administrator's choices stand: a masked unit is never started, a disabled one only restarted
# when it runs anyway (deb-systemd-invoke's rule); the switch then waits for its next start.
can_run_now() {
  WHY_NOT=""
  if [ -n "$DEFER" ]; then WHY_NOT="the package is being configured by the installer's own repair"; return 1; fi
  if [ "$START" = 0 ]; then WHY_NOT="--no-start"; return 1; fi
  if [ ! -f "$CREDS/station-password.cred" ]; then WHY_NOT="no station password yet"; return 1; fi
  if ! systemd_running; then WHY_NOT="systemd is not running here (a chroot or an image)"; return 1; fi
  case "$(unit_enablement)" in
    masked | masked-runtime) WHY_NOT="the unit is masked"; return 1 ;;
    enabled | enabled-runtime | static | indirect | alias | generated | linked | linked-runtime | transient) return 0 ;;
    *)
      if unit_active; then return 0; fi
      WHY_NOT="the unit is disabled and not running"
      return 1
      ;;
  esac
}

# The [Install] symlink, made once: on the first install. Later runs leave enablement to the
# administrator (a disabled or masked unit stays so).
enable_unit() {
  if [ "$LIVE" = 1 ]; then
    systemctl enable --quiet "$NAME" || say "warning: systemctl enable $NAME failed"
  else
    systemctl --root="$ROOT" enable --quiet "$NAME" 2>/dev/null || true
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

start_upgrade_service() {
  if systemd_running && [ -f "$UNIT_DIR/$NAME-upgrade.service" ]; then host systemctl start --no-block "$NAME-upgrade.service"; fi
}

# --- the update lock --------------------------------------------------------------------------
# The daemon writes {"pid":N,"reason":"box 3 is open","since":"..."} while someone uses the station
# (src/systemd/update-lock.ts) and removes it when the station is free; systemd removes the whole
# runtime directory when the service stops. A lock whose pid is not running is stale.
readonly UPDATE_LOCK="$ROOT/run/$NAME/updates.lock"

# The daemon removes the file at any moment (the station is free again): a read that finds it gone
# reads "" (under pipefail a failed sed would end the script).
lock_field() { # FIELD: a string or number field of the lock file ("" if none)
  { sed -n "s/.*\"$1\":\(\"\([^\"]*\)\"\|\([0-9][0-9]*\)\).*/\2\3/p" "$UPDATE_LOCK" 2>/dev/null || true; } | head -n 1
}

lock_held() {
  [ -f "$UPDATE_LOCK" ] || return 1
  local pid
  pid="$(lock_field pid)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# wait_for_station SECONDS: 0 once the station is free (at once with --force), 1 if still in use.
wait_for_station() {
  lock_held || return 0
  if [ "$FORCE" = 1 ]; then
    say "the station is in use ($(lock_field reason)); --force: not waiting"
    return 0
  fi
  [ "$1" -gt 0 ] || return 1
  say "waiting for the station to be free: $(lock_field reason) (at most ${1}s)"
  local waited=0
  while lock_held; do
    [ "$waited" -lt "$1" ] || return 1
    sleep 1
    waited=$((waited + 1))
  done
  say "the station is free (waited ${waited}s)"
}

# --- proving a release healthy, and going back when it is not --------------------------------
uptime_s() { cut -d. -f1 /proc/uptime; }   # monotonic (the wall clock may jump on a board's first NTP sync)

release_field() { # FIELD of the daemon's release.json ('' if none or null; systemd removes it with the service)
  { sed -n "s/.*\"$1\":\(\"\([^\"]*\)\"\|\([0-9][0-9]*\)\).*/\2\3/p" "$RELEASE_STATUS" 2>/dev/null || true; } | head -n 1
}

# healthz_ok URL: the technician port's /healthz answers 200 {"ok":true}. http://HOST:PORT/healthz
# is asked by bash itself (a node start costs seconds on a slow board); unix:/path/healthz with the
# node the current release runs.
healthz_ok() {
  local url="$1" hostport host port reply
  if [[ "$url" =~ ^http://([0-9.]+|localhost):([0-9]+)/healthz$ ]]; then
    host="${BASH_REMATCH[1]}"; port="${BASH_REMATCH[2]}"
    # shellcheck disable=SC2016 # expanded by the inner bash ($0 $1)
    reply="$(timeout 5 bash -c 'exec 3<>"/dev/tcp/$0/$1" && printf "GET /healthz HTTP/1.0\r\nHost: %s\r\n\r\n" "$0" >&3 && cat <&3' "$host" "$port" 2>&1)" ||
      { echo "no answer: ${reply:-connection failed}"; return 1; }
    if [[ "$reply" =~ ^HTTP/1\.[01]\ 200 ]] && [[ "$reply" == *'"ok":true'* ]]; then return 0; fi
    echo "${reply%%$'\r'*}"
    return 1
  fi
  local node=/usr/bin/node
  [ -x "$OPT/current/node/bin/node" ] && node="$OPT/current/node/bin/node"
  hostport="${url#unix:}"
  "$node" -e '
    const http = require("http");
    const req = http.get({ socketPath: process.argv[1], path: "/healthz" }, { timeout: 3000 }, (res) => {
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
    req.on("error", (e) => { console.error(e.message); process.exit(1); });' "${hostport%/healthz}" 2>&1
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

# wait_healthy VERSION DEADLINE: until VERSION, already started, has proven itself.
wait_healthy() {
  while ! health_now "$1"; do
    if [ -n "$FATAL" ]; then WHY="$FATAL"; return 1; fi
    if [ "$(uptime_s)" -ge "$2" ]; then WHY="not healthy within ${HEALTH_WAIT}s: $WHY"; return 1; fi
    sleep 1
  done
}

# prove VERSION restart|running: (re)start the unit, or take the one that runs (starting it only if
# it does not run), and wait at most HEALTH_WAIT seconds for VERSION to prove itself. Type=notify:
# start returns once READY=1 came, or fails when the process exits.
prove() {
  local version="$1" how="$2" deadline out rc=0
  if [ "$LIVE" = 0 ]; then
    host systemctl restart "$NAME"
    say "would wait up to ${HEALTH_WAIT}s for $version to prove healthy"
    # --root: taken as proven, unless PICKUP_INSTALL_UNHEALTHY names it (the bookkeeping of a failed
    # proof, tried without a system to run it on).
    if [ "${PICKUP_INSTALL_UNHEALTHY:-}" = "$version" ]; then WHY="PICKUP_INSTALL_UNHEALTHY=$version (--root)"; return 1; fi
    HEALTH_NOTE="not checked (--root)"
    return 0
  fi
  deadline=$(( $(uptime_s) + HEALTH_WAIT ))
  if [ "$how" = running ] && [ "$(systemctl show -p ActiveState --value "$NAME")" != inactive ] &&
    [ "$(systemctl show -p ActiveState --value "$NAME")" != failed ]; then
    wait_healthy "$version" "$deadline"
    return
  fi
  systemctl reset-failed "$NAME" 2>/dev/null || true   # a release that failed before may have used up StartLimitBurst=
  # restart, not start: a socket unit of the release (the kiosk's port) may have started the station
  # again between the stop and the switch, on the code that was current then.
  out="$(timeout "$HEALTH_WAIT" systemctl restart "$NAME" 2>&1)" || rc=$?
  if [ "$rc" = 124 ]; then WHY="no READY=1 within ${HEALTH_WAIT}s"; return 1; fi
  if [ "$rc" != 0 ]; then
    health_now "$version" || true
    WHY="it did not start: ${FATAL:-$out}"
    return 1
  fi
  wait_healthy "$version" "$deadline"
}

# accept TO FROM: TO has proven itself; FROM (proven, or '') becomes `previous`.
accept() {
  local to="$1" from="$2"
  if [ -n "$from" ] && [ "$from" != "$to" ] && [ -d "$RELEASES/$from" ] && ensure_link "releases/$from" "$OPT/previous"; then :; fi
  S_running="$to"; S_proof=proven; S_proven="$to"; S_switching=""; S_attempts=0
  [ "$S_pending" != "$to" ] || S_pending=""
  [ "$S_knownBad" != "$to" ] || { S_knownBad=""; S_knownBadReason=""; }
  S_result=ok; S_reason=""
  state_save
  prune
}

mark_known_bad() { # VERSION WHY
  S_knownBad="$1"; S_knownBadReason="$2"
  [ "$S_pending" != "$1" ] || S_pending=""
  S_attempts=0
}

ROLLED_BACK=0
# switch_and_prove TO: stop what runs, switch to TO (current and its units), prove it; when it does
# not prove itself, it is known bad and the proven release comes back. Every step is recorded
# before the next one, so that an interruption anywhere can be repaired (--repair, --resume).
switch_and_prove() {
  local to="$1" from="$S_running" t0 why
  if [ "$S_pending" = "$to" ]; then S_attempts=$((S_attempts + 1)); else S_attempts=1; fi
  S_pending="$to"
  if [ "$S_attempts" -gt "$MAX_ATTEMPTS" ]; then
    why="its switch was cut off $((S_attempts - 1)) times before it could prove itself"
    mark_known_bad "$to" "$why"
    S_result=known-bad; S_reason="$why"
    state_save
    journal err "release $to is not tried again: $why; $from keeps running"
    say "error: release $to is not tried again: $why ($from keeps running; --retry-failed tries it)"
    ROLLED_BACK=1
    return 1
  fi
  S_switching="$from>$to"
  state_save
  t0=$(uptime_s)
  if [ -n "$from" ] && [ "$from" != "$to" ] && systemd_running; then host systemctl stop "$NAME"; fi
  activate "$to"
  reload_units
  S_running="$to"; S_proof=unproven; S_switching=""
  state_save
  if prove "$to" restart; then
    say "release $to is healthy after $(( $(uptime_s) - t0 ))s ($HEALTH_NOTE)"
    accept "$to" "$from"
    [ -z "$from" ] || [ "$from" = "$to" ] || journal info "upgraded from $from to $to: healthy ($HEALTH_NOTE)"
    return 0
  fi
  why="$WHY"
  mark_known_bad "$to" "$why"
  S_proof=failed; S_result=failed; S_reason="$why"
  state_save
  if [ -z "$from" ] || [ "$from" = "$to" ] || [ ! -d "$RELEASES/$from" ]; then
    journal err "release $to is not healthy: $why (no previous release to go back to)"
    say "error: release $to is not healthy: $why. There is no proven release to go back to: journalctl --namespace=+$NAME -u $NAME"
    ROLLED_BACK=1
    return 1
  fi
  journal err "upgrade from $from to $to failed: $why; rolling back to $from"
  say "error: $to is not healthy: $why. Rolling back to $from"
  roll_back_to "$from" "$to" "$why" "$t0"
}

# roll_back_to FROM TO WHY T0: FROM (proven) back in place after TO failed.
roll_back_to() {
  local from="$1" to="$2" why="$3" t0="$4"
  # current goes back first: the failed release's stop then runs the proven release's safe-state
  # (ExecStopPost resolves current when it runs), and so does the next start's ExecStartPre.
  S_switching="$to>$from"
  state_save
  activate "$from"
  reload_units
  if systemd_running; then host systemctl stop "$NAME" || true; fi
  S_running="$from"; S_proof=proven; S_switching=""
  state_save
  if prove "$from" restart; then
    S_result=rolled-back; S_reason="$why"
    state_save
    journal err "upgrade from $from to $to failed: $why; rolled back, $from is running again ($HEALTH_NOTE)"
    say "upgrade to $to failed ($why); rolled back: $from is running again after $(( $(uptime_s) - t0 ))s"
    ROLLED_BACK=1
    return 1
  fi
  S_result=rollback-failed; S_reason="$why; $from: $WHY"
  state_save
  journal crit "upgrade from $from to $to failed: $why; the rollback to $from failed too: $WHY"
  die "upgrade to $to failed ($why) and $from did not come back either ($WHY): journalctl --namespace=+$NAME -u $NAME"
}

# settle_current: an earlier run was cut off (apt killed, the lock wait, a power cut not yet
# repaired): the switch half done, or the release that runs not proven. It is proven where it runs
# (a configure retry proves it, it never says "nothing changed" about an unproven release), or the
# proven release comes back.
settle_current() {
  # Inside the installer's own dpkg run: the caller settles it right after.
  [ -z "$DEFER" ] || return 0
  [ -n "$S_running" ] || return 0
  if [ -z "$S_switching" ] && [ "$S_proof" = proven ]; then return 0; fi
  local to="$S_running" from="$S_proven"
  [ "$from" != "$to" ] && [ -d "$RELEASES/$from" ] || from=""
  S_switching=""
  activate "$to"
  reload_units
  if [ "$S_proof" = failed ] && [ -n "$from" ]; then
    say "release $to failed its proof earlier; back to the proven release $from"
    roll_back_to "$from" "$to" "$S_knownBadReason" "$(uptime_s)" || true
    return 0
  fi
  if ! can_run_now; then
    if [ -n "$from" ]; then
      # It cannot be proven now: the proven release goes back in place, TO waits for the next start.
      S_pending="$to"
      activate "$from"
      reload_units
      S_running="$from"; S_proof=proven
    fi
    state_save
    return 0
  fi
  say "release $to is not proven yet (its first start since the install, or an earlier run was cut off): proving it now"
  S_proof=unproven
  state_save
  if prove "$to" running; then
    say "release $to is healthy ($HEALTH_NOTE)"
    accept "$to" "$from"
    return 0
  fi
  local why="$WHY"
  mark_known_bad "$to" "$why"
  S_proof=failed; S_result=failed; S_reason="$why"
  state_save
  [ -n "$from" ] || { journal err "release $to is not healthy: $why (no proven release to go back to)"; ROLLED_BACK=1; return 0; }
  journal err "upgrade from $from to $to failed: $why; rolling back to $from"
  roll_back_to "$from" "$to" "$why" "$(uptime_s)" || true
}

# defer VERSION WHY: installed; the switch waits (pickup-station-upgrade.service, or the next start).
defer() {
  S_pending="$1"; S_result=pending; S_reason="$2"
  state_save
  say "release $1 is installed; the switch waits: $2. pickup-station-upgrade.service switches when the station is free (journalctl -u $NAME-upgrade)"
  journal info "release $1 installed, its switch deferred: $2"
}

# --- dpkg's side (the package) -----------------------------------------------------------------
package_status() { dpkg-query -W -f='${db:Status-Abbrev}' "$NAME" 2>/dev/null | tr -d ' ' || true; }
dpkg_clean() { [ -z "$(dpkg --audit 2>/dev/null)" ] && [ "$(package_status)" = ii ]; }
# An apt or dpkg run in progress (the postinst that started this service, unattended-upgrades): its
# own work, not an interruption; wait for it (bounded) before judging what dpkg left.
wait_for_dpkg() {
  local n=0
  while pgrep -x 'dpkg|apt|apt-get|unattended-upgr' >/dev/null 2>&1; do
    [ "$n" -lt 1800 ] || return 1
    sleep 2
    n=$((n + 2))
  done
}

# run_logged WHAT SECONDS CMD...: CMD with a time limit, its outcome in the journal.
run_logged() {
  local what="$1" limit="$2" t0 rc=0
  shift 2
  t0=$(uptime_s)
  journal info "$what (at most ${limit}s)"
  say "$what (at most ${limit}s)"
  PICKUP_INSTALL_DEFER=1 timeout "$limit" "$@" || rc=$?
  if [ "$rc" = 0 ]; then
    journal info "$what: done in $(( $(uptime_s) - t0 ))s; $NAME is '$(package_status)' in dpkg"
  else
    journal err "$what: $([ "$rc" = 124 ] && echo "stopped at the limit of ${limit}s" || echo "failed (exit $rc)") after $(( $(uptime_s) - t0 ))s; $NAME is '$(package_status)' in dpkg"
  fi
  return "$rc"
}

# The package's configure, cut off (iF, iU): finished before the station starts. Only this package
# and only its configure (a few seconds on a board): its postinst installs and records, the switch
# comes after the start. A half-installed package (cut during the unpack) is reinstalled after.
configure_before_start() {
  [ "$PACKAGED" = 1 ] && [ "$LIVE" = 1 ] || return 0
  case "$(package_status)" in
    iF* | iU*) run_logged "dpkg was interrupted: dpkg --configure $NAME before the station starts" "$REPAIR_WAIT" dpkg --configure "$NAME" || true ;;
  esac
}

# After the start: whatever dpkg left unfinished (every package, as unattended-upgrades'
# AutoFixInterruptedDpkg does), and this package reinstalled when its unpack was cut off (from
# apt's cache: the archive apt downloaded for that run).
repair_package() {
  [ "$PACKAGED" = 1 ] && [ "$LIVE" = 1 ] || return 0
  wait_for_dpkg || { say "a package run is still going after 1800s: not touching dpkg"; return 0; }
  if [ -n "$(dpkg --audit 2>/dev/null)" ]; then run_logged "dpkg was interrupted: dpkg --configure -a" 1800 dpkg --configure -a || true; fi
  case "$(package_status)" in
    iH* | *R)
      local version deb
      version="$(dpkg-query -W -f='${Version}' "$NAME" 2>/dev/null || true)"
      deb="$({ find /var/cache/apt/archives -maxdepth 1 -name "${NAME}_${version//:/%3a}_*.deb" 2>/dev/null || true; } | head -n 1)"
      if [ -n "$deb" ]; then
        run_logged "$NAME $version was cut off while dpkg unpacked it: dpkg -i $deb (apt's cache)" 1800 dpkg -i "$deb" || true
      else
        # apt's package lists may be what the cut took: written by the update just before the
        # upgrade and not yet on the disk, they come back empty beside an intact InRelease, and apt
        # neither fetches them again (the InRelease did not change) nor knows the version to install.
        # An empty index is never a list worth keeping: gone, the update fetches it again.
        find /var/lib/apt/lists -maxdepth 1 -type f -size 0 ! -name lock -delete 2>/dev/null || true
        find /var/lib/apt/lists/partial -mindepth 1 -delete 2>/dev/null || true
        run_logged "$NAME $version was cut off while dpkg unpacked it: apt-get update (no archive in apt's cache)" "$REPAIR_WAIT" \
          apt-get -q update || true
        run_logged "$NAME $version was cut off while dpkg unpacked it: apt-get install --reinstall (no archive in apt's cache)" 1800 \
          env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --reinstall -o Dpkg::Options::=--force-confold "$NAME" || true
      fi
      ;;
  esac
}

# --- modes ------------------------------------------------------------------------------------
get_release() { # -> STAGE, verified
  if [ -n "$PACKAGE_RELEASE" ]; then
    [ -f "$PACKAGE_RELEASE/manifest.json" ] || die "no release in $PACKAGE_RELEASE (manifest.json)"
    STAGE="$(cd "$PACKAGE_RELEASE" && pwd)"
    if already_installed; then return 0; fi
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
}

# already_installed: the package's release is the one under releases/ (the same manifest, which lists
# every file's sha256, and its files are hard links of the same ones): it was verified when it was
# installed. A configure again (a reinstall, dpkg --configure -a after an interruption, the repair
# before a start) then costs no node start and no second read of 128 MiB.
already_installed() {
  local version dest
  version="$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$STAGE/manifest.json" | head -n 1)"
  [[ "$version" =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] || return 1
  dest="$RELEASES/$version"
  [ -f "$dest/manifest.json" ] && grep -q '"checksums"' "$STAGE/manifest.json" && cmp -s "$STAGE/manifest.json" "$dest/manifest.json" || return 1
  [ "$(stat -c %i "$STAGE/app/main.js")" = "$(stat -c %i "$dest/app/main.js" 2>/dev/null)" ] || return 1
  M_VERSION="$version"
  NODE_BIN="$dest/node/bin/node"
  [ -x "$NODE_BIN" ] || NODE_BIN=/usr/bin/node
  say "release $version is the one installed from this package (verified then)"
}

do_install() {
  TMP="$(mktemp -d)"
  get_release
  local runtime_packages=()
  mapfile -t runtime_packages < <(runtime_packages_of "$STAGE")
  # A package's Depends: brought them (and dpkg holds the lock apt-get would need).
  [ "$PACKAGED" = 1 ] || ensure_packages optional "${runtime_packages[@]}"
  ensure_accounts
  hold_lock 900 || die "another run of the installer holds $INSTALL_LOCK"
  state_load
  install_release
  S_installed="$RELEASE"
  install_installer_units "$RELEASES/$RELEASE"
  ensure_config
  ensure_usbguard_files
  if [ -n "$KEY_FILE" ] && [ "$PACKAGED" = 0 ] && ensure_file "$KEY_FILE" "$VENDOR_KEY" 0644 root root; then
    say "installed the vendor key $VENDOR_KEY: the next bundles are checked against it"
  fi
  settle_current

  if [ -z "$S_running" ]; then
    first_install
  elif [ "$S_running" = "$RELEASE" ]; then
    same_version
  elif [ "$RELEASE" = "$S_knownBad" ] && [ "$RETRY_FAILED" = 0 ]; then
    S_result=known-bad; S_reason="$S_knownBadReason"
    state_save
    say "release $RELEASE failed its proof before ($S_knownBadReason): not tried again; $S_running keeps running."
    say "  A newer release is tried as usual; this one again only when asked: PICKUP_STATION_RETRY_FAILED=1 apt-get install --reinstall $NAME (install.sh --retry-failed)"
    journal warning "release $RELEASE is known bad ($S_knownBadReason): not tried again; $S_running keeps running"
    [ -n "$PACKAGE_RELEASE" ] || ROLLED_BACK=1
  elif ! can_run_now && [ -z "$S_proven" ]; then
    # Nothing proven runs here yet (a station not configured): it becomes current, proven at its first start.
    activate "$RELEASE"
    reload_units
    S_running="$RELEASE"; S_proof=unproven; S_pending=""; S_result=ok; S_reason="not started: $WHY_NOT"
    state_save
    prune
    say "current release: $RELEASE; not started: $WHY_NOT"
  elif ! can_run_now; then
    defer "$RELEASE" "$WHY_NOT"
  elif ! wait_for_station "$LOCK_WAIT"; then
    defer "$RELEASE" "the station is in use ($(lock_field reason))"
    start_upgrade_service
  else
    switch_and_prove "$RELEASE" || true
  fi
  reload_units
  apply_usb_policy
  prune
  release_lock
  if [ "$ROLLED_BACK" = 1 ] && [ -z "$PACKAGE_RELEASE" ]; then exit 1; fi
}

first_install() {
  activate "$RELEASE"
  reload_units
  enable_unit
  S_running="$RELEASE"; S_proof=unproven; S_pending=""
  state_save
  if can_run_now; then
    if prove "$RELEASE" restart; then
      say "release $RELEASE is healthy ($HEALTH_NOTE)"
      accept "$RELEASE" ""
    else
      S_proof=failed; S_result=failed; S_reason="$WHY"
      state_save
      journal err "release $RELEASE is not healthy: $WHY (no previous release to go back to)"
      say "error: release $RELEASE is not healthy: $WHY: journalctl --namespace=+$NAME -u $NAME"
      ROLLED_BACK=1
    fi
  elif [ ! -f "$CREDS/station-password.cred" ]; then
    say "not started yet: install the station password (install.sh --password-file FILE: it is encrypted for this board),"
    say "fill in /etc/$NAME/config.json, then: systemctl start $NAME"
  elif [ "$START" = 0 ]; then
    say "not started (--no-start)"
  else
    say "not started: $WHY_NOT; $NAME starts at the next boot or start and is proven then"
  fi
}

# The version that runs, installed again: nothing changes and nothing restarts, unless the release
# was rebuilt with other content (a checkout) or a new password came.
same_version() {
  activate "$RELEASE"
  reload_units
  if [ "$S_proof" != proven ]; then
    say "release $RELEASE is installed; it is not proven yet: the installer's repair proves it next"
    return 0
  fi
  if [ "$RELEASE_REPLACED" = 0 ] && [ "$PASSWORD_CHANGED" = 0 ]; then
    [ "$S_pending" != "$RELEASE" ] || S_pending=""
    [ "$S_result" != pending ] || { S_result=ok; S_reason=""; }
    state_save
    prune
    say "nothing changed"
    return 0
  fi
  if ! can_run_now; then say "not restarted: $WHY_NOT"; S_proof=unproven; state_save; return 0; fi
  if ! wait_for_station "$LOCK_WAIT"; then defer "$RELEASE" "the station is in use ($(lock_field reason))"; S_proof=unproven; state_save; start_upgrade_service; return 0; fi
  if prove "$RELEASE" restart; then say "release $RELEASE is healthy ($HEALTH_NOTE)"; accept "$RELEASE" ""; return 0; fi
  S_proof=failed; S_result=failed; S_reason="$WHY"
  state_save
  journal err "release $RELEASE is not healthy after its restart: $WHY"
  say "error: release $RELEASE is not healthy: $WHY: journalctl --namespace=+$NAME -u $NAME"
  ROLLED_BACK=1
}

do_rollback() {
  TMP="$(mktemp -d)"
  hold_lock 900 || die "another run of the installer holds $INSTALL_LOCK"
  state_load
  settle_current
  local prev from="$S_running"
  prev="$(previous_version)"
  [ -n "$prev" ] || die "no proven release before $from to roll back to (/opt/$NAME/previous)"
  [ -d "$RELEASES/$prev" ] || die "the previous release $prev is gone"
  wait_for_station "$LOCK_WAIT" || die "the station is still in use after ${LOCK_WAIT}s ($(lock_field reason)); nothing was changed. Try again later, or use --force"
  say "rolling back from $from to $prev"
  NODE_BIN=/usr/bin/node
  [ -x "$RELEASES/$prev/node/bin/node" ] && NODE_BIN="$RELEASES/$prev/node/bin/node"
  S_switching="$from>$prev"
  state_save
  if can_run_now && [ -n "$from" ]; then host systemctl stop "$NAME"; fi
  activate "$prev"
  reload_units
  S_running="$prev"; S_switching=""
  if ! can_run_now; then
    S_proof=proven; S_proven="$prev"; S_result=ok; S_reason="rolled back by hand; not started: $WHY_NOT"
    [ -z "$from" ] || ensure_link "releases/$from" "$OPT/previous" || true
    state_save
    say "rolled back to $prev (not started: $WHY_NOT)"
    return 0
  fi
  S_proof=unproven
  state_save
  if prove "$prev" restart; then
    say "release $prev is healthy ($HEALTH_NOTE)"
    accept "$prev" "$from"
    S_result=ok; S_reason="rolled back by hand from $from"
    state_save
    journal warning "rolled back by hand from $from to $prev"
    return 0
  fi
  local why="$WHY"
  journal err "the rollback from $from to $prev failed: $why; back to $from"
  say "error: $prev is not healthy either: $why. Back to $from"
  roll_back_to "$from" "$prev" "$why" "$(uptime_s)" || true
  exit 1
}

# --resume (pickup-station-upgrade.service): dpkg's unfinished work, then the pending switch once
# the station runs and is free (at most DEFER_WAIT seconds), proven or rolled back.
do_resume() {
  TMP="$(mktemp -d)"
  local deadline=$(( $(uptime_s) + DEFER_WAIT )) said=""
  repair_package
  while :; do
    hold_lock 900 || die "another run of the installer holds $INSTALL_LOCK"
    state_load
    settle_current
    if [ -z "$S_pending" ] || [ "$S_pending" = "$S_running" ]; then
      if [ -n "$S_pending" ]; then S_pending=""; state_save; fi
      release_lock
      say "nothing pending: $S_running runs ($S_proof)"
      break
    fi
    if [ "$S_pending" = "$S_knownBad" ] && [ "$RETRY_FAILED" = 0 ]; then
      S_pending=""
      state_save
      release_lock
      say "release $S_knownBad is known bad ($S_knownBadReason): not tried again"
      break
    fi
    [ -d "$RELEASES/$S_pending" ] || die "the pending release $S_pending is gone"
    if ! can_run_now; then
      release_lock
      say "release $S_pending waits: $WHY_NOT (the switch comes with the next start of $NAME)"
      break
    fi
    # The proven release serves first (after a boot it is starting), then the switch waits for a free station.
    local busy=""
    if [ "$LIVE" = 1 ] && [ "$(systemctl show -p ActiveState --value "$NAME")" = activating ]; then busy="it is starting"; fi
    if [ -z "$busy" ] && [ "$FORCE" = 0 ] && lock_held; then busy="$(lock_field reason)"; fi
    if [ -z "$busy" ]; then
      switch_and_prove "$S_pending" || true
      release_lock
      break
    fi
    release_lock
    if [ "$said" != "$busy" ]; then say "release $S_pending waits for the station: $busy"; said="$busy"; fi
    if [ "$(uptime_s)" -ge "$deadline" ]; then
      journal err "release $S_pending still waits after ${DEFER_WAIT}s: $busy; the switch is tried again at the next start or package run"
      die "the station is still in use after ${DEFER_WAIT}s ($busy); $S_pending stays pending"
    fi
    sleep 2
  done
  [ "$ROLLED_BACK" = 0 ] || exit 1
}

# --repair (pickup-station-repair.service, before every start of the station): a proven release in
# place whatever an interruption left; dpkg's configure of this package finished (bounded); the rest
# handed to pickup-station-upgrade.service. Never fails the start.
do_repair() {
  TMP="$(mktemp -d)"
  if ! hold_lock 0; then
    say "another run of the installer is in charge"
    return 0
  fi
  [ -f "$STATE" ] || [ -L "$OPT/current" ] || { release_lock; return 0; }
  state_load
  local resume=0 gone
  if [ -n "$S_switching" ] || [ "$S_proof" != proven ]; then
    if [ -n "$S_proven" ] && [ -d "$RELEASES/$S_proven" ] && [ "$S_running" != "$S_proven" ]; then
      gone="${S_switching#*>}"
      [ -n "$gone" ] || gone="$S_running"
      activate "$S_proven"
      reload_units
      if [ "$gone" != "$S_knownBad" ] && [ "$gone" != "$S_proven" ]; then S_pending="$gone"; fi
      S_running="$S_proven"; S_proof=proven; S_switching=""
      S_result=repaired; S_reason="$gone was not proven (cut off); the proven $S_proven was put back before the start"
      state_save
      journal warning "before the start: $gone was not proven (its switch or its proof was cut off); the proven release $S_proven is back in place${S_pending:+; $S_pending is tried again once the station runs}"
      say "before the start: $S_proven (proven) is back in place of $gone"
    elif [ -n "$S_switching" ]; then
      activate "$S_running"
      reload_units
      S_switching=""
      state_save
    fi
    resume=1
  fi
  prune
  release_lock
  configure_before_start
  state_load
  if [ -n "$S_pending" ] || [ "$S_proof" != proven ]; then resume=1; fi
  if [ "$PACKAGED" = 1 ] && [ "$LIVE" = 1 ] && ! dpkg_clean; then resume=1; fi
  [ "$resume" = 0 ] || start_upgrade_service
}

do_status() {
  state_load
  [ -f "$STATE" ] && cat "$STATE"
  printf 'current %s, previous %s; installed %s, %s%s%s\n' "${S_running:-none}" "$(previous_version || true)" "${S_installed:-none}" "${S_proof:-unproven}" \
    "${S_pending:+; pending $S_pending}" "${S_knownBad:+; known bad $S_knownBad ($S_knownBadReason)}"
  if [ -n "$S_pending" ]; then exit 2; fi
  if [ -n "$S_running" ] && [ "$S_running" = "$S_installed" ] && [ "$S_proof" = proven ]; then exit 0; fi
  exit 1
}

# The station's journal namespace (its log lines, patrons' masked identifiers among them): its
# journald stopped, then its files, persistent and volatile, erased. The system journal keeps only
# systemd's own lines about the unit (started, stopped, exit status).
purge_journal() {
  host systemctl stop "systemd-journald@$NAME.socket" "systemd-journald-varlink@$NAME.socket" "systemd-journald@$NAME.service" || true
  local d
  for d in "$ROOT"/var/log/journal/*."$NAME" "$ROOT"/run/log/journal/*."$NAME"; do
    [ -d "$d" ] && rm -rf "$d"
  done
  return 0
}

do_uninstall() {
  [ "$PACKAGED" = 0 ] || die "installed by the Debian package: apt-get remove $NAME (purge: apt-get purge $NAME)"
  TMP="$(mktemp -d)"
  # The kiosk's socket first: a connection to it would start the station again.
  if [ -f "$UNIT_DIR/$NAME-kiosk.socket" ]; then host systemctl disable --now --quiet "$NAME-kiosk.socket" || true; fi
  if [ -f "$UNIT_DIR/$NAME.service" ] || [ -f "$LEGACY_UNIT" ]; then disable_unit; fi
  if [ -f "$UNIT_DIR/$NAME-usb-policy.path" ]; then host systemctl disable --now --quiet "$NAME-usb-policy.path" || true; fi
  forget_legacy_unit
  local f
  for f in "$UNIT_DIR/$NAME".* "$UNIT_DIR/$NAME"-*; do
    [ -f "$f" ] && rm -f "$f"
  done
  rm -f "$UDEV_DEST" "$BIN/$NAME" "$BIN/stationctl" "$INSTALLER_COPY" "$ROOT/usr/local/lib/tmpfiles.d/$NAME.conf" "$ROOT/usr/local/lib/modules-load.d/$NAME.conf" "$INSTALL_LOCK"
  rm -f "$JOURNALD_DROPIN_DIR/50-$NAME.conf" "$LOGIND_DROPIN" "$SYSCTL_FILE"
  rmdir "$(dirname "$INSTALLER_COPY")" "$JOURNALD_DROPIN_DIR" 2>/dev/null || true
  rm -rf "$OPT"
  # USBGuard goes back to its own settings (Debian's rules.conf).
  rm -f "$USBGUARD_DROPIN"
  rmdir "$(dirname "$USBGUARD_DROPIN")" 2>/dev/null || true
  host systemctl daemon-reload
  host udevadm control --reload
  if [ -f "$ROOT/usr/sbin/usbguard-daemon" ]; then host systemctl try-restart usbguard.service || true; fi
  if [ "$PURGE" = 1 ]; then
    rm -rf "$ETC" "$ROOT/var/lib/$NAME" "$USBGUARD_DIR/$NAME.d"
    purge_journal
    rm -f "$CHROMIUM_POLICY_LINK"
    rm -rf "$(dirname "$CHROMIUM_POLICY")"
    rm -f "$VENDOR_KEY" "$USBGUARD_DIR/$NAME-daemon.conf" "$USBGUARD_DIR/$NAME-local.conf" "$USBGUARD_DIR/$NAME-profile.conf.proposed"
    if id_of passwd "$NAME" >/dev/null; then accounts userdel "$NAME"; fi
    if id_of group "$NAME" >/dev/null; then accounts groupdel "$NAME"; fi
    say "removed everything, config, credentials and the vendor key included (groups gpio, dialout, pickup-hid, i2c, audio, utmp stay; drop-ins in /etc/systemd/system are the administrator's)"
  else
    say "removed; kept /etc/$NAME (config and credentials) and the vendor key: --uninstall --purge removes them too"
  fi
}

case "$MODE" in
  install) do_install ;;
  rollback) do_rollback ;;
  uninstall) do_uninstall ;;
  status) do_status ;;
  resume) do_resume ;;
  repair) do_repair ;;
esac
