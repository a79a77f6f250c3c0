#!/usr/bin/env bash
# Two builds of one commit are the same bytes: builds the release again from a fresh clone of HEAD in
# another folder (another path, another length, its own build cache), and compares the sha256 of the
# arm64 and armv7 bundles and of both Debian packages with the first build's. Prints diffoscope's
# report of each pair that differs (when diffoscope is installed) and exits 1.
#
#   bash scripts/release/reproduce.sh --security-contact URI --support-until YYYY-MM-DD
#        [--first DIR] [--arch "arm64 armv7"] [--work DIR]
#
#   --first DIR  the first build's bundles, already made from this commit with the same inputs
#                (.ci/run passes release/, which verify-emulated.sh built): only the second build
#                runs. Without it both builds run, each in a clone of its own.
#
# The .debs of both builds are made here from each build's bundles (packaging/deb/build.sh, xz as
# a release is). Node's registry build comes from the first build's cache (pinned by its sha512 in
# scripts/node/versions.sh); the native addons and everything else are built again. Prints the
# time each part took.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/release/inputs.sh
. "$ROOT/scripts/release/inputs.sh"

FIRST=""
ARCHS="arm64 armv7"
WORK=""
INPUTS=()
CONTACT=""
UNTIL=""
while [ $# -gt 0 ]; do
  case "$1" in
    --security-contact) CONTACT=${2:?}; INPUTS+=("$1" "$2"); shift 2 ;;
    --support-until) UNTIL=${2:?}; INPUTS+=("$1" "$2"); shift 2 ;;
    --first) FIRST=$(cd "${2:?--first needs a folder}" && pwd); shift 2 ;;
    --arch) ARCHS=${2:?}; shift 2 ;;
    --work) WORK=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 --security-contact URI --support-until YYYY-MM-DD [--first DIR] [--arch LIST] [--work DIR]" >&2; exit 2 ;;
  esac
done
check_release_inputs "$CONTACT" "$UNTIL"
SECONDS=0
log() { printf '[%4ss] reproduce: %s\n' "$SECONDS" "$*" >&2; }
die() { printf 'reproduce: error: %s\n' "$*" >&2; exit 1; }

[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ] ||
  log "WARNING: the checkout has uncommitted changes; the clones build its HEAD commit, not them"
# One commit for both builds, fixed now: the checkout may move on while they run.
COMMIT=$(git -C "$ROOT" rev-parse HEAD)
WORK=${WORK:-$(mktemp -d /tmp/pickup-station-reproduce.XXXXXX)}
VERSION=$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")
TIMES=()
timed() {
  local name=$1 t0=$SECONDS
  shift
  "$@"
  TIMES+=("$(printf '%5d s  %s' "$((SECONDS - t0))" "$name")")
}

# clone_build NAME PATH: a clone of HEAD at PATH, its bundles and .debs into $WORK/NAME/.
clone_build() {
  local name=$1 src=$2 arch
  rm -rf "$src"
  mkdir -p "$(dirname "$src")"
  git clone --quiet --no-hardlinks "$ROOT" "$src"
  git -C "$src" checkout --quiet --detach "$COMMIT"
  # The dev tree (tsc, esbuild, ajv) from the lockfile, as a fresh clone gets it.
  log "$name: npm ci in $src"
  (cd "$src" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  # Node from the registry as the first build fetched it (checked against its pin again on use).
  if [ -d "$ROOT/.cache/bundle/node" ]; then mkdir -p "$src/.cache/bundle" && cp -a "$ROOT/.cache/bundle/node" "$src/.cache/bundle/node"; fi
  mkdir -p "$WORK/$name"
  for arch in $ARCHS; do
    log "$name: bundle $arch"
    (cd "$src" && env -u SOURCE_DATE_EPOCH bash scripts/bundle/build.sh --arch "$arch" "${INPUTS[@]}" --out "$WORK/$name" >"$WORK/$name/bundle-$arch.log" 2>&1) ||
      { tail -n 30 "$WORK/$name/bundle-$arch.log"; die "$name: the $arch bundle did not build"; }
  done
}

# debs NAME: the .deb of each bundle in $WORK/NAME (built with this checkout's packaging scripts).
debs() {
  local name=$1 arch
  for arch in $ARCHS; do
    log "$name: .deb $arch"
    env -u SOURCE_DATE_EPOCH bash "$ROOT/packaging/deb/build.sh" --arch "$arch" "${INPUTS[@]}" \
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
  timed "first build (clone, bundles)" clone_build first "$WORK/src/first"
fi
timed "first build's .debs" debs first
# Another path, of another length: nothing of the build's folder may reach its output.
timed "second build (clone, bundles)" clone_build second "$WORK/src/a-second-build/under/another/path/pickup-station"
timed "second build's .debs" debs second

differ=0
artifacts=()
for arch in $ARCHS; do
  deb_arch=$arch
  [ "$arch" != armv7 ] || deb_arch=armhf
  artifacts+=("pickup-station-$VERSION-linux-$arch.tar.gz" "pickup-station_${VERSION}_$deb_arch.deb")
done
for f in "${artifacts[@]}"; do
  a=$(sha256sum "$WORK/first/$f" | cut -d' ' -f1)
  b=$(sha256sum "$WORK/second/$f" | cut -d' ' -f1)
  if [ "$a" = "$b" ]; then
    echo "reproduce: same   $a  $f"
  else
    differ=1
    echo "reproduce: DIFFER $a  $b  $f"
    if command -v diffoscope >/dev/null; then
      diffoscope --no-progress --max-report-size 400000 --text - "$WORK/first/$f" "$WORK/second/$f" || true
    else
      echo "reproduce: (diffoscope is not installed: apt-get install diffoscope-minimal for the report)"
    fi
  fi
done
printf 'reproduce: %s\n' "${TIMES[@]}"
echo "reproduce: all $SECONDS s; builds in $WORK"
[ "$differ" = 0 ] || die "two builds of ${COMMIT:0:12} differ (above)"
echo "reproduce: two builds of ${COMMIT:0:12} are byte-identical: ${artifacts[*]}"
rm -rf "$WORK/src"
