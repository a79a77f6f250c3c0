#!/usr/bin/env bash
# Two builds of one commit are the same bytes: builds the release again from a fresh clone of HEAD
# in a clean environment, and compares the sha256 of the arm64 and armv7 bundles and of both Debian
# packages with the first build's. Writes diffoscope's report of each pair that differs (--report)
# and exits 1.
#
#   bash scripts/release/reproduce.sh --security-contact URI --security-policy URL --support-until YYYY-MM-DD
#        [--support-until-reason TEXT] [--first DIR] [--arch "arm64 armv7"] [--work DIR] [--report DIR]
#
#   --first DIR   the first build's bundles, already made from this commit with the same inputs
#                 (.ci/run passes release/, which verify-emulated.sh built): only the second build
#                 runs. Without it both builds run, the first in a clone in the caller's environment.
#   --report DIR  where diffoscope's reports go (DIR/<artifact>.diffoscope.txt; CI keeps
#                 test-artifacts/); default: the work folder
#
# The second build varies what a rebuilder's machine varies, and shares nothing that was built:
#   - a clone under another path, of another length, on disorderfs (its directory entries listed
#     in shuffled order: nothing may depend on readdir's order);
#   - an empty environment but PATH: another HOME, TZ, LANG/LC_ALL (a locale with another collation,
#     made here with localedef), umask 0077;
#   - its clock a year and a month ahead of the first's (faketime; the build's date is the commit's,
#     SOURCE_DATE_EPOCH, never the clock);
#   - its own build cache: Node is unpacked and the native addons are compiled again.
# Shared, because a download is not the build: npm's cache of registry tarballs, each checked against
# the lockfile's sha512 when npm uses it (the Node tarballs too, checked against their pin in
# scripts/node/versions.sh by scripts/node/fetch.sh); and npm's user configuration, read-only (the
# machine's registry, CA and the host's Node headers for the dev tree's own addons: the network and
# host set-up, no input of what ships). The cross compiler is the host's: both builds
# record its Debian package versions (manifest.json's builtWith.toolchain, the SBOM's formulation),
# so a rebuild elsewhere knows which to install (record 0153).
# The .debs of both builds are made here from each build's bundles by the commit's own
# packaging/deb/build.sh (the second clone's: nothing of the checkout runs, which may change
# meanwhile), xz as a release is, the second's in the second build's environment. Prints the time
# each part took.
# shellcheck disable=SC2016 # commands for another shell (bash -c, node -e) are single-quoted on purpose
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/release/inputs.sh
. "$ROOT/scripts/release/inputs.sh"

FIRST=""
ARCHS="arm64 armv7"
WORK=""
REPORT=""
while [ $# -gt 0 ]; do
  if release_input "$1" "${2:-}"; then shift 2; continue; fi
  case "$1" in
    --first) FIRST=$(cd "${2:?--first needs a folder}" && pwd); shift 2 ;;
    --arch) ARCHS=${2:?}; shift 2 ;;
    --work) WORK=${2:?}; shift 2 ;;
    --report) REPORT=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 --security-contact URI --security-policy URL --support-until YYYY-MM-DD [--support-until-reason TEXT] [--first DIR] [--arch LIST] [--work DIR] [--report DIR]" >&2; exit 2 ;;
  esac
done
check_release_inputs
SECONDS=0
log() { printf '[%4ss] reproduce: %s\n' "$SECONDS" "$*" >&2; }
die() { printf 'reproduce: error: %s\n' "$*" >&2; exit 1; }
for tool in faketime:faketime disorderfs:disorderfs fusermount:fuse3 localedef:libc-bin diffoscope:diffoscope-minimal; do
  command -v "${tool%%:*}" >/dev/null || die "${tool%%:*} is missing (Debian package ${tool#*:})"
done

[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ] ||
  log "WARNING: the checkout has uncommitted changes; the clones build its HEAD commit, not them"
# One commit for both builds, fixed now: the checkout may move on while they run.
COMMIT=$(git -C "$ROOT" rev-parse HEAD)
WORK=${WORK:-$(mktemp -d /tmp/pickup-station-reproduce.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
REPORT=${REPORT:-$WORK}
VERSION=$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")
NPM_CACHE=$(npm config get cache)
NPM_USERCONFIG=$(npm config get userconfig)
TIMES=()
timed() {
  local name=$1 t0=$SECONDS
  shift
  "$@"
  TIMES+=("$(printf '%5d s  %s' "$((SECONDS - t0))" "$name")")
}

# --- the second build's environment ------------------------------------------------------------
SECOND_TZ='CHAST-12:45CHADT,M9.5.0/2:45,M4.1.0/3:45'   # Chatham Islands (POSIX rule: no tzdata needed)
SECOND_LOCALE=fr_FR.UTF-8
SECOND_UMASK=0077
SECOND_CLOCK=+397d
SECOND_HOME=$WORK/second-home
MOUNT=""
second_env() {
  rm -rf "$SECOND_HOME"
  mkdir -p "$SECOND_HOME" "$WORK/locale"
  # A locale whose collation differs from C's (fr: case-insensitive first), in a private LOCPATH:
  # nothing of the host's locales is needed or changed.
  [ -d "$WORK/locale/$SECOND_LOCALE" ] || localedef -i fr_FR -f UTF-8 "$WORK/locale/$SECOND_LOCALE" 2>/dev/null ||
    [ -d "$WORK/locale/$SECOND_LOCALE" ] || die "localedef could not make $SECOND_LOCALE (Debian package locales)"
}
# in_second CMD...: CMD in the second build's environment (from an empty one: PATH kept, the rest set).
in_second() {
  (
    umask "$SECOND_UMASK"
    env -i PATH="$PATH" HOME="$SECOND_HOME" TZ="$SECOND_TZ" LOCPATH="$WORK/locale" LANG="$SECOND_LOCALE" LC_ALL="$SECOND_LOCALE" \
      npm_config_cache="$NPM_CACHE" npm_config_userconfig="$NPM_USERCONFIG" npm_config_prefer_offline=true npm_config_update_notifier=false \
      FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f "$SECOND_CLOCK" "$@"
  )
}
in_first() { "$@"; }

# clone_build NAME PATH ENV: a clone of HEAD at PATH (the second's on disorderfs), its bundles into
# $WORK/NAME/, every command in environment ENV (in_first or in_second).
clone_build() {
  local name=$1 src=$2 run=$3 arch raw
  rm -rf "$src"
  mkdir -p "$(dirname "$src")"
  if [ "$name" = second ]; then
    raw=$WORK/src/second-raw
    rm -rf "$raw"
    $run git clone --quiet --no-hardlinks "$ROOT" "$raw"
    mkdir -p "$src"
    disorderfs --quiet --shuffle-dirents=yes "$raw" "$src" >/dev/null || die "disorderfs could not mount $raw (no FUSE here?)"
    MOUNT=$src
    $run git -C "$src" checkout --quiet --detach "$COMMIT"
  else
    git clone --quiet --no-hardlinks "$ROOT" "$src"
    git -C "$src" checkout --quiet --detach "$COMMIT"
  fi
  # The dev tree (tsc, esbuild, ajv) from the lockfile, as a fresh clone gets it.
  log "$name: npm ci in $src"
  $run bash -c 'cd "$1" && npm ci --no-audit --no-fund --loglevel=error >/dev/null' npm-ci "$src"
  mkdir -p "$WORK/$name"
  for arch in $ARCHS; do
    log "$name: bundle $arch"
    $run bash -c 'cd "$1" && shift && exec env -u SOURCE_DATE_EPOCH bash scripts/bundle/build.sh "$@"' build "$src" --arch "$arch" "${RELEASE_INPUTS[@]}" --out "$WORK/$name" \
      >"$WORK/$name/bundle-$arch.log" 2>&1 || { tail -n 30 "$WORK/$name/bundle-$arch.log"; die "$name: the $arch bundle did not build"; }
  done
}
unmount() {
  if [ -n "$MOUNT" ]; then fusermount -u "$MOUNT" 2>/dev/null || true; MOUNT=""; fi
}
trap unmount EXIT

# debs NAME ENV TREE: the .deb of each bundle in $WORK/NAME, by TREE's packaging/deb/build.sh (a clone of the commit).
debs() {
  local name=$1 run=$2 tree=$3 arch
  for arch in $ARCHS; do
    log "$name: .deb $arch"
    $run env -u SOURCE_DATE_EPOCH bash "$tree/packaging/deb/build.sh" --arch "$arch" "${RELEASE_INPUTS[@]}" \
      --bundle "$WORK/$name/pickup-station-$VERSION-linux-$arch.tar.gz" --out "$WORK/$name" >/dev/null
  done
}

if [ -n "$FIRST" ]; then
  mkdir -p "$WORK/first"
  for arch in $ARCHS; do
    f=$FIRST/pickup-station-$VERSION-linux-$arch.tar.gz
    [ -f "$f" ] || die "no $f (--first: the first build's bundles)"
    built=$(tar -xzOf "$f" --wildcards '*/manifest.json' | node -e 'let t="";process.stdin.on("data",(d)=>(t+=d)).on("end",()=>console.log(JSON.parse(t).git.commit))')
    [ "$built" = "$COMMIT" ] || die "$f was built from $built, not from $COMMIT"
    cp "$f" "$WORK/first/"
  done
else
  timed "first build (clone, npm ci, bundles)" clone_build first "$WORK/src/first" in_first
fi
log "second build: clone on disorderfs (shuffled directory order) at another path, HOME $SECOND_HOME, TZ $SECOND_TZ, LANG $SECOND_LOCALE, umask $SECOND_UMASK, clock $SECOND_CLOCK (faketime), its own build cache"
timed "second build: its locale" second_env
# Another path, of another length: nothing of the build's folder may reach its output.
SECOND=$WORK/src/a-second-build/under/another/path/pickup-station
timed "second build (clone, npm ci, bundles)" clone_build second "$SECOND" in_second
timed "first build's .debs" debs first in_first "$SECOND"
timed "second build's .debs" debs second in_second "$SECOND"
unmount

differ=0
artifacts=()
for arch in $ARCHS; do
  deb_arch=$arch
  [ "$arch" != armv7 ] || deb_arch=armhf
  artifacts+=("pickup-station-$VERSION-linux-$arch.tar.gz" "pickup-station_${VERSION}_$deb_arch.deb")
done
mkdir -p "$REPORT"
for f in "${artifacts[@]}"; do
  a=$(sha256sum "$WORK/first/$f" | cut -d' ' -f1)
  b=$(sha256sum "$WORK/second/$f" | cut -d' ' -f1)
  if [ "$a" = "$b" ]; then
    echo "reproduce: same   $a  $f"
  else
    differ=1
    echo "reproduce: DIFFER $a  $b  $f"
    diffoscope --no-progress --max-report-size 4000000 --text "$REPORT/$f.diffoscope.txt" "$WORK/first/$f" "$WORK/second/$f" || true
    head -c 20000 "$REPORT/$f.diffoscope.txt"
    echo "reproduce: diffoscope's report: $REPORT/$f.diffoscope.txt"
  fi
done
toolchain=$(tar -xzOf "$WORK/second/pickup-station-$VERSION-linux-${ARCHS%% *}.tar.gz" --wildcards '*/manifest.json' |
  node -e 'let t="";process.stdin.on("data",(d)=>(t+=d)).on("end",()=>console.log((JSON.parse(t).builtWith.toolchain ?? []).map((p)=>`${p.package} ${p.version}`).join(", ")))')
echo "reproduce: toolchain (${ARCHS%% *}): $toolchain"
printf 'reproduce: %s\n' "${TIMES[@]}"
echo "reproduce: all $SECONDS s; builds in $WORK"
[ "$differ" = 0 ] || die "two builds of ${COMMIT:0:12} differ (above)"
echo "reproduce: two builds of ${COMMIT:0:12} are byte-identical: ${artifacts[*]}"
rm -rf "$WORK/src" "$SECOND_HOME"
