#!/usr/bin/env bash
# Fleet delivery end to end, against any Debian root that runs systemd: a systemd-nspawn container
# (`--exec "nsenter -t PID -a"`) or the virtual board (`--exec "ssh -p 2222 root@127.0.0.1"`).
# Everything the target needs is streamed through --exec's stdin; the target needs no network.
#
#   bash packaging/test/e2e.sh --exec "CMD" --bundle RELEASE.tar.gz [--arch x64|arm64|armv7]
#        [--set container|ci|full] [--power CMD] [--work DIR] [--health-wait SECONDS] [--hang]
#        [--reuse] [--ssh] [--slow N] [--prepare-only]
#   container: --exec "nsenter -t <its PID 1> -a" (packaging/test/container.sh)
#   board:     --ssh --exec "ssh -i .board/ssh/id_ed25519 -p <port> -o StrictHostKeyChecking=no root@127.0.0.1"
#              (scripts/board/run.sh --apt does this); --slow N: the test's own waits N times longer
#              (an emulated board runs Node 10-20x slower); --health-wait is the upgrade's bound
#   --power CMD  `CMD cut`: a power cut of the target (every process killed at once, nothing flushed
#              that was not); `CMD boot`: it starts again, and CMD returns once --exec reaches it (a
#              last output line starting with "exec: " is the new --exec); `CMD down`: returns once
#              the target went down by itself (a reboot it made). Without it, no power cuts and no
#              security step (it reboots).
#   --steps LIST  (e.g. security,keys) after install and configure, only these steps of the set
#              (and remove): a part of the sequence, timed on its own
#   --prepare-only  make the test releases, their packages and the signing key in --work, and stop
#              (scripts/board makes them on the host while the board boots)
#
# From one real release tarball, test releases (packaging/test/restamp.mjs): 1.0.0, 1.1.0, 1.2.0 that
# exits at start, (--hang) 1.3.0 that never gets ready, 1.4.0 (changed after signing), and for the
# power-cut matrix 2.1.0 ... 2.5.0 and 2.6.0 that exits at start, 9.0.0 (the release a stolen key
# signs; container: 1.5.0 too). Debian packages of each (packaging/deb/build.sh, with the vendor key
# package), a repository signed by a key made here (packaging/apt/publish.sh); the vendor's next key
# and the keyring packages of its handover and of the first key's revocation (packaging/deb/keyring.sh);
# a stand-in for Debian's security archive (Origin Debian, Label Debian-Security, its own key) with
# pickup-station-e2e-dummy 1.1 (1.0 installed first), whose postinst asks for a reboot as a kernel
# package does and which ships a file under /usr/lib/chromium (pickup-station's trigger).
# In the target, by --set (default container):
#   install    the vendor key + a signed-by= sources entry; apt-get install pickup-station (1.0.0)
#   configure  the bundle's reference server on 127.0.0.1:8480 (a unit started at boot), simulated
#              hardware whose doors are a state file, a service token; the station reports in; a deposit
#   deferred   1.1.0 published while a deposit's box is open (the update lock is held): apt-get
#              upgrade exits 0 at once, dpkg clean, 1.0.0 serves, "upgrade pending" in the status and
#              the metrics; the door is closed: pickup-station-upgrade.service switches, 1.1.0 proven
#   restarting (only by --steps, in the place of deferred) the same, with the station's process killed
#              while the box is open and the upgrade made while the unit waits to start again
#   reinstall  (container, full) of 1.1.0 changes nothing and restarts nothing
#   broken     1.2.0 (exits at start): rolled back, apt-get exits 0, dpkg clean, known bad in the
#              status and the metrics, the journal line names both versions (the power cut after a
#              switch before its proof is the full matrix's after-switch row)
#   known-bad  the next configure of 1.2.0 (dpkg-reconfigure) does not try it again, restarts nothing
#   rollback   (container, full) install.sh --rollback after the automatic rollback: to the proven
#              1.0.0, never to 1.2.0; and forward again
#   hang       (--hang) the same with 1.3.0, bounded by --health-wait
#   tampered   a package changed after signing is refused by apt
#   downgrade  (container, full) to 1.0.0 (its .deb): switched and proven like an upgrade,
#              installed = running (a switch like any other: npm test proves the installer's side)
#   masked     (container, full) the unit masked by the administrator across an upgrade (1.1.0's
#              .deb): stays masked, not started; unmasked and started, the switch happens
#   security   (ci, full, with --power) the station in use (a box open); apt-daily.service and
#              apt-daily-upgrade.service (what their timers start): unattended-upgrades installs the
#              dummy's security fix and the handover keyring from the vendor's repository (the
#              package's 52pickup-station-unattended-upgrades); the reboot they need waits
#              (pickup-station-reboot.service) while the box is open; the door is closed: the board
#              reboots by itself, the station serves again
#   rotate     the handover keyring installed (both keys); the repository signed by the new key alone:
#              apt verifies it; the next release installed comes from it (ci, full: the matrix's
#              rows, or 2.1.0 when --steps leaves them out; container: 1.5.0)
#   matrix     (full, with --power) a power cut at each step of an upgrade, then boot; ci: its
#              unpack row alone (2.2.0), whose repair reinstalls the package through apt
#   revoke     the keyring with the first key revoked; a repository that key signs (a stolen key,
#              a compromised mirror) with a newer release (9.0.0): apt-get update refuses it
#              (REVKEYSIG), nothing is installed, the release running runs on; a bundle it signs:
#              install.sh refuses it
#   remove     apt-get remove: stopped, locks OFF, config kept, the vendor key package stays; purge
# Throughout: every lock output OFF whenever no box is being opened (the state file's "locks").
# Prints a FIGURE line per measurement and a summary at the end (the matrix as a table).
# shellcheck disable=SC2016 # dpkg-query formats and remote commands are single-quoted on purpose
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

EXEC=""
BUNDLE=""
ARCH=x64
WORK=""
HEALTH_WAIT=60
HANG=0
REUSE=0   # --reuse: the packages and key of an earlier run in --work
REMOTE_SHELL=0  # --ssh: --exec is ssh (arguments quoted for the remote shell)
SLOW=1  # --slow N: every wait of this test (not the upgrade's own bounds) N times longer
SET=container
POWER=""
PREPARE_ONLY=0
STEPS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --exec) EXEC=$2; shift 2 ;;
    --bundle) BUNDLE=$2; shift 2 ;;
    --arch) ARCH=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --health-wait) HEALTH_WAIT=$2; shift 2 ;;
    --hang) HANG=1; shift ;;
    --reuse) REUSE=1; shift ;;
    --ssh) REMOTE_SHELL=1; shift ;;
    --slow) SLOW=$2; shift 2 ;;
    --set) SET=$2; shift 2 ;;
    --power) POWER=$2; shift 2 ;;
    --prepare-only) PREPARE_ONLY=1; shift ;;
    --steps) STEPS=$2; shift 2 ;;
    *) sed -n '2,67p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
case "$SET" in container | ci | full) ;; *) echo "e2e: --set is container, ci or full" >&2; exit 2 ;; esac
if [ ! -f "$BUNDLE" ] || { [ "$PREPARE_ONLY" = 0 ] && [ -z "$EXEC" ]; }; then echo "e2e: --exec and --bundle are required" >&2; exit 2; fi
if [ "$SET" = ci ] && [ -z "$POWER" ] && [ "$PREPARE_ONLY" = 0 ]; then echo "e2e: --set ci needs --power (its power-cut row)" >&2; exit 2; fi
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
SECONDS=0
T0=$(date +%s)
log() { printf '[e2e %4ss] %s\n' "$SECONDS" "$*"; }
DIAGNOSE=0  # set once the target has the package: a failure then prints what the station saw
fail() {
  printf '[e2e %4ss] FAILED: %s\n' "$SECONDS" "$*" >&2
  if [ "$DIAGNOSE" = 1 ]; then
    DIAGNOSE=0
    on sh -c 'journalctl --namespace=+pickup-station -u pickup-station -u pickup-station-upgrade -u pickup-station-repair -t pickup-station-install -n 80 --no-pager -o short-monotonic;
      echo "doors: $(cat /var/lib/pickup-station/doors.json)"; echo "record: $(cat /opt/pickup-station/install-status.json 2>&1)";
      echo "update lock: $(cat /run/pickup-station/updates.lock 2>&1)"; echo "release: $(cat /run/pickup-station/release.json 2>&1)";
      dpkg-query -W -f="dpkg: \${db:Status-Abbrev} \${Version}\n" pickup-station' 2>&1 |
      sed 's/^/  target: /' >&2 || true
  fi
  exit 1
}
FIGURES=()
figure() { # NAME VALUE: a measured figure, printed now and again in the summary at the end
  FIGURES+=("$1: $2")
  log "FIGURE $1: $2"
}
in_set() { local s; for s in "$@"; do [ "$s" = "$SET" ] && return 0; done; return 1; }
# shellcheck disable=SC2086 # --exec is a command prefix, split on purpose
on() {
  # ssh joins its arguments into one command line for the remote shell: quote each one for it.
  if [ "$REMOTE_SHELL" = 1 ]; then $EXEC "$(printf '%q ' "$@")"; else $EXEC "$@"; fi
}
put() { on sh -c "mkdir -p \"\$(dirname '$2')\" && cat > '$2'" <"$1"; }
APT=(env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)

# --- releases, packages, repository (host) ------------------------------------------------------
# The signing key's home is short and temporary: gpg-agent's socket lives there, and a socket path
# is limited to 108 bytes (a checkout under a long CI path would not fit). --work keeps the key.
GNUPGHOME=$(mktemp -d /tmp/e2e-gpg.XXXXXX)
export GNUPGHOME
trap 'gpgconf --kill gpg-agent 2>/dev/null || true; rm -rf "$GNUPGHOME"' EXIT
versions() { # the test releases this set needs: VERSION[:exit|hang|from=V]
  echo 1.0.0 1.1.0 1.2.0:exit 1.4.0:from=1.1.0 9.0.0:from=1.1.0
  if in_set container; then echo 1.5.0:from=1.1.0; fi
  [ "$HANG" = 0 ] || echo 1.3.0:hang
  if in_set full; then echo 2.1.0 2.2.0 2.3.0 2.4.0 2.5.0 2.6.0:exit; fi
  if in_set ci; then echo 2.2.0; fi
}
prepare() {
  rm -rf "$WORK/repo"
  local k
  if [ "$REUSE" = 1 ] && [ -f "$WORK/vendor.gpg" ] && [ -f "$WORK/keys.key" ] && [ -f "$WORK/vendor.rev" ]; then
    gpg --batch --quiet --import "$WORK/keys.key"
    log "reusing the keys and the packages in $WORK"
  else
    rm -rf "$WORK/debs" "$WORK/tarballs"
    # The vendor's key (A), its next one (B), and the key of the stand-in for Debian's security archive.
    for k in 'e2e vendor <vendor@example.org>' 'e2e vendor next <vendor-next@example.org>' 'e2e security archive <security@example.org>'; do
      gpg --batch --quiet --passphrase '' --quick-gen-key "$k" ed25519 sign never
    done
    gpg --batch --yes --output "$WORK/keys.key" --export-secret-keys
    gpg --batch --yes --output "$WORK/vendor.gpg" --export vendor@example.org
    gpg --batch --yes --output "$WORK/vendor-next.gpg" --export vendor-next@example.org
    gpg --batch --yes --output "$WORK/security.gpg" --export security@example.org
    # A's revocation certificate, as gpg made it with the key (its first line escaped with ":").
    sed 's/^:-----/-----/' "$GNUPGHOME/openpgp-revocs.d/$(fpr_of vendor@example.org).rev" >"$WORK/vendor.rev"
  fi
  mkdir -p "$WORK/debs" "$WORK/tarballs"
  KEY_ID=$(fpr_of vendor@example.org)
  NEXT_KEY_ID=$(fpr_of vendor-next@example.org)
  SECURITY_KEY_ID=$(fpr_of security@example.org)
  KEY_IDS=("$KEY_ID")
  local v how from
  # The packages say what the bundle says: its security contact and support period.
  local vendor
  vendor=$(tar -xzOf "$BUNDLE" --wildcards '*/vendor.json')
  mapfile -t VENDOR_FLAGS < <(node -e 'const v = JSON.parse(process.argv[1]);
    const flags = { "--security-contact": v.securityContact, "--security-policy": v.securityPolicyUrl, "--support-until": v.supportUntil, "--support-until-reason": v.supportUntilReason };
    for (const [f, x] of Object.entries(flags)) if (x) console.log(`${f}\n${x}`);' "$vendor")
  for v in $(versions); do
    how=${v#*:}; [ "$how" != "$v" ] || how=""
    v=${v%%:*}
    if [ "$REUSE" = 1 ] && [ -f "$WORK/tarballs/pickup-station-$v-linux-$ARCH.tar.gz" ] && ls "$WORK"/debs/pickup-station_"$v"_*.deb >/dev/null 2>&1; then continue; fi
    from=$BUNDLE
    case "$how" in from=*) from="$WORK/tarballs/pickup-station-${how#from=}-linux-$ARCH.tar.gz"; how="" ;; esac
    node "$HERE/restamp.mjs" "$from" "$WORK/tarballs" "$v" ${how:+--break "$how"} >/dev/null
    bash "$ROOT/packaging/deb/build.sh" --arch "$ARCH" --bundle "$WORK/tarballs/pickup-station-$v-linux-$ARCH.tar.gz" \
      "${VENDOR_FLAGS[@]}" --key "$WORK/vendor.gpg" --compression gzip --out "$WORK/debs" | sed 's/^/  /'
  done
  prepare_keyrings
  dummy_deb 1.0
  dummy_deb 1.1
  log "prepared: keys $KEY_ID (next $NEXT_KEY_ID), packages: $(cd "$WORK/debs" && echo *.deb)"
  figure "package size ($ARCH, gzip as built for this test), bytes" "$(stat -c %s "$(deb_of 1.0.0)")"
}
fpr_of() { gpg --batch --with-colons --list-keys "$1" | awk -F: '/^fpr:/ { print $10; exit }'; }
# The keyring packages of the key's life (packaging/deb/keyring.sh): the handover (B and A) and the
# revocation (B, and A with its revocation certificate merged in, exported from a home of its own:
# the signing home keeps A unrevoked, as a thief's copy would be).
KEYRING_HANDOVER=2026.12.1
KEYRING_REVOKED=2026.12.2
prepare_keyrings() {
  [ -f "$WORK/debs/pickup-station-archive-keyring_${KEYRING_REVOKED}_all.deb" ] && [ "$REUSE" = 1 ] && return 0
  local home
  home=$(mktemp -d /tmp/e2e-rev.XXXXXX)
  gpg --homedir "$home" --batch --quiet --import "$WORK/vendor.gpg" "$WORK/vendor.rev"
  gpg --homedir "$home" --batch --yes --output "$WORK/vendor-revoked.gpg" --export "$KEY_ID"
  gpgconf --homedir "$home" --kill gpg-agent 2>/dev/null || true
  rm -rf "$home"
  bash "$ROOT/packaging/deb/keyring.sh" --version "$KEYRING_HANDOVER" --key "$WORK/vendor-next.gpg" --key "$WORK/vendor.gpg" --out "$WORK/debs" | sed 's/^/  /'
  bash "$ROOT/packaging/deb/keyring.sh" --version "$KEYRING_REVOKED" --key "$WORK/vendor-next.gpg" --key "$WORK/vendor-revoked.gpg" --out "$WORK/debs" | sed 's/^/  /'
}
# dummy_deb VERSION: pickup-station-e2e-dummy, the package the security archive's fix is for. 1.1
# asks for a reboot as Debian's kernel packages do (unattended-upgrades' kernel hook writes
# /run/reboot-required), and ships a file under /usr/lib/chromium, as a Chromium update does
# (pickup-station's dpkg trigger asks for the reboot then).
dummy_deb() {
  local d=$WORK/dummy-$1
  rm -rf "$d"
  mkdir -p "$d/DEBIAN" "$d/usr/share/doc/pickup-station-e2e-dummy"
  printf 'Package: pickup-station-e2e-dummy\nVersion: %s\nArchitecture: all\nMaintainer: e2e <e2e@example.org>\nSection: misc\nPriority: optional\nDescription: a package whose security fix the e2e test delivers\n' "$1" >"$d/DEBIAN/control"
  echo "pickup-station-e2e-dummy $1" >"$d/usr/share/doc/pickup-station-e2e-dummy/version"
  if [ "$1" != 1.0 ]; then
    mkdir -p "$d/usr/lib/chromium"
    echo "$1" >"$d/usr/lib/chromium/pickup-station-e2e-dummy"
    printf '#!/bin/sh\nset -e\nif [ "$1" = configure ] && [ -x /etc/kernel/postinst.d/unattended-upgrades ]; then /etc/kernel/postinst.d/unattended-upgrades; fi\n' >"$d/DEBIAN/postinst"
    chmod 0755 "$d/DEBIAN/postinst"
  fi
  dpkg-deb --root-owner-group --build "$d" "$WORK/debs/pickup-station-e2e-dummy_$1_all.deb" >/dev/null
}
deb_of() { ls "$WORK"/debs/pickup-station_"$1"_*.deb; }
# The keyring package published beside each release: the first, until the keys change.
KEYRING_DEB=""
keyring_deb() { if [ -n "$KEYRING_DEB" ]; then echo "$KEYRING_DEB"; else ls "$WORK"/debs/pickup-station-archive-keyring_1.0.0_all.deb; fi; }
publish() {
  local ids=() k
  for k in "${KEY_IDS[@]}"; do ids+=(--key-id "$k"); done
  bash "$ROOT/packaging/apt/publish.sh" --repo "$WORK/repo" "${ids[@]}" --dist stable "$@" >/dev/null
  sync_repo
}
# The repository into the target (file:///srv/pickup-station-repo): what rsync to a web server is in the field.
# Synced to the target's disk: it stands for a server off the board, whose files a power cut of the
# board does not touch (unsynced, the cut truncated InRelease and apt refused the repository).
sync_repo() { tar -C "$WORK/repo" -cf - dists pool | on sh -c 'rm -rf /srv/pickup-station-repo && mkdir -p /srv/pickup-station-repo && tar -xf - -C /srv/pickup-station-repo && sync'; }

# --- the target ---------------------------------------------------------------------------------
installed_version() { on dpkg-query -W -f='${Version}' pickup-station 2>/dev/null || true; }
package_state() { on dpkg-query -W -f='${db:Status-Abbrev}' pickup-station 2>/dev/null | tr -d ' ' || true; }
running_version() { on sh -c 'sed -n "s/.*\"version\":\"\([^\"]*\)\".*/\1/p" /run/pickup-station/release.json 2>/dev/null' || true; }
record() { on sh -c "sed -n 's/.*\"$1\":\"\([^\"]*\)\".*/\1/p' /opt/pickup-station/install-status.json 2>/dev/null" || true; }
dpkg_clean() { [ -z "$(on dpkg --audit 2>&1)" ] && [ "$(package_state)" = ii ]; }
# The unit systemd runs the station under is release VERSION's own (each test release's unit names it).
unit_is() { on cmp -s /usr/lib/systemd/system/pickup-station.service "/opt/pickup-station/releases/$1/systemd/pickup-station.service"; }
locks_off() { # every lock output in the simulated cabinet is OFF (a pulse in progress may end first: 10 s)
  local s i
  for ((i = 0; i < 10 * SLOW; i++)); do
    s=$(on cat /var/lib/pickup-station/doors.json 2>/dev/null || echo '{}')
    grep -q 'true' <<<"$(sed -n 's/.*"locks":\({[^}]*}\).*/\1/p' <<<"$s")" || return 0
    sleep 1
  done
  fail "a lock output is ON: $s"
}
# The station's own dark time in a step: from systemd's first "Stopping" of the unit to its last
# "Started" (no daemon running in between), from the journal since SINCE (epoch seconds).
service_gap() {
  on journalctl --namespace=+pickup-station -u pickup-station --no-pager -o short-unix --since "@$1" | awk '
    / Stopping pickup-station.service/ && !a { a = $1 }
    / Started pickup-station.service/ && a { b = $1 }
    END { if (a && b) printf "%.1f s", b - a; else print "n/a" }'
}
# http METHOD PORT PATH [BODY]: an HTTP/1.0 request on the target's loopback, by the target's bash
# (a node start costs seconds on the emulated board); prints the answer's body.
http() {
  on bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$2" || exit 1
    printf "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %s\r\n\r\n%s" "$1" "$3" "$4" "${#5}" "$5" >&3
    sed "1,/^\r$/d" <&3' http "$1" "$2" "$3" "${TOKEN:-none}" "${4:-}"
}
control() { http GET 8480 "/_control$1"; }
state_times() { # the reference server's clock (ms) of every /state it received, in order
  control /requests | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
    for (const r of JSON.parse(s).requests) if (r.endpoint === "state") console.log(Math.round(r.at));
  })'
}
state_count() { state_times | wc -l; }
dark_ms() { # FROM: the longest gap (ms) between two /state requests from the FROM-th on (the server's
  # view of the station's dark time; the heartbeat is every 30 s, so up to that is no darker than usual)
  state_times | awk -v from="$1" 'NR >= from { if (p && $1 - p > m) m = $1 - p; p = $1 } END { print m + 0 }'
}
wait_for() { # SECONDS WHAT CMD...: until CMD succeeds
  local n=$(($1 * SLOW)) what=$2; shift 2
  for ((i = 0; i < n; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  fail "$what (after ${n}s)"
}
expect_versions() { # INSTALLED RUNNING WHEN: dpkg's version and the running release's
  if [ "$(installed_version)" != "$1" ] || [ "$(running_version)" != "$2" ]; then fail "$3: installed $(installed_version), running $(running_version)"; fi
}
reports_in() { [ "$(on sh -c 'sed -n "s/.*\"firstState\":\"\([a-z]*\)\".*/\1/p" /run/pickup-station/release.json 2>/dev/null')" = answered ]; }
stationctl() { on env STATIONCTL_TOKEN="$TOKEN" stationctl "$@"; }
api() { http GET 8470 "$1"; }
scan() { http POST 8470 /api/inject/scan "{\"value\":\"$1\",\"identifierType\":\"BAR_CODE\"}"; echo; }
metric() { api /metrics | grep -E "^$1"; }
# The release block of /api/status, one field (a JSON value).
release_status() { api /api/status | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
  const r = JSON.parse(s).release; const v = process.argv[1].split(".").reduce((o, k) => (o == null ? o : o[k]), r); console.log(JSON.stringify(v ?? null)); })' "$1"; }
# The station runs VERSION, proven, nothing pending, dpkg clean: where every interruption must end.
settled_on() {
  [ "$(running_version)" = "$1" ] && [ "$(record running)" = "$1" ] && [ "$(record proof)" = proven ] && [ -z "$(record pending)" ] &&
    [ -z "$(record switching)" ] && reports_in && dpkg_clean
}

step_install() {
  put "$WORK/vendor.gpg" /usr/share/keyrings/pickup-station-archive-keyring.gpg
  on sh -c 'printf "Types: deb\nURIs: file:///srv/pickup-station-repo\nSuites: stable\nComponents: main\nSigned-By: /usr/share/keyrings/pickup-station-archive-keyring.gpg\n" > /etc/apt/sources.list.d/pickup-station.sources'
  publish "$(deb_of 1.0.0)" "$(keyring_deb)"
  on apt-get -q update -o Dir::Etc::SourceList=/dev/null >/dev/null
  log "step install: the key, the sources entry and the repository in place"
  DIAGNOSE=1
  local t=$SECONDS
  on "${APT[@]}" install pickup-station | sed 's/^/  /'
  log "step install: apt-get install pickup-station 1.0.0 took $((SECONDS - t)) s; installed $(installed_version)"
  figure "apt-get install (first install, from file://), s" "$((SECONDS - t))"
  figure "installed size, KiB" "$(on dpkg-query -W -f='${Installed-Size}' pickup-station)"
  [ "$(installed_version)" = 1.0.0 ] || fail "dpkg says $(installed_version)"
  [ "$(on dpkg-query -W -f='${db:Status-Abbrev}' pickup-station-archive-keyring | tr -d ' ')" = ii ] || fail "the vendor key package is not installed"
  on test -L /opt/pickup-station/current || fail "no /opt/pickup-station/current"
  # The release's unit, written by the installer with the switch (not a file of the package).
  on cmp -s /usr/lib/systemd/system/pickup-station.service /opt/pickup-station/current/systemd/pickup-station.service || fail "the unit is not the release's own"
  on dpkg -S /usr/lib/systemd/system/pickup-station.service >/dev/null 2>&1 && fail "dpkg owns the unit: it would change at unpack"
  on test ! -e /etc/systemd/system/pickup-station.service || fail "something wrote /etc/systemd/system/pickup-station.service"
  on systemctl is-enabled pickup-station >/dev/null || fail "the unit is not enabled"
  on id pickup-station >/dev/null || fail "no system user"
}

step_configure() {
  # The node the release runs, for the helper scripts below (the target may have no other).
  on sh -c 'ln -sf /opt/pickup-station/current/node/bin/node /usr/bin/pickup-station-e2e-node 2>/dev/null; [ -x /opt/pickup-station/current/node/bin/node ] || ln -sf /usr/bin/node /usr/bin/pickup-station-e2e-node'
  local id pw i boxes=() box_json="" box_ids=""
  id=$(cat /proc/sys/kernel/random/uuid)
  for i in 1 2 3 4 5 6 7 8; do
    boxes+=("$(cat /proc/sys/kernel/random/uuid)")
    box_json+="${box_json:+, }{ \"number\": $i, \"id\": \"${boxes[i - 1]}\" }"
    box_ids+="${box_ids:+,}\"${boxes[i - 1]}\""
  done
  pw=$(head -c 10 /dev/urandom | od -An -tx1 | tr -d ' \n')   # the spec: 20 characters A-Z a-z 0-9
  # Items waiting to be deposited, item n into box n: each scan opens its box (the reference server's records).
  local deposits=""
  for i in 1 2 3 4 5 6 7 8; do
    deposits+="${deposits:+,}{\"identifierValue\":\"E2E$(printf '%010d' "$i")\",\"identifierType\":\"BAR_CODE\",\"stationId\":\"$id\",\"boxId\":\"${boxes[i - 1]}\"}"
  done
  printf '{"stations":[{"id":"%s","password":"%s","boxes":[%s]}],"deposits":[%s],"pickups":[]}\n' "$id" "$pw" "$box_ids" "$deposits" >"$WORK/stations.json"
  put "$WORK/stations.json" /root/e2e/stations.json
  # The reference server: a copy of 1.0.0's sim-server (the releases come and go), a unit started at
  # boot before the station (a power cut takes it down with the board).
  on sh -c 'rm -rf /root/e2e/sim && mkdir -p /root/e2e/sim && cp -al /opt/pickup-station/releases/1.0.0/. /root/e2e/sim/ &&
    node=/root/e2e/sim/node/bin/node; [ -x $node ] || node=/usr/bin/node
    printf "[Unit]\nDescription=e2e: the reference station server\nBefore=pickup-station.service\n[Service]\nExecStart=$node /root/e2e/sim/app/main.js sim-server --port 8480 --stations-file /root/e2e/stations.json\n[Install]\nWantedBy=multi-user.target\n" > /etc/systemd/system/pickup-e2e-server.service &&
    systemctl daemon-reload && systemctl enable --now pickup-e2e-server >/dev/null 2>&1'
  wait_for 30 "the reference server did not come up" control /stations
  # A service token as `stationctl token new` makes one (256 random bits; the config keeps its sha256).
  TOKEN=pst_$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64url"))')
  local entry
  entry="\"sha256:$(printf '%s' "$TOKEN" | sha256sum | cut -d' ' -f1)\""
  cat >"$WORK/config.json" <<EOF
{
  "station": { "id": "$id", "boxes": [ $box_json ] },
  "server": { "baseUrl": "http://127.0.0.1:8480" },
  "hardware": { "kind": "simulated", "stateFile": "/var/lib/pickup-station/doors.json" },
  "technician": { "tokens": [ { "name": "e2e", "scope": "service", "hash": $entry } ] },
  "log": { "level": "info" }
}
EOF
  put "$WORK/config.json" /etc/pickup-station/config.json
  printf '%s' "$pw" >"$WORK/pw"
  # The password as the operator commissions it: encrypted for this machine (docs/operating.md).
  put "$WORK/pw" /root/station-password
  on sh -c 'systemd-creds encrypt --with-key=auto --name=station-password /root/station-password /etc/pickup-station/credentials/station-password.cred && rm /root/station-password; chmod 0600 /etc/pickup-station/credentials/station-password.cred; chown root:pickup-station /etc/pickup-station/config.json; chmod 0640 /etc/pickup-station/config.json'
  # The package's conffile, as a fleet sets it: defer at once when the station is in use.
  on sh -c "printf 'LOCK_WAIT=0\nHEALTH_WAIT=$HEALTH_WAIT\nDEFER_WAIT=$((600 * SLOW))\nREPAIR_WAIT=$((60 * SLOW))\n' > /etc/default/pickup-station"
  local t=$SECONDS
  on systemctl restart pickup-station
  wait_for 90 "the station did not report in" reports_in
  log "step configure: the station reported in $((SECONDS - t)) s after the start (running $(running_version))"
  figure "systemctl restart -> first /state answered, s" "$((SECONDS - t))"
  deposit
}

# A deposit: item n's scan, box n opens (the door springs open), the door is closed again
# (unless leave-open: a reader still at the open box; close_door n later).
DEPOSITS=0
deposit() {
  DEPOSITS=$((DEPOSITS + 1))
  scan "E2E$(printf '%010d' "$DEPOSITS")" | sed 's/^/  /'
  wait_for 30 "box $DEPOSITS did not open" on grep -q "\"$DEPOSITS\":\"OPEN\"" /var/lib/pickup-station/doors.json
  if [ "${1:-}" = leave-open ]; then return 0; fi
  close_door "$DEPOSITS"
}
close_door() {
  # A person closes the door once the lock has released (its output OFF in the file). The station
  # rewrites the whole file on every door and lock change: a write of its own landing between ours
  # and its file watch's read puts the door back to OPEN (seen on the emulated board, where the
  # pulse outlasts the test's first look); so the door is closed again until the station took it.
  # In place (same file, owner and mode), as a person's change seen by the station's file watch.
  local f=/var/lib/pickup-station/doors.json
  wait_for 30 "the lock of box $1 did not switch OFF" on grep -q "\"locks\":{[^}]*\"$1\":false" "$f"
  local i
  for ((i = 0; i < 30 * SLOW; i++)); do
    on sh -c "if grep -q '\"$1\":\"OPEN\"' $f; then c=\$(sed 's/\"$1\":\"OPEN\"/\"$1\":\"CLOSED\"/' $f) && printf '%s' \"\$c\" > $f; fi
      sleep 1; ! test -e /run/pickup-station/updates.lock" && break
  done
  [ "$i" -lt $((30 * SLOW)) ] || fail "box $1 did not close (the update lock is still held after ${i} tries)"
  locks_off
}

# A busy station defers: the package configures at once (dpkg clean, apt exits 0), the running
# release keeps serving, "upgrade pending" shows; once the box is closed the upgrade service switches.
# restarting: the station's process is killed while the box is open (as the watchdog or the OOM
# killer would): its update lock goes with it, and the upgrade comes while the unit waits to start
# the next one (a runtime drop-in holds RestartSec= open so the upgrade lands there); it defers all
# the same, and the next process, restored from its journal, holds the lock until the door closes.
step_upgrade_deferred() {
  local restarting="${1:-}"
  publish "$(deb_of 1.1.0)" "$(keyring_deb)"
  on apt-get -q update >/dev/null
  deposit leave-open
  on test -e /run/pickup-station/updates.lock || fail "a box is open but the update lock is not held"
  local t=$SECONDS from since rc=0 expect='the switch waits: the station is in use ('
  from=$(state_count)
  since=$(on date +%s)
  if [ -n "$restarting" ]; then
    on sh -c 'mkdir -p /run/systemd/system/pickup-station.service.d && printf "[Service]\nRestartSec=900s\n" > /run/systemd/system/pickup-station.service.d/e2e-restart.conf && systemctl daemon-reload'
    on systemctl kill -s KILL pickup-station
    wait_for 60 "the killed station's unit is not waiting to start again" on sh -c '[ "$(systemctl show -p SubState --value pickup-station)" = auto-restart ]'
    on test ! -e /run/pickup-station/updates.lock || fail "the killed process's update lock is still there"
    expect='the switch waits: the station is in use (it is restarting: activating/auto-restart)'
  fi
  on sh -c "${APT[*]} upgrade > /root/e2e/upgrade-1.1.0.log 2>&1" || rc=$?
  local took=$((SECONDS - t))
  [ "$rc" = 0 ] || { on cat /root/e2e/upgrade-1.1.0.log; fail "apt-get upgrade with the station in use exited $rc"; }
  on grep -qF "$expect" /root/e2e/upgrade-1.1.0.log || { on cat /root/e2e/upgrade-1.1.0.log; fail "the upgrade did not defer (no \"$expect\")"; }
  if [ -n "$restarting" ]; then
    [ "$(installed_version)" = 1.1.0 ] || fail "dpkg says $(installed_version)"
    unit_is 1.0.0 || fail "the unit changed while the station was restarting"
    # The unit's own restart comes with the shorter RestartSec= once reloaded; a start asked for beside
    # it may be merged into another job or cancelled by one ("Job … canceled"): the unit starts anyway.
    on sh -c 'rm /run/systemd/system/pickup-station.service.d/e2e-restart.conf && systemctl daemon-reload && { systemctl start pickup-station || true; }'
    wait_for 90 "the restarted station did not report in" reports_in
    on test -e /run/pickup-station/updates.lock || fail "the restarted station does not hold the update lock with box $DEPOSITS open"
    log "step restarting: killed with box $DEPOSITS open; apt-get upgrade while the unit waited to restart deferred ($expect); the next process holds the lock: $(on cat /run/pickup-station/updates.lock)"
  fi
  [ "$(running_version)" = 1.0.0 ] || fail "1.0.0 stopped while a box was open (running: $(running_version))"
  on test -e /run/pickup-station/updates.lock || fail "the box is no longer open"
  dpkg_clean || fail "dpkg is not clean after the deferred upgrade: $(on dpkg --audit 2>&1) $(package_state)"
  [ "$(installed_version)" = 1.1.0 ] || fail "dpkg says $(installed_version)"
  # dpkg unpacked 1.1.0 and configured it: the running 1.0.0 still runs under its own unit.
  unit_is 1.0.0 || fail "the unit changed before the switch (dpkg's unpack or configure)"
  [ "$(release_status pending)" = '"1.1.0"' ] || fail "the status does not say upgrade pending: $(release_status pending)"
  metric 'pickup_station_upgrade_pending\{[^}]*version="1\.1\.0"[^}]*\} 1$' >/dev/null || fail "pickup_station_upgrade_pending is not 1 for 1.1.0"
  on systemctl is-active --quiet pickup-station-upgrade.service && log "  pickup-station-upgrade.service waits: $(on journalctl -u pickup-station-upgrade -n 1 -o cat --no-pager)"
  log "step deferred: apt-get upgrade exited 0 after $took s with box $DEPOSITS open; 1.0.0 serves, dpkg clean, 1.1.0 pending"
  figure "busy station: apt-get upgrade exit 0 with a box open (unpack + configure, switch deferred), s" "$took"
  local closed=$SECONDS
  close_door "$DEPOSITS"
  wait_for $((2 * HEALTH_WAIT)) "the deferred switch to 1.1.0 did not happen after the door closed" settled_on 1.1.0
  local after_close=$((SECONDS - closed))
  expect_versions 1.1.0 1.1.0 "after the deferred upgrade"
  unit_is 1.1.0 || fail "1.1.0 does not run under its own unit"
  locks_off
  local down dark
  down=$(service_gap "$since")
  dark=$(dark_ms "$from")
  log "step deferred: pickup-station-upgrade.service switched to 1.1.0 $after_close s after the door closed; service down $down, longest gap between two /state at the server $dark ms"
  figure "busy station: from the door closed to 1.1.0 proven (pickup-station-upgrade.service), s" "$after_close"
  figure "deferred upgrade: service down (systemd Stopping -> Started)" "$down"
  figure "deferred upgrade: longest gap between two /state at the server (heartbeat 30 s), ms" "$dark"
  [ "$(release_status pending)" = null ] || fail "still pending: $(release_status pending)"
  metric 'pickup_station_release_proven(\{[^}]*\})? 1$' >/dev/null || fail "pickup_station_release_proven is not 1"
  deposit
}

# Reinstalling the version that runs changes nothing and restarts nothing (docs/fleet.md).
step_reinstall() {
  local pid0 rc=0 t=$SECONDS
  pid0=$(on systemctl show -p MainPID --value pickup-station)
  on sh -c "${APT[*]} install --reinstall pickup-station > /root/e2e/reinstall.log 2>&1" || rc=$?
  [ "$rc" = 0 ] || { on cat /root/e2e/reinstall.log; fail "apt-get install --reinstall exited $rc"; }
  local pid1
  pid1=$(on systemctl show -p MainPID --value pickup-station)
  [ "$pid1" = "$pid0" ] || fail "the reinstall restarted the station (MainPID $pid0 -> $pid1)"
  expect_versions 1.1.0 1.1.0 "after the reinstall"
  on grep -q 'release 1.1.0 is already installed' /root/e2e/reinstall.log || { on cat /root/e2e/reinstall.log; fail "the reinstall did not find the release in place"; }
  locks_off
  log "step reinstall: apt-get install --reinstall of 1.1.0: exit 0 after $((SECONDS - t)) s, the same process (MainPID $pid0), nothing restarted"
  figure "reinstall of the running version: apt-get exit 0 after, s" "$((SECONDS - t))"
}

# A release that fails its proof: rolled back by the postinst itself, the package configured (dpkg
# clean), the failure recorded (known bad) and shown.
step_broken() { # VERSION KIND
  publish "$(deb_of "$1")" "$(keyring_deb)"
  on apt-get -q update >/dev/null
  local t=$SECONDS from rc=0 since
  from=$(state_count)
  since=$(on date +%s)
  on sh -c "${APT[*]} upgrade > /root/e2e/upgrade-$1.log 2>&1" || rc=$?
  local took=$((SECONDS - t))
  [ "$rc" = 0 ] || { on cat "/root/e2e/upgrade-$1.log"; fail "apt-get upgrade to the broken $1 exited $rc (the package must configure, dpkg clean)"; }
  on grep -E 'rolled back|not healthy' "/root/e2e/upgrade-$1.log" | sed 's/^/  /'
  # The bound: the new release's start and proof (at most HEALTH_WAIT), then the previous one's.
  local back
  back=$(on grep -o 'is running again after [0-9]*s' "/root/e2e/upgrade-$1.log" | grep -o '[0-9]*s$' | tr -d s || true)
  if [ -z "$back" ] || [ "$back" -gt $((2 * HEALTH_WAIT)) ]; then fail "the rollback from $1 was not done within 2 x $HEALTH_WAIT s (${back:-no} s)"; fi
  [ "$(running_version)" = 1.1.0 ] || fail "after the rollback: running $(running_version)"
  unit_is 1.1.0 || fail "after the rollback, 1.1.0 does not run under its own unit"
  wait_for 60 "1.1.0 did not report in again" reports_in
  locks_off
  dpkg_clean || fail "dpkg is not clean after the rollback: $(on dpkg --audit 2>&1) $(package_state)"
  on journalctl -t pickup-station-install --no-pager -o cat | grep -q "upgrade from 1.1.0 to $1 failed" || fail "no journal line naming 1.1.0 and $1"
  local down dark
  down=$(service_gap "$since")
  dark=$(dark_ms "$from")
  log "step broken $1 ($2): apt-get exit 0 after $took s; running 1.1.0 again; dpkg: $(installed_version) ($(package_state)); service down $down, longest gap between two /state at the server $dark ms"
  figure "rollback ($2): apt-get upgrade exit 0 after, s" "$took"
  figure "rollback ($2): switched back and the previous release proven healthy, s after the new one's start (bound 2 x $HEALTH_WAIT)" "$back"
  figure "rollback ($2): service down (systemd Stopping -> Started)" "$down"
  figure "rollback ($2): longest gap between two /state at the server, ms" "$dark"
  shows_known_bad "$1"
  deposit
}
shows_known_bad() { # VERSION: in the journal, the metrics and the status
  on journalctl -t pickup-station-install --no-pager -o cat | grep "to $1" | tail -n 2 | sed 's/^/  journal: /'
  metric pickup_station_release | sed 's/^/  metric: /'
  metric 'pickup_station_release_mismatch(\{[^}]*\})? 1$' >/dev/null || fail "release_mismatch is not 1"
  metric "pickup_station_release_known_bad\\{[^}]*version=\"${1//./\\.}\"[^}]*\\} 1$" >/dev/null || fail "release_known_bad is not 1 for $1"
  [ "$(release_status knownBad.version)" = "\"$1\"" ] || fail "the status does not name $1 as known bad: $(release_status knownBad)"
  stationctl status | grep '^release' | sed 's/^/  stationctl: /'
}

# The next configure of the known-bad release (what dpkg --configure -a or a reinstall runs) does not
# try it again: nothing restarts.
step_known_bad() { # VERSION
  local pid0 rc=0 t=$SECONDS
  pid0=$(on systemctl show -p MainPID --value pickup-station)
  on sh -c "DEBIAN_FRONTEND=noninteractive dpkg-reconfigure pickup-station > /root/e2e/reconfigure.log 2>&1" || rc=$?
  [ "$rc" = 0 ] || { on cat /root/e2e/reconfigure.log; fail "dpkg-reconfigure exited $rc"; }
  on grep -q "release $1 failed its proof before" /root/e2e/reconfigure.log || { on cat /root/e2e/reconfigure.log; fail "the known-bad $1 was not recognised"; }
  [ "$(on systemctl show -p MainPID --value pickup-station)" = "$pid0" ] || fail "the station restarted for a known-bad release"
  on "${APT[@]}" install pickup-station >/dev/null || fail "apt-get install after the known-bad release failed"
  dpkg_clean || fail "dpkg is not clean"
  log "step known-bad: the configure of $1 again: exit 0 after $((SECONDS - t)) s, not tried, the same process (MainPID $pid0)"
}

# install.sh --rollback after an automatic rollback goes to the proven release before, never to the
# failed one; and forward again.
step_emergency_rollback() {
  local out
  out=$(on /opt/pickup-station/current/systemd/install.sh --rollback 2>&1) || { echo "$out"; fail "install.sh --rollback failed"; }
  [ "$(running_version)" = 1.0.0 ] || fail "the emergency rollback went to $(running_version), not the proven 1.0.0"
  wait_for 60 "1.0.0 did not report in" reports_in
  out=$(on /opt/pickup-station/current/systemd/install.sh --rollback 2>&1) || { echo "$out"; fail "install.sh --rollback (forward) failed"; }
  [ "$(running_version)" = 1.1.0 ] || fail "rolling back twice did not roll forward: running $(running_version)"
  wait_for 60 "1.1.0 did not report in" reports_in
  log "step rollback: install.sh --rollback went to the proven 1.0.0 (not the failed 1.2.0), and forward to 1.1.0 again"
}

step_tampered() {
  # A package signed into the index, then changed: 1.4.0 (1.1.0's release), one byte appended after
  # publishing (the pool holds a copy: the package in debs/ stays intact, and --reuse reuses it).
  publish "$(deb_of 1.4.0)"
  local pool
  pool=$(ls "$WORK"/repo/pool/main/p/pickup-station/pickup-station_1.4.0_*.deb)
  printf '\0' >>"$pool"
  sync_repo
  on apt-get -q update >/dev/null
  local rc=0 out
  out=$(on "${APT[@]}" upgrade 2>&1) || rc=$?
  if [ "$rc" = 0 ] || ! grep -qE 'Hash Sum mismatch|unexpected size' <<<"$out"; then echo "$out"; fail "apt accepted a package changed after signing"; fi
  [ "$(running_version)" = 1.1.0 ] || fail "running $(running_version) after the refused package"
  log "step tampered: the package changed after signing is refused: $(grep -oE 'Hash Sum mismatch|File has unexpected size[^)]*\)' <<<"$out" | head -n 1)"
}

# A downgrade to an older package (an operator's own .deb: the repository keeps one version per
# suite) is a switch like an upgrade: the wait, the health check, then the older release runs and
# installed = running again, which also ends a failed version's rolled-back state.
step_downgrade() {
  put "$(deb_of 1.0.0)" /root/e2e/pickup-station_1.0.0.deb
  local t=$SECONDS rc=0 since from
  from=$(state_count)
  since=$(on date +%s)
  on sh -c "${APT[*]} install --allow-downgrades /root/e2e/pickup-station_1.0.0.deb > /root/e2e/downgrade.log 2>&1" || rc=$?
  local took=$((SECONDS - t))
  [ "$rc" = 0 ] || { on cat /root/e2e/downgrade.log; fail "apt-get install --allow-downgrades 1.0.0 exited $rc"; }
  expect_versions 1.0.0 1.0.0 "after the downgrade"
  unit_is 1.0.0 || fail "after the downgrade, 1.0.0 does not run under its own unit"
  on grep -q 'release 1.0.0 is healthy' /root/e2e/downgrade.log || { on cat /root/e2e/downgrade.log; fail "the downgrade did not prove 1.0.0 healthy"; }
  wait_for 60 "1.0.0 did not report in after the downgrade" reports_in
  locks_off
  metric 'pickup_station_release_mismatch(\{[^}]*\})? 0$' >/dev/null || fail "release_mismatch is not 0 after the downgrade"
  local down
  down=$(service_gap "$since")
  log "step downgrade: to 1.0.0 (dpkg had the failed 1.2.0, 1.1.0 ran): apt-get exit 0 after $took s; service down $down, longest gap between two /state at the server $(dark_ms "$from") ms; release_mismatch 0"
  figure "downgrade: apt-get install --allow-downgrades exit 0 after, s" "$took"
  deposit
}

# The administrator masked the unit (the station taken out of service): an upgrade leaves it masked
# and stopped; the switch happens once it is unmasked and started.
step_masked() {
  on systemctl mask --now pickup-station >/dev/null 2>&1
  put "$(deb_of 1.1.0)" /root/e2e/pickup-station_1.1.0.deb
  local rc=0
  on sh -c "${APT[*]} install /root/e2e/pickup-station_1.1.0.deb > /root/e2e/masked.log 2>&1" || rc=$?
  [ "$rc" = 0 ] || { on cat /root/e2e/masked.log; fail "apt-get install with the unit masked exited $rc"; }
  on grep -q 'the switch waits: the unit is masked' /root/e2e/masked.log || { on cat /root/e2e/masked.log; fail "the upgrade did not leave the masked unit alone"; }
  [ "$(on systemctl is-enabled pickup-station 2>&1)" = masked ] || fail "the unit is no longer masked: $(on systemctl is-enabled pickup-station 2>&1)"
  on systemctl is-active --quiet pickup-station && fail "the masked station was started"
  [ "$(record pending)" = 1.1.0 ] || fail "1.1.0 is not pending: $(record pending)"
  dpkg_clean || fail "dpkg is not clean"
  locks_off
  on systemctl unmask pickup-station >/dev/null 2>&1
  on systemctl start pickup-station
  wait_for $((2 * HEALTH_WAIT)) "1.1.0 did not take over after the unit was unmasked and started" settled_on 1.1.0
  log "step masked: the upgrade left the masked unit masked and stopped (1.1.0 pending); unmasked and started, 1.1.0 switched and proven"
  deposit
}

step_remove() {
  on "${APT[@]}" remove pickup-station | sed 's/^/  /'
  on systemctl is-active pickup-station >/dev/null && fail "still active after remove"
  locks_off
  on test -f /etc/pickup-station/config.json || fail "remove took the config"
  on test -f /etc/pickup-station/credentials/station-password.cred || fail "remove took the credentials"
  on test ! -e /opt/pickup-station || fail "remove left /opt/pickup-station"
  on test ! -e /usr/lib/systemd/system/pickup-station.service || fail "remove left the release's unit"
  # The vendor key stays (its own package): the repository is still trusted.
  [ "$(on dpkg-query -W -f='${db:Status-Abbrev}' pickup-station-archive-keyring | tr -d ' ')" = ii ] || fail "the vendor key package went with pickup-station"
  on apt-get -q update >/dev/null || fail "apt-get update fails after the remove"
  on "${APT[@]}" purge pickup-station | sed 's/^/  /'
  on test ! -e /etc/pickup-station || fail "purge left /etc/pickup-station"
  on test ! -e /var/lib/pickup-station || fail "purge left /var/lib/pickup-station"
  log "step remove: remove stopped it (locks OFF) and kept config, credentials and the vendor key; purge removed config and state"
  on systemctl disable --now pickup-e2e-server >/dev/null 2>&1 || true
}

# --- the operating system's security fixes, unattended -----------------------------------------
# The stand-in for Debian's security archive: what unattended-upgrades' Origins-Pattern (the
# package's 52pickup-station-unattended-upgrades) matches, signed by its own key.
security_repo() { # DEB...
  local d=$WORK/security codename deb
  codename=$(on sh -c '. /etc/os-release && echo "$VERSION_CODENAME"')
  rm -rf "$d" && mkdir -p "$d/conf"
  printf 'Origin: Debian\nLabel: Debian-Security\nSuite: stable-security\nCodename: %s-security\nArchitectures: amd64 arm64 armhf\nComponents: main\nDescription: stand-in for the Debian security archive (e2e)\nSignWith: %s\n' \
    "$codename" "$SECURITY_KEY_ID" >"$d/conf/distributions"
  for deb in "$@"; do reprepro -b "$d" includedeb "$codename-security" "$deb" >/dev/null; done
  put "$WORK/security.gpg" /usr/share/keyrings/e2e-security-archive.gpg
  on sh -c "printf 'Types: deb\nURIs: file:///srv/e2e-security\nSuites: $codename-security\nComponents: main\nSigned-By: /usr/share/keyrings/e2e-security-archive.gpg\n' > /etc/apt/sources.list.d/e2e-security.sources"
  tar -C "$d" -cf - dists pool | on sh -c 'rm -rf /srv/e2e-security && mkdir -p /srv/e2e-security && tar -xf - -C /srv/e2e-security && sync'
}
boot_id() { on cat /proc/sys/kernel/random/boot_id; }

# A security fix arrives by the timers' services while the station is in use; the reboot it needs
# waits for the station to be free, then happens by itself. The vendor's handover keyring comes
# in the same unattended run (the vendor's origin).
step_security() {
  put "$WORK/debs/pickup-station-e2e-dummy_1.0_all.deb" /root/e2e/pickup-station-e2e-dummy_1.0_all.deb
  on "${APT[@]}" install /root/e2e/pickup-station-e2e-dummy_1.0_all.deb >/dev/null || fail "the dummy package 1.0 did not install"
  security_repo "$WORK/debs/pickup-station-e2e-dummy_1.1_all.deb"
  # The handover keyring, signed by both keys (a board trusting either verifies it).
  KEY_IDS=("$KEY_ID" "$NEXT_KEY_ID")
  KEYRING_DEB=$WORK/debs/pickup-station-archive-keyring_${KEYRING_HANDOVER}_all.deb
  publish "$KEYRING_DEB"
  on systemctl is-active --quiet pickup-station-reboot.path || fail "pickup-station-reboot.path is not watching /run/reboot-required: $(on systemctl status pickup-station-reboot.path --no-pager 2>&1 | head -n 5)"
  deposit leave-open
  on test -e /run/pickup-station/updates.lock || fail "a box is open but the update lock is not held"
  local boot0 t=$SECONDS took
  boot0=$(boot_id)
  # What apt-daily.timer and apt-daily-upgrade.timer start (their calendars not waited for).
  on systemctl start apt-daily.service || log "  apt-daily.service failed (the image's Debian mirrors are out of reach): the file:// sources are read all the same"
  on systemctl start apt-daily-upgrade.service || fail "apt-daily-upgrade.service failed: $(on journalctl -u apt-daily-upgrade -n 20 --no-pager -o cat)"
  took=$((SECONDS - t))
  on sh -c 'tail -n 20 /var/log/unattended-upgrades/unattended-upgrades.log' | sed 's/^/  u-u: /'
  [ "$(on dpkg-query -W -f='${Version}' pickup-station-e2e-dummy)" = 1.1 ] || fail "unattended-upgrades did not install the security archive's 1.1"
  [ "$(on dpkg-query -W -f='${Version}' pickup-station-archive-keyring)" = "$KEYRING_HANDOVER" ] || fail "unattended-upgrades did not install the vendor's handover keyring"
  on test -e /run/reboot-required || fail "no /run/reboot-required after the update"
  local pkgs
  pkgs=$(on sort -u /run/reboot-required.pkgs | tr '\n' ' ')
  grep -q pickup-station-e2e-dummy <<<"$pkgs" || fail "the kernel hook did not name the dummy package: $pkgs"
  grep -q chromium <<<"$pkgs" || fail "pickup-station's trigger on /usr/lib/chromium did not ask for the reboot: $pkgs"
  log "step security: apt-daily + apt-daily-upgrade exited after $took s: dummy 1.1 (security archive) and keyring $KEYRING_HANDOVER (vendor) installed; reboot required for: $pkgs"
  figure "security: apt-daily.service + apt-daily-upgrade.service (unattended-upgrades), s" "$took"
  # The reboot waits while the box is open.
  wait_for 60 "pickup-station-reboot.service does not wait for the station" on sh -c \
    'journalctl -u pickup-station-reboot.service -b --no-pager -o cat | grep -q "waits: the station is in use"'
  [ "$(on systemctl show -p ActiveState --value pickup-station-reboot.service)" = activating ] || fail "pickup-station-reboot.service is not waiting"
  [ "$(boot_id)" = "$boot0" ] || fail "the board rebooted while a box was open"
  on journalctl -u pickup-station-reboot.service -b --no-pager -o cat | sed 's/^/  reboot: /' | tail -n 3
  # The door closed as close_door does, except that the board goes down once the station is free:
  # every command may be the last one it answers.
  local f=/var/lib/pickup-station/doors.json n=$DEPOSITS i closed
  wait_for 30 "the lock of box $n did not switch OFF" on grep -q "\"locks\":{[^}]*\"$n\":false" "$f"
  closed=$SECONDS
  for ((i = 0; i < 30 * SLOW; i++)); do
    on sh -c "if grep -q '\"$n\":\"OPEN\"' $f; then c=\$(sed 's/\"$n\":\"OPEN\"/\"$n\":\"CLOSED\"/' $f) && printf '%s' \"\$c\" > $f; fi" 2>/dev/null || break
    sleep 1
    on test -e /run/pickup-station/updates.lock 2>/dev/null || break
  done
  $POWER down || fail "the board did not go down after the door closed"
  local down=$((SECONDS - closed)) t1=$SECONDS
  boot_target
  wait_for 600 "the station did not report in after the reboot" reports_in
  local back=$((SECONDS - t1))
  [ "$(boot_id)" != "$boot0" ] || fail "no reboot happened"
  on test ! -e /run/reboot-required || fail "/run/reboot-required is still there after the reboot"
  on journalctl -b -1 -t pickup-station-install --no-pager -o cat | grep -q 'rebooting for .*: the station is free' ||
    fail "no journal line of the reboot in the boot before: $(on journalctl -b -1 -t pickup-station-install --no-pager -o cat | tail -n 5)"
  settled_on "$(running_version)" || fail "not settled after the reboot"
  locks_off
  log "step security: the door closed: the board went down $down s later (pickup-station-reboot.service); boot -> first /state $back s"
  figure "security: door closed -> the board down (the reboot once free), s" "$down"
  figure "security: boot -> the station reports in, s" "$back"
}

# --- the signing key's life ----------------------------------------------------------------------
installed_keyring_is() { # DEB: the board's keyring file is that keyring package's
  local x
  x=$(mktemp -d)
  dpkg-deb --fsys-tarfile "$1" | tar -xf - -C "$x" ./usr/share/keyrings/pickup-station-archive-keyring.gpg
  on cat /usr/share/keyrings/pickup-station-archive-keyring.gpg | cmp -s - "$x/usr/share/keyrings/pickup-station-archive-keyring.gpg"
  local rc=$?
  rm -rf "$x"
  return "$rc"
}
# The handover keyring (both keys) in place, then the repository signed by the new key alone.
step_rotate() {
  local t=$SECONDS
  if [ "$(on dpkg-query -W -f='${Version}' pickup-station-archive-keyring)" != "$KEYRING_HANDOVER" ]; then
    KEY_IDS=("$KEY_ID" "$NEXT_KEY_ID")
    KEYRING_DEB=$WORK/debs/pickup-station-archive-keyring_${KEYRING_HANDOVER}_all.deb
    publish "$KEYRING_DEB"
    on apt-get -q update >/dev/null || fail "apt-get update (the repository signed by both keys) failed"
    on "${APT[@]}" install pickup-station-archive-keyring >/dev/null || fail "the handover keyring did not install"
  fi
  installed_keyring_is "$WORK/debs/pickup-station-archive-keyring_${KEYRING_HANDOVER}_all.deb" || fail "the board's keyring is not the handover's (both keys)"
  KEY_IDS=("$NEXT_KEY_ID")
  publish "$KEYRING_DEB"
  local out rc=0
  out=$(on apt-get -q update 2>&1) || rc=$?
  [ "$rc" = 0 ] || { echo "$out"; fail "apt-get update of the repository signed by the new key alone failed"; }
  gpgv --homedir "$GNUPGHOME" --keyring "$WORK/vendor.gpg" "$WORK/repo/dists/stable/InRelease" 2>/dev/null && fail "the repository is still signed by the old key"
  log "step rotate: the keyring $KEYRING_HANDOVER trusts both keys; the repository signed by $NEXT_KEY_ID alone verifies ($((SECONDS - t)) s)"
  figure "keys: the handover keyring in place, the repository re-signed by the new key, apt-get update, s" "$((SECONDS - t))"
}
# A release from the repository the new key alone signs installs (container: 1.5.0; full, when --steps
# leaves out the matrix whose rows do it: 2.1.0).
step_new_key_release() {
  publish "$(deb_of "$1")" "$(keyring_deb)"
  on apt-get -q update >/dev/null
  on "${APT[@]}" upgrade >/dev/null || fail "apt-get upgrade to $1 (signed by the new key) failed"
  wait_for $((2 * HEALTH_WAIT)) "$1 (signed by the new key) is not settled" settled_on "$1"
  log "step rotate: $1, from the repository signed by the new key, installed and proven"
}
# The first key revoked: its revocation reaches the board in the keyring package (signed by the new
# key); then a repository and a bundle signed by the revoked key are refused.
step_revoke() {
  local t=$SECONDS before installed
  KEY_IDS=("$NEXT_KEY_ID")
  KEYRING_DEB=$WORK/debs/pickup-station-archive-keyring_${KEYRING_REVOKED}_all.deb
  publish "$KEYRING_DEB"
  on apt-get -q update >/dev/null || fail "apt-get update before the revocation failed"
  on "${APT[@]}" install pickup-station-archive-keyring >/dev/null || fail "the keyring with the revocation did not install"
  installed_keyring_is "$KEYRING_DEB" || fail "the board's keyring is not the one with the revocation"
  before=$(running_version)
  installed=$(installed_version)
  # The stolen key signs a repository with a newer release (a compromised mirror serves it).
  local evil=$WORK/repo-stolen-key out rc=0
  rm -rf "$evil"
  bash "$ROOT/packaging/apt/publish.sh" --repo "$evil" --key-id "$KEY_ID" --dist stable "$(deb_of 9.0.0)" >/dev/null
  tar -C "$evil" -cf - dists pool | on sh -c 'rm -rf /srv/pickup-station-repo && mkdir -p /srv/pickup-station-repo && tar -xf - -C /srv/pickup-station-repo && sync'
  # apt refuses the index; where it had one from that source it keeps it and exits 0 with a warning
  # ("The repository is not updated and the previous index files will be used").
  out=$(on apt-get -q update 2>&1) || rc=$?
  if ! grep -q "REVKEYSIG $(cut -c25-40 <<<"$KEY_ID")" <<<"$out"; then echo "$out"; fail "apt accepted a repository signed by the revoked key"; fi
  if on apt-cache policy pickup-station | grep -q '9\.0\.0'; then fail "apt's index offers 9.0.0 from the repository the revoked key signs"; fi
  on "${APT[@]}" upgrade >/dev/null 2>&1 || true
  if [ "$(installed_version)" != "$installed" ] || [ "$(running_version)" != "$before" ]; then
    fail "a release signed by the revoked key was installed: dpkg $(installed_version), running $(running_version)"
  fi
  # A bundle signed by it: the installer refuses it before unpacking anything.
  printf 'not a release\n' >"$WORK/stolen.tar.gz"
  gpg --batch --yes --local-user "$KEY_ID" --output "$WORK/stolen.tar.gz.sig" --detach-sign "$WORK/stolen.tar.gz"
  put "$WORK/stolen.tar.gz" /root/e2e/stolen.tar.gz
  put "$WORK/stolen.tar.gz.sig" /root/e2e/stolen.tar.gz.sig
  local bundle_out brc=0
  bundle_out=$(on /opt/pickup-station/current/systemd/install.sh --bundle /root/e2e/stolen.tar.gz 2>&1) || brc=$?
  if [ "$brc" = 0 ] || ! grep -q 'REVKEYSIG' <<<"$bundle_out"; then echo "$bundle_out"; fail "install.sh did not refuse a bundle signed by the revoked key"; fi
  # The vendor's own repository again (the mirror repaired).
  sync_repo
  on apt-get -q update >/dev/null || fail "apt-get update of the repository signed by the new key failed after the revocation"
  log "step revoke: keyring $KEYRING_REVOKED ($KEY_ID revoked); its repository refused ($(grep -o 'REVKEYSIG [0-9A-F]*' <<<"$out" | head -n 1), apt-get update exit $rc, $(grep -c 'previous index files will be used' <<<"$out") warning(s) that the index it had stays), 9.0.0 not offered nor installed, $before runs; its bundle refused; $((SECONDS - t)) s"
  figure "keys: the revocation in place and what the revoked key signs refused (repository and bundle), s" "$((SECONDS - t))"
}

# A target that ran this before: back to no package at all. A release installed from its tarball
# (the board's compact run) goes by the installer's own --uninstall --purge: a board moving from
# tarballs to the apt repository.
reset_target() {
  on sh -c 'if ! dpkg-query -W pickup-station >/dev/null 2>&1 && [ -x /opt/pickup-station/current/systemd/install.sh ]; then
    /opt/pickup-station/current/systemd/install.sh --uninstall --purge; fi' | sed 's/^/  /'
  log "reset: no release installed from a tarball"
  on systemctl disable --now pickup-e2e-server 2>/dev/null || true
  if on dpkg-query -W pickup-station pickup-station-archive-keyring >/dev/null 2>&1; then
    on "${APT[@]}" purge pickup-station pickup-station-archive-keyring >/dev/null 2>&1 || true
  fi
  if on dpkg-query -W pickup-station-e2e-dummy >/dev/null 2>&1; then on "${APT[@]}" purge pickup-station-e2e-dummy >/dev/null 2>&1 || true; fi
  on rm -rf /etc/pickup-station /var/lib/pickup-station /opt/pickup-station /root/e2e /srv/pickup-station-repo /srv/e2e-security \
    /etc/apt/sources.list.d/e2e-security.sources /usr/share/keyrings/e2e-security-archive.gpg /run/reboot-required /run/reboot-required.pkgs
}

# shellcheck source=packaging/test/power-cuts.sh
. "$HERE/power-cuts.sh"

prepare
if [ "$PREPARE_ONLY" = 1 ]; then
  # The repository can be signed with this key here (reprepro through gpg and its agent).
  bash "$ROOT/packaging/apt/publish.sh" --repo "$WORK/repo" --key-id "$KEY_ID" --key-id "$NEXT_KEY_ID" --dist stable "$(deb_of 1.0.0)" "$(keyring_deb)" >/dev/null
  log "prepared in $WORK (a repository signed with $KEY_ID: $WORK/repo)"
  exit 0
fi
# want STEP: the set runs it (--steps: only those named).
want() { [ -z "$STEPS" ] || [[ ",$STEPS," == *",$1,"* ]]; }
# timed_step NAME CMD...: a step, its wall time a figure (what each costs the run).
timed_step() {
  local t=$SECONDS name=$1
  shift
  "$@"
  figure "step $name: wall time, s" "$((SECONDS - t))"
}
reset_target
step_install
step_configure
if want deferred; then timed_step deferred step_upgrade_deferred
elif [ -n "$STEPS" ] && want restarting; then timed_step restarting step_upgrade_deferred restarting; fi
if in_set container full && want reinstall; then timed_step reinstall step_reinstall; fi
if want broken; then
  timed_step broken step_broken 1.2.0 "exits at start"
  if want known-bad; then timed_step known-bad step_known_bad 1.2.0; fi
fi
if in_set container full && want rollback && want broken; then timed_step rollback step_emergency_rollback; fi
if [ "$HANG" = 1 ]; then step_broken 1.3.0 "never ready"; fi
if want tampered; then timed_step tampered step_tampered; fi
if in_set container full; then
  if want downgrade; then timed_step downgrade step_downgrade; fi
  if want masked; then timed_step masked step_masked; fi
fi
# The security fix, the key's rotation and its revocation: --full (and --steps); CI's board rows are
# those docs/decisions/0165 keeps, and these have not yet passed on the board in CI's time.
if in_set full && [ -n "$POWER" ] && want security; then timed_step security step_security; fi
if in_set container full && { want rotate || want revoke; }; then timed_step rotate step_rotate; fi
if in_set container && { want rotate || want revoke; }; then timed_step new-key-release step_new_key_release 1.5.0; fi
# full: the matrix's rows install from the new key's repository; when --steps leaves them out, its first release.
if in_set full && want rotate && [ -n "$STEPS" ] && ! want matrix; then timed_step new-key-release step_new_key_release 2.1.0; fi
if want matrix; then
  if in_set full && [ -n "$POWER" ]; then timed_step matrix power_cut_matrix; fi
  if in_set ci; then E2E_ROWS=unpack timed_step matrix power_cut_matrix; fi
fi
if in_set container full && want revoke; then timed_step revoke step_revoke; fi
step_remove
log "passed in $(( $(date +%s) - T0 )) s"
printf '  %s\n' "figures:" "${FIGURES[@]}"
print_rows
