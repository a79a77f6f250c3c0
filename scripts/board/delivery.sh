#!/usr/bin/env bash
# The fleet-delivery part of a board run (sourced by run.sh; needs ROOT BOARD RUN BUNDLE, stamp):
# the test releases, their Debian packages and the repository's signing key are made on the host
# (packaging/test/e2e.sh --prepare-only), then lintian reads the arm64 package — both in the
# background while the board boots and runs the compact part, so that neither waits for the other.
# scenario.mjs (--ci, --full) or apt.sh (--apt) waits for delivery_ready, then runs e2e.sh on the
# board with --reuse. Made once per bundle and packaging scripts (the folder's name is their hash).
# shellcheck shell=bash

delivery_work() {
  echo "$BOARD/apt-e2e/$(cat "$BUNDLE" "$ROOT"/packaging/deb/build.sh "$ROOT"/packaging/deb/debian/* "$ROOT/packaging/test/restamp.mjs" \
    "$ROOT/packaging/test/e2e.sh" | sha256sum | cut -c1-12)"
}

# delivery_prepare SET: in the background; RUN/prepare.rc and RUN/lintian.rc say when each is done.
delivery_prepare() {
  local set="$1" work
  work="$(delivery_work)"
  find "$BOARD/apt-e2e" -mindepth 1 -maxdepth 1 ! -path "$work" -exec rm -rf {} + 2>/dev/null || true
  rm -f "$RUN/prepare.rc" "$RUN/lintian.rc"
  command -v lintian >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends lintian >/dev/null
  local hang=()
  [ "${BOARD_APT_HANG:-}" != 1 ] || hang=(--hang)
  # At the lowest priority: the emulated board (TCG) is the slowest part of the run and must not wait
  # for the host's compression and lintian; they have the whole compact part to finish in.
  (
    rc=0
    nice -n 19 ionice -c 3 bash "$ROOT/packaging/test/e2e.sh" --prepare-only --bundle "$BUNDLE" --arch arm64 --work "$work" --reuse --set "$set" "${hang[@]}" \
      >"$RUN/prepare.log" 2>&1 || rc=$?
    echo "$rc" >"$RUN/prepare.rc"
    # lintian on the arm64 release's package (1.0.0: the release as built, gzip instead of xz) and the
    # key package: no errors; every warning kept is listed with its reason in decision 0089.
    lrc=0
    if [ "$rc" = 0 ]; then
      nice -n 19 ionice -c 3 lintian --fail-on error "$work"/debs/pickup-station_1.0.0_arm64.deb "$work"/debs/pickup-station-archive-keyring_1.0.0_all.deb \
        >"$RUN/lintian.txt" 2>&1 || lrc=$?
    else
      lrc=1
    fi
    echo "$lrc" >"$RUN/lintian.rc"
  ) &
  DELIVERY_WORK="$work"
  export DELIVERY_WORK
}
