#!/usr/bin/env bash
# `npm run bundle [-- --arch arm64|armv7|x64] [--with-node|--without-node]`: the offline release
# bundle for a board.
#
#   release/pickup-station-<version>-linux-<arch>.tar.gz   (+ .sha256)
#     pickup-station-<version>/
#       app/             the station bundled by esbuild (scripts/app/build.mjs): main.js and one
#                        file per mode (daemon.js, safe-state.js, ...), stationctl.js, page/
#       node/            the target's Node the unit runs (bin/node, LICENSE): arm64 ships Node 24
#                        LTS by default; armv7 runs the board's Debian nodejs (--with-node forces it)
#       node_modules/    production only, native addons for the target (built for that Node)
#       systemd/ hardware/   as they are in the repository (unit, install.sh, board profiles, udev)
#       tools/check-bundle.mjs   integrity + addon load check, runs with the node the unit runs
#       vendor.json, security.txt   the vendor's security contact and support period (the inputs below)
#       SECURITY.md      the security policy
#       sbom.cdx.json    CycloneDX 1.5 SBOM of what ships (scripts/release/sbom.mjs), checked against
#                        the vendored schema and the tree: a failure fails the build
#       manifest.json    versions, git commit, vendor inputs, sha256 + size of every file
#       package.json, package-lock.json, README.md, docs/ (what README links to)
#
# Runs on an x86_64 Debian host with a supported Node (20 or 24: it runs tsc, esbuild and npm only);
# installs its cross compiler with apt-get; downloads only from the npm registry. Caches in
# .cache/bundle/.
#
# Required: --security-contact URI --security-policy URL --support-until YYYY-MM-DD, and
# --support-until-reason TEXT for a period under the minimum (scripts/release/inputs.sh). Same
# commit, same bytes: SOURCE_DATE_EPOCH (default: the commit's time) is every file's time and the
# build's; nothing of the build host's path or clock lands in the bundle.
set -euo pipefail
# shellcheck source=scripts/bundle/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/release/inputs.sh
. "$ROOT/scripts/release/inputs.sh"

usage() {
  echo "usage: npm run bundle -- --security-contact URI --security-policy URL --support-until YYYY-MM-DD [--support-until-reason TEXT] [--arch arm64|armv7|x64] [--with-node|--without-node] [--out DIR]"
}

parse_args() {
  ARCH=arm64
  WITH_NODE=default
  while [ $# -gt 0 ]; do
    if release_input "$1" "${2:-}"; then shift 2; continue; fi
    case "$1" in
      --arch) ARCH=${2:?--arch needs a value}; shift 2 ;;
      --arch=*) ARCH=${1#--arch=}; shift ;;
      --with-node) WITH_NODE=1; shift ;;
      --without-node) WITH_NODE=0; shift ;;
      --out) RELEASE_DIR=${2:?--out needs a directory}; shift 2 ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; exit 2 ;;
    esac
  done
  check_release_inputs
  # SOURCE_DATE_EPOCH (the reproducible-builds convention): given, or the commit's time. It is the
  # build's time (builtAt), every file's time and the SBOM's: two builds of a commit are the same
  # bytes. The support period is judged against it, before anything is built.
  SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || true)}
  [[ "$SOURCE_DATE_EPOCH" =~ ^[0-9]+$ ]] || die "no SOURCE_DATE_EPOCH and no git commit to take it from"
  export SOURCE_DATE_EPOCH
  check_support_period "$SOURCE_DATE_EPOCH"
}

# The host's dev tree is needed only for tsc; a fresh clone gets it from the lockfile.
ensure_host_deps() {
  [ -x "$ROOT/node_modules/.bin/tsc" ] && return 0
  log "npm ci (host, for the TypeScript compiler)"
  (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
}

# tsc into a clean folder (no stale file of an earlier build can end up in the bundle), then the
# app bundled from it: the same scripts/app/build.mjs as `npm run build`.
compile_js() {
  log "tsc -> $CACHE/tsc; esbuild -> app/"
  rm -rf "$CACHE/tsc"
  "$ROOT/node_modules/.bin/tsc" -p "$ROOT/tsconfig.build.json" --outDir "$CACHE/tsc"
  node "$ROOT/scripts/app/build.mjs" --dist "$CACHE/tsc" --out "$APP/app"
  # Run as `node app/main.js` (the unit, the wrappers): no executable bit, so nothing on the board
  # looks for a `node` on PATH through the shebang (another Node than the release's).
  chmod -R a-x+X "$APP/app"
}

copy_sources() {
  local f
  for f in package.json package-lock.json README.md SECURITY.md; do cp "$ROOT/$f" "$APP/"; done
  # Owned by other work streams; shipped as they are at this commit, whatever exists.
  for f in systemd hardware docs; do
    if [ -d "$ROOT/$f" ]; then cp -a "$ROOT/$f" "$APP/$f"; else log "note: no $f/ in the repository yet"; fi
  done
  mkdir -p "$APP/tools"
  install -m 0644 "$ROOT/scripts/bundle/check-bundle.mjs" "$APP/tools/check-bundle.mjs"
}

# Production dependencies exactly as locked, for the target's os/cpu/libc. --ignore-scripts: no
# install script may run host binaries into the tree; the one addon that needs compiling is
# cross-built below.
install_production_deps() {
  log "npm ci --omit=dev --ignore-scripts (cpu=$T_NPM_CPU)"
  (cd "$APP" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error \
    --os=linux --cpu="$T_NPM_CPU" --libc=glibc)
}

# No build folder in an addon: __FILE__ and any debug path name the checkout and the cache as "."
# and "cache" (two checkouts at different paths build the same bytes). Part of the addon cache key.
addon_cflags() {
  ADDON_CFLAGS="-ffile-prefix-map=$ROOT=. -ffile-prefix-map=$CACHE=cache"
  ADDON_FLAGS_ID=prefixmap1
}

# epoll (for onoff) is nan-based: compiled for one Node ABI. Cross-built against the target Node's
# own headers; the result is cached by everything that determines it.
build_epoll() {
  local epoll=$APP/node_modules/epoll version key out
  version=$(node -p 'require(process.argv[1]).version' "$epoll/package.json")
  key="epoll-$version-$T_NODE_PKG-$T_NODE_VERSION-$("$T_TRIPLET-g++" -dumpfullversion)-$ADDON_FLAGS_ID"
  out=$CACHE/addons/$key/epoll.node
  if [ ! -f "$out" ]; then
    log "cross-building epoll $version for $T_ARCH (node $T_NODE_VERSION headers)"
    (cd "$APP" && npm_config_arch="$T_GYP_ARCH" npm_config_nodedir="$T_NODE_DIR" \
      CC="$T_TRIPLET-gcc" CXX="$T_TRIPLET-g++" LINK="$T_TRIPLET-g++" AR="$T_TRIPLET-ar" \
      CFLAGS="$ADDON_CFLAGS" CXXFLAGS="$ADDON_CFLAGS" npm rebuild epoll --loglevel=error >/dev/null)
    mkdir -p "$(dirname "$out")"
    cp "$epoll/build/Release/epoll.node" "$out"
  else
    log "epoll $version for $T_ARCH from the cache"
  fi
  # Keep only what `bindings` loads: objects, makefiles and the gyp config are build leftovers.
  rm -rf "$epoll/build"
  mkdir -p "$epoll/build/Release"
  cp "$out" "$epoll/build/Release/epoll.node"
  # No symbol table, not executable: a shared object as Debian ships one (lintian).
  "$T_TRIPLET-strip" --strip-unneeded "$epoll/build/Release/epoll.node"
  chmod 0644 "$epoll/build/Release/epoll.node"
}

# Nothing under node_modules runs as a program on the board (npm's bin scripts are for
# development): no executable bits there but the addons' own, and no npm/git leftovers. The Debian
# package is made from this same tree; lintian refuses these in a package.
tidy_node_modules() {
  find "$APP/node_modules" -type f \( -name .npmignore -o -name .gitattributes -o -name .gitignore \) -delete
  find "$APP/node_modules" -type f -perm /111 ! -name '*.node' -exec chmod a-x {} +
}

# i2c-bus (the I2C displays) is nan-based like epoll: cross-built the same way, cached the same way.
build_i2c_bus() {
  local pkg=$APP/node_modules/i2c-bus version key out
  version=$(node -p 'require(process.argv[1]).version' "$pkg/package.json")
  key="i2c-bus-$version-$T_NODE_PKG-$T_NODE_VERSION-$("$T_TRIPLET-g++" -dumpfullversion)-$ADDON_FLAGS_ID"
  out=$CACHE/addons/$key/i2c.node
  if [ ! -f "$out" ]; then
    log "cross-building i2c-bus $version for $T_ARCH (node $T_NODE_VERSION headers)"
    (cd "$APP" && npm_config_arch="$T_GYP_ARCH" npm_config_nodedir="$T_NODE_DIR" \
      CC="$T_TRIPLET-gcc" CXX="$T_TRIPLET-g++" LINK="$T_TRIPLET-g++" AR="$T_TRIPLET-ar" \
      CFLAGS="$ADDON_CFLAGS" CXXFLAGS="$ADDON_CFLAGS" npm rebuild i2c-bus --loglevel=error >/dev/null)
    mkdir -p "$(dirname "$out")"
    cp "$pkg/build/Release/i2c.node" "$out"
  else
    log "i2c-bus $version for $T_ARCH from the cache"
  fi
  rm -rf "$pkg/build"
  mkdir -p "$pkg/build/Release"
  cp "$out" "$pkg/build/Release/i2c.node"
  "$T_TRIPLET-strip" --strip-unneeded "$pkg/build/Release/i2c.node"
  chmod 0644 "$pkg/build/Release/i2c.node"
}

# serialport and node-hid ship prebuilt N-API addons for every platform; keep the target's only
# (glibc; node-hid in both its libusb and hidraw variants).
prune_prebuilds() {
  local sp=$APP/node_modules/@serialport/bindings-cpp/prebuilds hid=$APP/node_modules/node-hid/prebuilds d
  for d in "$sp"/*/; do [ "$(basename "$d")" = "$T_SP_PREBUILDS" ] || rm -rf "$d"; done
  find "$sp/$T_SP_PREBUILDS" -type f ! -name "$T_SP_KEEP" -delete
  for d in "$hid"/*/; do
    case "$(basename "$d")" in
      "HID-$T_HID_SUFFIX" | "HID_hidraw-$T_HID_SUFFIX") ;;
      *) rm -rf "$d" ;;
    esac
  done
  [ -n "$(ls -A "$sp/$T_SP_PREBUILDS")" ] || die "no serialport prebuild $T_SP_KEEP in $T_SP_PREBUILDS"
  if [ ! -d "$hid/HID-$T_HID_SUFFIX" ] || [ ! -d "$hid/HID_hidraw-$T_HID_SUFFIX" ]; then
    die "node-hid prebuilds for $T_HID_SUFFIX missing"
  fi
}

# Refuse to ship an addon of another architecture (the emulated run proves they load; this makes
# the build itself fail early).
check_addon_machines() {
  local f machine class bad=0 count=0
  while IFS= read -r -d '' f; do
    count=$((count + 1))
    # binutils' labels are translated (fr: "Classe :"): read them in the C locale.
    machine=$(LC_ALL=C readelf -h "$f" | sed -n 's/^ *Machine: *//p')
    class=$(LC_ALL=C readelf -h "$f" | sed -n 's/^ *Class: *//p')
    case "$machine" in
      *"$T_ELF_MACHINE"*) [ "$class" = "$T_ELF_CLASS" ] || bad=1 ;;
      *) bad=1 ;;
    esac
    log "addon ${f#"$APP"/}: $class $machine"
    # A shared object as Debian ships one (lintian's errors shared-library-is-executable and
    # unstripped-binary-or-object, in the package made from this tree): no x bit, no symbol table.
    if [ -n "$(find "$f" -perm /111)" ]; then log "addon ${f#"$APP"/} is executable"; bad=1; fi
    if LC_ALL=C readelf -S "$f" | grep -q '\.symtab'; then log "addon ${f#"$APP"/} is not stripped"; bad=1; fi
  done < <(find "$APP" -name '*.node' -type f -print0 | LC_ALL=C sort -z)
  [ "$count" -ge 5 ] || die "expected epoll, i2c-bus, serialport and node-hid (2) addons, found $count"
  [ "$bad" -eq 0 ] || die "an addon is not a stripped, non-executable $T_ELF_CLASS $T_ELF_MACHINE shared object"
}

add_node() {
  [ "$WITH_NODE" -eq 1 ] || return 0
  log "node/bin/node: $T_NODE_PKG@$T_NODE_VERSION"
  mkdir -p "$APP/node/bin"
  cp "$T_NODE_DIR/bin/node" "$APP/node/bin/node"
  # Without its symbol table (as Debian strips binaries): 18 MB less, runs the same.
  "$T_TRIPLET-strip" --remove-section=.comment --remove-section=.note "$APP/node/bin/node"
  cp "$T_NODE_DIR/LICENSE" "$APP/node/LICENSE"
}

# The newest glibc symbol version any addon needs (epoll, built against Debian bookworm's
# cross libc, needs 2.34: fine on Pi OS bookworm's 2.36, not on bullseye's 2.31).
glibc_min() {
  find "$APP" -name '*.node' -type f -exec env LC_ALL=C "$T_TRIPLET-objdump" -T {} + |
    { grep -o 'GLIBC_[0-9.]*' || true; } | sed 's/^GLIBC_//' | LC_ALL=C sort -uV | tail -n 1
}

# The vendor's inputs (vendor.json, security.txt) and the SBOM of what ships, checked against the
# vendored CycloneDX schema and against the tree: a failure fails the build.
write_vendor_and_sbom() {
  write_vendor_files "$APP" "$(bundle_version)" "$SOURCE_DATE_EPOCH"
  node "$ROOT/scripts/release/sbom.mjs" write "$APP" --kind bundle --arch "$T_ARCH" --time "$SOURCE_DATE_EPOCH" --toolchain "$TOOLCHAIN" \
    --depends "$(node "$ROOT/scripts/release/sbom.mjs" depends "$APP" --glibc-min "$(glibc_min)")" --deb-arch "$T_DEB_ARCH" --out "$APP/sbom.cdx.json" >&2
  node "$ROOT/scripts/release/check-sbom.mjs" "$APP/sbom.cdx.json" --tree "$APP" >&2 || die "the SBOM failed its check (above): no release"
  chmod 0644 "$APP/sbom.cdx.json"
}

# The Debian packages of the tools whose output ships: the cross compiler, its libraries and
# binutils (the addons, the stripped node), tar and gzip (the tarball). Recorded, name, version and
# architecture, in the manifest (builtWith.toolchain) and the SBOM (its formulation): a rebuild on
# another machine installs these versions (snapshot.debian.org) to get the same bytes.
record_toolchain() {
  local f path pkgs=()
  for f in "$(command -v "$T_TRIPLET-gcc")" "$(command -v "$T_TRIPLET-g++")" "$(command -v "$T_TRIPLET-strip")" \
    "$(command -v "$T_TRIPLET-ld")" "$("$T_TRIPLET-gcc" -print-prog-name=cc1)" "$("$T_TRIPLET-g++" -print-prog-name=cc1plus)" \
    "$("$T_TRIPLET-gcc" -print-file-name=libc.so)" "$("$T_TRIPLET-g++" -print-file-name=libstdc++.so)" "$(command -v tar)" "$(command -v gzip)"; do
    path=$(readlink -f "$f")
    # dpkg's database names some files without /usr (a merged-/usr system's /bin/tar).
    pkgs+=("$({ dpkg-query -S "$path" 2>/dev/null || dpkg-query -S "${path#/usr}" 2>/dev/null || die "no Debian package owns $path"; } | head -n 1 | sed 's/: .*//')")
  done
  TOOLCHAIN=$CACHE/toolchain-$T_ARCH.json
  mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | LC_ALL=C sort -u)
  dpkg-query -W -f='${Package}\t${Version}\t${Architecture}\n' "${pkgs[@]}" | LC_ALL=C sort -u |
    node -e 'let t = ""; process.stdin.on("data", (d) => (t += d)).on("end", () => console.log(JSON.stringify(t.trim().split("\n").map((l) => {
      const [pkg, version, architecture] = l.split("\t"); return { package: pkg, version, architecture }; }))));' >"$TOOLCHAIN"
  # shellcheck disable=SC2016 # JavaScript, not shell
  log "toolchain: $(node -p 'require(process.argv[1]).map((p) => `${p.package} ${p.version}`).join(", ")' "$TOOLCHAIN")"
}

# Every file readable by all, writable by its owner only, executable where it was by anyone (dirs
# too): the same modes whatever the build's umask (a umask of 0077 made every file 0600).
normalize_modes() { chmod -R u+rwX,go+rX,go-w "$APP"; }

write_manifest() {
  local commit dirty=false
  commit=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)
  [ -z "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ] || dirty=true
  node "$ROOT/scripts/bundle/manifest.mjs" "$APP" --arch "$T_ARCH" --node-version "$T_NODE_VERSION" \
    --node-abi "$(node_abi)" --commit "$commit" --dirty "$dirty" --commit-time "$SOURCE_DATE_EPOCH" --built-at "$BUILT_AT" \
    --node-bundled "$WITH_NODE" --glibc-min "$(glibc_min)" --lock "$ROOT/package-lock.json" --toolchain "$TOOLCHAIN"
}

# Sorted names, fixed owner and mtimes, gzip without a timestamp: the same inputs give the same bytes
# (with SOURCE_DATE_EPOCH set, the manifest too).
pack() {
  local tarball
  tarball=$(bundle_tarball)
  mkdir -p "$(dirname "$tarball")"
  tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
    -C "$(dirname "$APP")" -cf - "$(basename "$APP")" | gzip -n -6 >"$tarball.tmp"
  mv "$tarball.tmp" "$tarball"
  (cd "$(dirname "$tarball")" && sha256sum "$(basename "$tarball")" >"$(basename "$tarball").sha256")
  local files unpacked
  files=$(find "$APP" -type f | wc -l)
  unpacked=$(du -sh "$APP" | cut -f1)
  log "bundle: $tarball"
  echo "$(basename "$tarball"): $(du -h "$tarball" | cut -f1) ($(stat -c %s "$tarball") bytes), unpacked $unpacked in $files files"
}

main() {
  parse_args "$@"
  target_vars "$ARCH"
  [ "$WITH_NODE" != default ] || WITH_NODE=$T_NODE_BUNDLED
  mkdir -p "$CACHE"
  addon_cflags
  ensure_commands "$T_TRIPLET-g++:g++-$T_TRIPLET" make:make python3:python3 readelf:binutils
  ensure_host_deps
  fetch_node
  BUILT_AT=$SOURCE_DATE_EPOCH
  STAGE=$CACHE/stage/$T_ARCH
  APP=$STAGE/$(bundle_name)
  rm -rf "$STAGE"
  mkdir -p "$APP"
  compile_js
  copy_sources
  install_production_deps
  build_epoll
  build_i2c_bus
  prune_prebuilds
  tidy_node_modules
  check_addon_machines
  add_node
  record_toolchain
  write_vendor_and_sbom
  write_manifest
  normalize_modes
  pack
  log "done"
}

main "$@"
