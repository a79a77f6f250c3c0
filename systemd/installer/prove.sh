# shellcheck shell=bash
# Sourced by install.sh: proving a release healthy. Started (or taken as it runs), it must be active
# with READY=1, have written its /run/pickup-station/release.json from its main process, finished
# its first /state and answer /healthz, all within --health-wait seconds; WHY says what is missing.

release_field() { # FIELD of the daemon's release.json ('' if none or null; systemd removes it with the service)
  station_read "$RELEASE_STATUS" | { sed -n "s/.*\"$1\":\(\"\([^\"]*\)\"\|\([0-9][0-9]*\)\).*/\2\3/p" || true; } | head -n 1
}

# healthz_ok URL: the technician port's /healthz answers 200 {"ok":true}. http://HOST:PORT/healthz
# is asked by bash itself (a node start costs seconds on a slow board); unix:/path/healthz with the
# node the current release runs.
healthz_ok() {
  local url="$1" hostport host port reply
  # The address is the daemon's word (its release.json, in its own folder): only loopback is asked.
  if [[ "$url" =~ ^http://(127\.[0-9.]+|localhost):([0-9]+)/healthz$ ]]; then
    host="${BASH_REMATCH[1]}"; port="${BASH_REMATCH[2]}"
    # shellcheck disable=SC2016 # expanded by the inner bash ($0 $1)
    reply="$(timeout 5 bash -c 'exec 3<>"/dev/tcp/$0/$1" && printf "GET /healthz HTTP/1.0\r\nHost: %s\r\n\r\n" "$0" >&3 && cat <&3' "$host" "$port" 2>&1)" ||
      { echo "no answer: ${reply:-connection failed}"; return 1; }
    if [[ "$reply" =~ ^HTTP/1\.[01]\ 200 ]] && [[ "$reply" == *'"ok":true'* ]]; then return 0; fi
    echo "${reply%%$'\r'*}"
    return 1
  fi
  [[ "$url" =~ ^unix:/run/$NAME/[A-Za-z0-9._-]+/healthz$ ]] || { echo "not a technician port of this station: $url"; return 1; }
  local node=/usr/bin/node uid gid
  [ -x "$OPT/current/node/bin/node" ] && node="$OPT/current/node/bin/node"
  hostport="${url#unix:}"
  # As the station's user: the socket lies in its folder.
  uid="$(uid_of "$NAME")"; gid="$(gid_of "$NAME")"
  setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs -- "$node" -e '
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
    # --root: taken as proven, unless PICKUP_INSTALL_UNHEALTHY names it (versions separated by
    # spaces: the bookkeeping of a failed proof, tried without a system to run it on).
    case " ${PICKUP_INSTALL_UNHEALTHY:-} " in *" $version "*) WHY="PICKUP_INSTALL_UNHEALTHY=$version (--root)"; return 1 ;; esac
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
