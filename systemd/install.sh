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
#   install.sh --reboot-when-free                pickup-station-reboot.service: reboot for an update
#                                                that needs it (/run/reboot-required) once the station
#                                                is free
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
#   /usr/local/lib/pickup-station/install.sh, installer/*.sh   the installer those units run
#                                             (bundle installs; a copy of the newest that ran)
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
# THE RECORD: install-status.json (temp file + fsync + rename), for the daemon and people:
#   {"installed":"1.2.0","running":"1.1.0","proof":"proven","proven":"1.1.0","pending":"",
#    "switching":"","knownBad":"1.2.0","knownBadReason":"...","attempts":0,"result":"rolled-back",
#    "reason":"...","at":"..."}
# installed: the version handed to the installer last; running: where `current` points (`current`
# is the truth, the record follows it); proof: of that release (proven | unproven | failed); proven:
# the last release proven healthy; pending: a release installed and waiting for its switch;
# switching: "FROM>TO" while a switch is half done; knownBad: a release that failed its proof, not
# tried again until a newer one arrives or --retry-failed; attempts: switches of the pending release
# begun; result, reason: the last outcome (ok, pending, failed, rolled-back, rollback-failed,
# known-bad, repaired). The daemon reports installed, proof, pending and knownBad (status, metrics).
# Beside it install-status.tsv, the same values as "field<TAB>value" lines bound to that .json by its
# sha256: what this installer reads (record.sh; a .json it did not write is read with node).
#
# THE STATES AND THEIR STEPS: installer/states.tsv, a table this installer reads (record.sh). Its
# "state" rows say which state a record is in (installed, proven, deferred, switching,
# switched-unproven, failed, rolling-back, back-unproven, rolled-back, rollback-failed; fresh
# without one), its "step" rows every step a save may make (each said in the journal), its "run" and
# "cut" rows what each run goes through and, cut off after each state it saves, what --repair and
# then --resume make of it: test/e2e/systemd-install-states.test.ts drives every row. Every step is
# saved before the next one, so wherever a run stops the record is in one of those states.
# Who makes the steps: modes.sh (install, --rollback), switch.sh (switch_and_prove, roll_back_to,
# settle_current, defer), repair.sh (--repair, --resume). An install is a bundle, a checkout or the
# package's postinst; it switches when the station may start (can_run_now: a password, systemd
# running, the unit not masked, enabled or running, no --no-start) and is free (the daemon's update
# lock not held, waited for --lock-wait s), else defers; V = knownBad is refused without
# --retry-failed; a 4th switch to V after 3 cut off (MAX_ATTEMPTS) makes it known bad.
# Exit status 1 after failed, rolled-back, rollback-failed and known-bad, except in the package's
# postinst (0: dpkg's state stays clean; the outcome is in the record, the journal and the metrics).
#
# Interrupted anywhere (a power cut, apt or the installer killed), the next run finishes the state
# left: --repair (pickup-station-repair.service, before every start of the station; bounded, never
# failing the start) puts a proven release in place and hands the rest to --resume
# (pickup-station-upgrade.service); a run killed without a reboot is settled by the next install,
# --rollback or --resume first (settle_current: proven where it runs, or P back). Cut before the
# record's first step: during the bundle's or the package's unpack (the state before; .new-* pruned;
# a package half-installed, dpkg iH: --repair and --resume run the installer of `current`, since this
# one's files may be half replaced, and --resume reinstalls the package) or dpkg's configure (iF,
# iU: --repair runs dpkg --configure within REPAIR_WAIT, whose postinst defers; --resume switches).
# What each cut after a saved state leaves: the "cut" rows of installer/states.tsv.
#
# A switch proves itself: the old release is stopped (its ExecStopPost drives every lock OFF),
# current switches with the release's unit, the new one starts, and within --health-wait seconds
# (default 180) it must be active with READY=1, answer /healthz on its technician port, and have
# finished its first /state (answered, or deactivated with the server unreachable) — as its
# /run/pickup-station/release.json says. A rollback starts the proven release again (its
# ExecStartPre drives every lock OFF first), which must prove itself too; an error line naming both
# versions and the reason goes to the journal. A busy station (a box action in progress, a box
# open, an event in flight, a PIN being typed: /run/pickup-station/updates.lock) defers, it does not
# fail: pickup-station-upgrade.service waits at most DEFER_WAIT until it is free; --force does not
# wait; the package waits 0 s (LOCK_WAIT).
#
# Idempotent: a second run with the same input changes nothing and restarts nothing.
#
# Settings: /etc/default/pickup-station (LOCK_WAIT, HEALTH_WAIT, DEFER_WAIT, REPAIR_WAIT, REBOOT_WAIT); options
# override them.
#
# Testing without touching this machine: --root DIR (or DESTDIR=DIR) installs into DIR. Files
# get their real modes and owners (numeric ids from DIR/etc/passwd and DIR/etc/group, which must
# exist; users and groups are added there with useradd/groupadd --prefix DIR). Nothing is run
# against the live system: systemctl, udevadm and apt-get are printed as "would run: ..." and, if
# PICKUP_INSTALL_RECORD is set, appended to that file; a release is taken as proven.
#
# This file holds the options, the settings, every path and the globals shared by the jobs, the
# record above and the dispatch. The work is in installer/ beside it, sourced at the start (each
# file defines functions, and the variables only its own functions use):
#   common.sh       output, the journal, the live system or --root, idempotent file operations
#   record.sh       the record (load, save), the state table (states.tsv) and the lock that lets
#                   one installer run at a time
#   users.sh        the target's users and groups
#   bundle.sh       a release got (signature, unpack, checksums, Node; the package's tree; a build
#                   of this checkout), put into releases/, and pruning
#   units.sh        a release activated: `current`, its units, udev rules, commands, the kiosk's
#                   lockdown, the USB policy; this installer's own units and their copy of it
#   credentials.sh  config.json and the credentials, encrypted for the board
#   prove.sh        a release proven healthy
#   switch.sh       the switch, the rollback, settling a cut-off run, deferring; the update lock
#   modes.sh        install, --rollback, --status
#   repair.sh       --repair, --resume, and dpkg's side
#   uninstall.sh    --uninstall [--purge]
#   reboot.sh       --reboot-when-free
# Together they are one installer; a set caught half replaced is never run ("a whole installer").
# shellcheck source-path=SCRIPTDIR
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
REBOOT_WAIT=""  # seconds --reboot-when-free waits for a free station (86400)
PACKAGE_RELEASE=""  # --package-release DIR: the release tree the Debian package unpacked
KEY_FILE=""     # --key FILE: the vendor's public key (else the installed one)
SIGNATURE=""    # --signature FILE (default: the bundle's name + .sig)
SKIP_SIGNATURE=0
TMP=""
# Set in the environment by this installer when it runs dpkg itself (the repair, the resume): the
# package's postinst then only installs and records; the caller does the switch.
DEFER="${PICKUP_INSTALL_DEFER:-}"
# The record in memory (record.sh loads and saves it; the header says what each field means).
S_installed="" S_running="" S_proof="" S_proven="" S_pending="" S_switching="" S_knownBad="" S_knownBadReason=""
S_attempts=0 S_result="" S_reason=""
RELEASE_REPLACED=0  # install_release replaced a release of the same version with other content
ROLLED_BACK=0       # this run ends with a failed proof or a rollback: exit 1 (not in the postinst)
readonly ARGS=("$@")  # as given: a half-replaced installer hands them on


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
  --reboot-when-free     reboot for an update that needs it (/run/reboot-required), once the station
                         is free, at most REBOOT_WAIT seconds (pickup-station-reboot.service)
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
    --reboot-when-free) MODE=reboot; shift ;;
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
      REBOOT_WAIT) [ -n "$REBOOT_WAIT" ] || REBOOT_WAIT="$value" ;;
    esac
  done <"$file"
}
settings
LOCK_WAIT="${LOCK_WAIT:-60}"; HEALTH_WAIT="${HEALTH_WAIT:-180}"; DEFER_WAIT="${DEFER_WAIT:-86400}"; REPAIR_WAIT="${REPAIR_WAIT:-120}"; REBOOT_WAIT="${REBOOT_WAIT:-86400}"
case "$LOCK_WAIT" in ''|*[!0-9]*) die "--lock-wait needs a whole number of seconds, got: $LOCK_WAIT" ;; esac
case "$HEALTH_WAIT" in ''|*[!0-9]*|0) die "--health-wait needs a whole number of seconds > 0, got: $HEALTH_WAIT" ;; esac
case "$DEFER_WAIT" in ''|*[!0-9]*) die "DEFER_WAIT needs a whole number of seconds, got: $DEFER_WAIT" ;; esac
case "$REPAIR_WAIT" in ''|*[!0-9]*|0) die "REPAIR_WAIT needs a whole number of seconds > 0, got: $REPAIR_WAIT" ;; esac
case "$REBOOT_WAIT" in ''|*[!0-9]*) die "REBOOT_WAIT needs a whole number of seconds, got: $REBOOT_WAIT" ;; esac

readonly OPT="$ROOT/opt/$NAME"
readonly RELEASES="$OPT/releases"
readonly ETC="$ROOT/etc/$NAME"
readonly CREDS="$ETC/credentials"
readonly UDEV_DEST="$ROOT/etc/udev/rules.d/99-$NAME.rules"
readonly BIN="$ROOT/usr/local/bin"
readonly VENDOR_KEY="$ROOT/usr/share/keyrings/$NAME-archive-keyring.gpg"
readonly STATE="$OPT/install-status.json"
readonly STATE_TSV="$OPT/install-status.tsv"
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
readonly SYSTEM_DROPIN="$ROOT/usr/local/lib/systemd/system.conf.d/$NAME.conf"
# Masked beside them (links to /dev/null among the units): no getty on a VT, tty1 included (record
# 0135); no reboot from Ctrl+Alt+Del (record 0136). The package ships the gettys' masks and masks
# ctrl-alt-del.target in its postinst (systemd's own package owns that name under /usr/lib).
readonly CONSOLE_MASKS=(getty@tty1.service getty@tty2.service getty@tty3.service getty@tty4.service getty@tty5.service getty@tty6.service ctrl-alt-del.target)
readonly SYSCTL_FILE="$ROOT/usr/local/lib/sysctl.d/90-$NAME.conf"
readonly POLKIT_RULES="$ROOT/etc/polkit-1/rules.d/50-$NAME-kiosk.rules"
readonly CHROMIUM_POLICY="$ROOT/etc/$NAME-kiosk/chromium-policy.json"
readonly CHROMIUM_POLICY_LINK="$ROOT/etc/chromium/policies/managed/$NAME.json"
readonly POLICY_SHIPPED="$OPT/chromium-policy.sha256"
readonly USBGUARD_DIR="$ROOT/etc/usbguard"
readonly USBGUARD_DROPIN="$UNIT_DIR/usbguard.service.d/$NAME.conf"
# The daemon writes {"pid":N,"reason":"box 3 is open","since":"..."} while someone uses the station
# (src/service/update-lock.ts) and removes it when the station is free; systemd removes the whole
# runtime directory when the service stops. A lock whose pid is not running is stale.
readonly UPDATE_LOCK="$ROOT/run/$NAME/updates.lock"
# A checkout's build is staged here (a source install), root's alone.
readonly BUILD_STAGE="/var/lib/$NAME-build"

# --- a whole installer ------------------------------------------------------------------------
# This file and installer/*.sh are one installer only as a set, and a set is replaced file by file:
# by dpkg unpacking the package (cut there, it stays half-installed, new files beside old ones) and
# by install_installer_copy (installer.partial beside the copy until its last file is in place). A
# run from a set caught half replaced hands itself to the installer of the release in `current`,
# which is whole: a release's files never change once it is in place.
INSTALLER_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
readonly INSTALLER_HOME
installer_half_replaced() {
  [ ! -e "$INSTALLER_HOME/installer.partial" ] || return 0
  [ "$LIVE" = 1 ] && [ "$INSTALLER_HOME" = "/usr/lib/$NAME/release/systemd" ] &&
    [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$NAME" 2>/dev/null | cut -c2)" = H ]
}
if [ -z "${PICKUP_INSTALLER_HANDED_OVER:-}" ] && installer_half_replaced && [ -f "$OPT/current/systemd/install.sh" ]; then
  say "this installer's files are half replaced ($INSTALLER_HOME): the installer of the release in place runs instead"
  PICKUP_INSTALLER_HANDED_OVER=1 exec bash "$OPT/current/systemd/install.sh" "${ARGS[@]}"
fi
for job in common record users bundle units credentials prove switch modes repair uninstall reboot; do
  [ -f "$INSTALLER_HOME/installer/$job.sh" ] ||
    die "incomplete installer: no $INSTALLER_HOME/installer/$job.sh (install.sh runs with its installer/ folder beside it)"
done
[ -f "$INSTALLER_HOME/installer/states.tsv" ] || die "incomplete installer: no $INSTALLER_HOME/installer/states.tsv (its state table)"
# shellcheck source=installer/common.sh
. "$INSTALLER_HOME/installer/common.sh"
# shellcheck source=installer/record.sh
. "$INSTALLER_HOME/installer/record.sh"
# shellcheck source=installer/users.sh
. "$INSTALLER_HOME/installer/users.sh"
# shellcheck source=installer/bundle.sh
. "$INSTALLER_HOME/installer/bundle.sh"
# shellcheck source=installer/units.sh
. "$INSTALLER_HOME/installer/units.sh"
# shellcheck source=installer/credentials.sh
. "$INSTALLER_HOME/installer/credentials.sh"
# shellcheck source=installer/prove.sh
. "$INSTALLER_HOME/installer/prove.sh"
# shellcheck source=installer/switch.sh
. "$INSTALLER_HOME/installer/switch.sh"
# shellcheck source=installer/modes.sh
. "$INSTALLER_HOME/installer/modes.sh"
# shellcheck source=installer/repair.sh
. "$INSTALLER_HOME/installer/repair.sh"
# shellcheck source=installer/uninstall.sh
. "$INSTALLER_HOME/installer/uninstall.sh"
# shellcheck source=installer/reboot.sh
. "$INSTALLER_HOME/installer/reboot.sh"
load_state_table

trap cleanup EXIT

case "$MODE" in
  install) do_install ;;
  rollback) do_rollback ;;
  uninstall) do_uninstall ;;
  status) do_status ;;
  resume) do_resume ;;
  repair) do_repair ;;
  reboot) do_reboot_when_free ;;
esac
