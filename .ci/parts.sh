# shellcheck shell=bash
# .ci/run's parts: each part runs as a job of its own (its own process group, its output in a log),
# in the foreground (`part NAME CMD...`: started, then waited for) or beside the others (`start_part
# NAME CMD...`, later `await_part NAME`). Every part's wall time and CPU time is kept for the table
# printed at the end, and the budget is watched the whole time: past CI_BUDGET_S (75 min), every
# part still running is stopped and the run fails with the table, so that a slow submission is seen
# as slow at 75 minutes rather than lost at CI's 90.
#
# A part's output goes to $CI_LOGS/NAME.log and is printed (each line prefixed with the part's
# name) when the part is awaited; a part that fails prints its log's last 200 lines again after the
# table, so a log cut to its end still says what failed.

CI_BUDGET_S=${CI_BUDGET_S:-4500}
CI_LOGS=${CI_LOGS:-$(mktemp -d /tmp/ci-parts.XXXXXX)}
mkdir -p "$CI_LOGS"
ci_t0=$SECONDS
declare -A ci_pid ci_start ci_end ci_rc ci_cpu ci_where
ci_order=()

ci_slug() { tr -c 'A-Za-z0-9\n' '-' <<<"$1" | tr -s '-' | sed 's/-$//' | cut -c1-60; }
ci_now() { echo $((SECONDS - ci_t0)); }

# start_part NAME CMD...: in the background; the CPU seconds of the part's processes (user + system,
# as bash's `times` counts its waited-for children: a daemonized emulator is not among them, the board
# prints its own) written beside the log.
start_part() {
  local name=$1
  shift
  local slug
  slug=$(ci_slug "$name")
  ci_order+=("$name")
  ci_start[$name]=$(ci_now)
  ci_where[$name]='bg'
  echo "ci: [$(printf '%5d' "$(ci_now)") s] start: $name"
  # shellcheck disable=SC2016 # the inner script is bash's, with its own positional parameters
  setsid bash -c 't=$1; shift; rc=0; "$@" || rc=$?; times >"$t"; exit "$rc"' ci-part "$CI_LOGS/$slug.time" "$@" \
    >"$CI_LOGS/$slug.log" 2>&1 </dev/null &
  ci_pid[$name]=$!
}

# await_part NAME: waits for it, prints its output, records it; a failed part ends the run.
await_part() {
  local name=$1 slug rc=0
  slug=$(ci_slug "$name")
  wait "${ci_pid[$name]}" || rc=$?
  ci_end[$name]=$(ci_now)
  ci_rc[$name]=$rc
  # `times`' second line: "0m12.345s 0m1.234s" (user, system of the children; never in a pipeline,
  # whose subshell has no children of its own).
  ci_cpu[$name]=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] } printf "%d", n }' "$CI_LOGS/$slug.time" 2>/dev/null || true)
  unset "ci_pid[$name]"
  sed "s/^/$slug| /" "$CI_LOGS/$slug.log"
  echo "ci: [$(printf '%5d' "$(ci_now)") s] done:  $name (rc $rc, $((ci_end[$name] - ci_start[$name])) s, CPU ${ci_cpu[$name]:-?} s)"
  if [ "$rc" != 0 ]; then
    ci_fail "$name failed (exit $rc)" "$slug"
  fi
}

# part NAME CMD...: in the foreground (started and awaited at once; the budget still watched).
part() {
  start_part "$@"
  ci_where[$1]='fg'
  await_part "$1"
}

ci_table() {
  local name took
  echo "ci: wall and CPU time per part (start and end in seconds from the start of .ci/run; fg: .ci/run waited for it, bg: it ran beside the fg parts)"
  printf 'ci:   %5s %5s %6s %6s  %-6s %s\n' start end wall CPU how part
  for name in "${ci_order[@]}"; do
    if [ -n "${ci_end[$name]:-}" ]; then
      took=$((ci_end[$name] - ci_start[$name]))
      printf 'ci:   %5d %5d %6d %6s  %-6s %s%s\n' "${ci_start[$name]}" "${ci_end[$name]}" "$took" "${ci_cpu[$name]:-?}" "${ci_where[$name]}" "$name" \
        "$([ "${ci_rc[$name]}" = 0 ] || echo "  (FAILED, exit ${ci_rc[$name]})")"
    else
      printf 'ci:   %5d %5s %6s %6s  %-6s %s  (stopped: still running)\n' "${ci_start[$name]}" - - - "${ci_where[$name]}" "$name"
    fi
  done
  echo "ci: all of .ci/run: $(ci_now) s (budget $CI_BUDGET_S s; CI's limit 5400 s)"
}

# Every part still running is stopped (its whole process group), and the board's emulator, which
# daemonizes out of its part's group.
ci_stop_all() {
  local name
  for name in "${!ci_pid[@]}"; do kill -TERM -- "-${ci_pid[$name]}" 2>/dev/null || true; done
  sleep 2
  for name in "${!ci_pid[@]}"; do kill -KILL -- "-${ci_pid[$name]}" 2>/dev/null || true; done
  [ ! -f .board/run/qemu.pid ] || kill -KILL "$(cat .board/run/qemu.pid)" 2>/dev/null || true
}

ci_fail() {
  local why=$1 slug=${2:-}
  trap - USR1
  ci_stop_all
  ci_table
  if [ -n "$slug" ] && [ -f "$CI_LOGS/$slug.log" ]; then
    echo "ci: the last 200 lines of the failed part's log:"
    tail -n 200 "$CI_LOGS/$slug.log" | sed "s/^/$slug| /"
  fi
  echo "ci: FAIL: $why"
  exit 1
}

# The budget: a timer process signals this shell, whose `wait` in await_part returns at once. The
# timer is a session of its own with no hold on this script's output (a sleeping child that kept
# stdout open would keep CI's log open after the run).
ci_over_budget() {
  local running=("${!ci_pid[@]}")
  ci_fail "over the budget of $CI_BUDGET_S s ($((CI_BUDGET_S / 60)) min) with ${running[*]:-nothing} still running: a slow submission, see the table and docs/development.md#the-ci-budget"
}
trap ci_over_budget USR1
# shellcheck disable=SC2016 # the timer's script is bash's, with its own positional parameters
setsid bash -c 'sleep "$1"; kill -USR1 "$2"' ci-budget "$CI_BUDGET_S" $$ >/dev/null 2>&1 </dev/null &
ci_budget_pid=$!
trap 'kill -- "-$ci_budget_pid" 2>/dev/null || true' EXIT
ci_done() {
  ci_table
}
