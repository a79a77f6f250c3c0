# shellcheck shell=bash
# The power-cut rows of packaging/test/e2e.sh (sourced by it; uses its helpers): an upgrade is
# started, the power is cut (--power CMD cut: every process of the target killed at once) at one of
# its steps, the target boots again (--power CMD boot), and whatever the step was, within a bounded
# time a proven release serves and dpkg is clean:
#   - when the first /state reaches the reference server after the boot, and from which release;
#   - every lock output OFF at boot;
#   - the release the row must end on runs, proven, nothing pending, dpkg --audit empty and the
#     package configured (the retry of a good release included: it is tried again once the station
#     runs; a release that failed its proof is not);
#   - the next apt-get install works (no "dpkg was interrupted").
# shellcheck disable=SC2016,SC2034 # remote commands are single-quoted on purpose; EXEC and ROWS are e2e.sh's

ROWS=()

# boot_target: the target starts again; --exec may change (a container's new leader).
boot_target() {
  local out line
  out=$($POWER boot) || fail "the target did not boot again: $out"
  line=$(grep '^exec: ' <<<"$out" | tail -n 1 || true)
  [ -z "$line" ] || EXEC=${line#exec: }
}

# reached STEP VERSION BEFORE: 0 once the upgrade to VERSION is in STEP (one remote check).
reached() {
  local v="$2" before="$3"
  case "$1" in
    download) on sh -c "test \"\$(stat -c %s /var/cache/apt/archives/partial/pickup-station_${v}_*.deb 2>/dev/null || echo 0)\" -gt 1000000" ;;
    unpack) on sh -c "ls /usr/lib/pickup-station/release/node_modules/*.dpkg-new /usr/lib/pickup-station/release/*.dpkg-new /usr/lib/pickup-station/release/*/*.dpkg-new >/dev/null 2>&1 ||
      dpkg-query -W -f='\${db:Status-Abbrev}' pickup-station | grep -q '^iH'" ;;
    postinst) on sh -c "ls -d /opt/pickup-station/releases/.new-$v.* >/dev/null 2>&1 && [ \"\$(readlink /opt/pickup-station/current)\" = releases/$before ]" ;;
    after-switch) on sh -c "[ \"\$(readlink /opt/pickup-station/current)\" = releases/$v ] && ! grep -q '\"version\":\"$v\"' /run/pickup-station/release.json 2>/dev/null" ;;
    proof) on sh -c "grep -q '\"version\":\"$v\"' /run/pickup-station/release.json 2>/dev/null && grep -q '\"proof\":\"unproven\"' /opt/pickup-station/install-status.json" ;;
    # From the failed proof recorded (known bad) to the proven release proven again.
    rollback) on sh -c "grep -q '\"knownBad\":\"$v\"' /opt/pickup-station/install-status.json && grep -q '\"result\":\"failed\"' /opt/pickup-station/install-status.json" ;;
  esac
}
upgrade_running() { on sh -c 'pgrep -x apt-get >/dev/null || pgrep -x dpkg >/dev/null'; }

# A repository served slowly over http (the download row: a download takes long enough to be cut).
slow_repo() { # on | off
  local src=/etc/apt/sources.list.d/pickup-station.sources
  if [ "$1" = on ]; then
    on sh -c 'cat > /root/e2e/slow-repo.js' <<'JS'
const http = require('http'), fs = require('fs'), path = require('path');
const root = '/srv/pickup-station-repo';
http.createServer((req, res) => {
  const p = path.join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname));
  fs.stat(p, (e, st) => {
    if (!p.startsWith(root + '/') || e || !st.isFile()) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { 'content-length': st.size });
    if (req.method === 'HEAD') return res.end();
    const s = fs.createReadStream(p, { highWaterMark: 65536 });
    if (!p.endsWith('.deb')) return s.pipe(res);
    // About 1 MB/s: a package takes tens of seconds.
    s.on('data', (c) => { s.pause(); res.write(c); setTimeout(() => s.resume(), 64); });
    s.on('end', () => res.end());
  });
}).listen(8481, '127.0.0.1');
JS
    on systemd-run --quiet --unit=pickup-e2e-slow-repo /usr/bin/pickup-station-e2e-node /root/e2e/slow-repo.js
    on sed -i 's|^URIs: .*|URIs: http://127.0.0.1:8481|' "$src"
  else
    on systemctl stop pickup-e2e-slow-repo 2>/dev/null || true
    on sed -i 's|^URIs: .*|URIs: file:///srv/pickup-station-repo|' "$src"
  fi
  wait_for 30 "the repository did not answer" on apt-get -q update
}

# cut_row NAME VERSION good|exit STEP: the upgrade to VERSION cut at STEP, then boot and check.
cut_row() {
  local name="$1" v="$2" kind="$3" step="$4" before t i reached_in=yes
  before=$(running_version)
  [ "$step" != download ] || slow_repo on
  publish "$(deb_of "$v")" "$(keyring_deb)"
  on apt-get -q update >/dev/null
  on sh -c "nohup ${APT[*]} upgrade > /root/e2e/cut-$v.log 2>&1 &"
  for ((i = 0; ; i++)); do
    if reached "$step" "$v" "$before" >/dev/null 2>&1; then break; fi
    if [ $((i % 10)) = 9 ] && ! upgrade_running >/dev/null 2>&1; then reached_in=no; break; fi
    [ "$i" -lt $((1500 * SLOW)) ] || fail "$name: the upgrade never reached its step ($step)"
    sleep 0.2
  done
  [ "$reached_in" = yes ] || log "  note: $name: the upgrade ended before its step was seen; cut anyway"
  log "row $name: power cut (step $step reached: $reached_in; dpkg said $(package_state), current $(on readlink /opt/pickup-station/current))"
  $POWER cut
  t=$SECONDS
  boot_target
  local boot_s=$((SECONDS - t))
  [ "$step" != download ] || slow_repo off
  wait_for 600 "$name: no /state at the server after the boot" has_state
  local first_s=$((SECONDS - t)) first
  # The release the first daemon of this boot ran (its "starting" line names its version).
  first=$(on sh -c "journalctl --namespace=+pickup-station -b -u pickup-station -o cat --no-pager | grep -m1 '\"msg\":\"starting\"' | sed -n 's/.*\"version\":\"\([^\"]*\)\".*/\1/p'" || true)
  locks_off
  local end="$v"
  [ "$kind" = good ] || end="$before"
  if [ "$step" = download ]; then
    # Nothing was installed: the proven release serves; the next apt run finishes the download and the upgrade.
    wait_for $((4 * HEALTH_WAIT)) "$name: $before is not settled after the boot" settled_on "$before"
    on "${APT[@]}" upgrade >/dev/null || fail "$name: apt-get upgrade after the boot failed"
  fi
  wait_for $((6 * HEALTH_WAIT)) "$name: not settled on $end (proven, nothing pending, dpkg clean) after the boot" settled_on "$end"
  local settled_s=$((SECONDS - t))
  if [ "$kind" != good ]; then
    [ "$(record knownBad)" = "$v" ] || fail "$name: $v is not known bad"
  fi
  unit_is "$end" || fail "$name: $end does not run under its own unit"
  on "${APT[@]}" install pickup-station-archive-keyring >/dev/null 2>&1 || fail "$name: the next apt-get install failed"
  [ -z "$(on dpkg --audit 2>&1)" ] || fail "$name: dpkg --audit: $(on dpkg --audit 2>&1)"
  on journalctl -b -t pickup-station-install --no-pager -o cat | sed 's/^/  journal: /' | tail -n 8
  log "row $name: boot -> ssh ${boot_s} s, first /state ${first_s} s after the cut (from ${first:-?}), $end proven and dpkg clean ${settled_s} s after it"
  figure "power cut $name: the first /state after the boot (s after the cut; release)" "$first_s ($first)"
  figure "power cut $name: $end proven, nothing pending, dpkg clean (s after the cut)" "$settled_s"
  ROWS+=("| $name | $reached_in | $first_s s, $first | $end: ${settled_s} s | empty | works | OFF | ok |")
}
has_state() { [ "$(state_count)" -ge 1 ]; }

# E2E_ROWS (e.g. "unpack,proof"): only these rows, by their step; unset: every row.
row_wanted() { [ -z "${E2E_ROWS:-}" ] || [[ ",$E2E_ROWS," == *",$1,"* ]]; }
power_cut_matrix() {
  if row_wanted download; then cut_row "during the download" 2.1.0 good download; fi
  if row_wanted unpack; then cut_row "during the unpack" 2.2.0 good unpack; fi
  if row_wanted postinst; then cut_row "in the postinst, before the switch" 2.3.0 good postinst; fi
  if row_wanted after-switch; then cut_row "after the switch, before the proof" 2.4.0 good after-switch; fi
  if row_wanted proof; then cut_row "during the proof" 2.5.0 good proof; fi
  if row_wanted rollback; then cut_row "during a rollback (2.6.0 exits at start)" 2.6.0 exit rollback; fi
}

print_rows() {
  [ "${#ROWS[@]}" -gt 0 ] || return 0
  printf '\n| power cut | step reached | first /state after the cut | proven release, nothing pending, dpkg clean | dpkg --audit | next apt-get install | locks at boot | outcome |\n|---|---|---|---|---|---|---|---|\n'
  printf '%s\n' "${ROWS[@]}"
}
