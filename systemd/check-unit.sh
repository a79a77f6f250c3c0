#!/usr/bin/env bash
# Static checks of systemd/pickup-station.service, run by .ci/run (and by hand):
#   1. systemd-analyze verify: the unit parses, every directive is known, the executables exist.
#   2. systemd-analyze security --offline=true: the exposure score, printed, must be <= MAX.
# Neither needs a running systemd (CI runs in a container). verify resolves ExecStart= paths on
# this machine: /usr/bin/node exists here as on a station, the script path after it is an
# argument and is not checked, so no stub is needed. Works on systemd >= 250 (--offline).
set -euo pipefail
cd "$(dirname "$0")"  # a relative unit path is relative to systemd/

readonly UNIT="${1:-pickup-station.service}"
readonly MAX="${MAX_EXPOSURE:-3.0}"

echo "systemd: $(systemd-analyze --version | head -n1)"

# verify prints problems and exits non-zero on errors; warnings about the host it runs on (no
# /proc/1 systemd, missing targets in a container) must not hide real ones, so fail on any output
# that names our unit.
out="$(systemd-analyze verify "$UNIT" 2>&1)" || { echo "$out"; echo "verify: FAILED"; exit 1; }
if grep -F "$UNIT" <<<"$out"; then echo "verify: FAILED (warnings above)"; exit 1; fi
echo "verify: ok"

report="$(systemd-analyze security --offline=true --no-pager "$UNIT" 2>&1)" || true
score="$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' <<<"$report")"
if [ -z "$score" ]; then echo "$report"; echo "security: no score in the output"; exit 1; fi
# The items that still count against the unit, and why each stays, are explained in the unit.
grep -E '^✗' <<<"$report" | sed 's/  \+/  /g' || true
echo "security: exposure $score (max $MAX)"
awk -v s="$score" -v m="$MAX" 'BEGIN { exit !(s <= m) }' || { echo "security: FAILED"; exit 1; }
