# shellcheck shell=bash
# Sourced by install.sh: getting a release and putting it in place. A bundle's signature checked
# before anything of it is unpacked, then unpacked, its Node chosen and every checksum of its
# manifest verified; or the package's unpacked tree; or a build of this checkout. Then the release
# copied into releases/<version> (renamed into place, on disk first), and what is no longer needed
# pruned. Nothing here switches `current`: that is units.sh's activate, called by switch.sh.

# --- what a release needs on this board --------------------------------------------------------
check_node() {
  local v
  command -v "$NODE_BIN" >/dev/null 2>&1 || die "no Node.js at $NODE_BIN (the unit runs /usr/bin/node unless the release ships its own).
  Node >= $MIN_NODE is needed. Raspberry Pi OS Trixie: apt-get install nodejs.
  Bookworm ships Node 18: install Node 20 or 22 from NodeSource's Debian packages first."
  v="$("$NODE_BIN" --version 2>/dev/null)" || die "$NODE_BIN --version failed"
  v="${v#v}"
  version_ge "$v" "$MIN_NODE" || die "Node $v at $NODE_BIN is too old: $MIN_NODE or newer is needed (Bookworm's nodejs is 18: use NodeSource's Node 20 or 22)"
  NODE_VERSION="$v"
}

# ensure_packages required|optional PKG...: apt-get install what is missing (live systems only).
ensure_packages() {
  local kind="$1"; shift
  local missing=() p
  if [ "$LIVE" = 0 ]; then
    host apt-get install -y --no-install-recommends "$@"
    return 0
  fi
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ "${#missing[@]}" -gt 0 ] || return 0
  say "installing Debian packages: ${missing[*]}"
  # A fresh image may have no package lists yet: update once and retry.
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" &&
    ! { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; }; then
    [ "$kind" = required ] && die "could not install ${missing[*]}"
    say "warning: could not install ${missing[*]} (offline?). Without libusb-1.0-0 and libudev1 no HID"
    say "  scanner or keypad loads; without gpiod the GPIO character-device backend cannot run. Install them"
    say "  (copy the .deb files over with the bundle: apt-get download ${missing[*]}) and run this again."
  fi
}

# runtime_packages_of DIR: the package names of DIR/systemd/runtime-packages, one per line
runtime_packages_of() {
  local list="$1/systemd/runtime-packages"
  if [ -f "$list" ]; then
    sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list" | awk '{ print $1 }'
  else
    printf '%s\n' "${FALLBACK_RUNTIME_PACKAGES[@]}"
  fi
}

# --- getting a release ------------------------------------------------------------------------
# verify_signature FILE: FILE.sig (or --signature) is a detached OpenPGP signature of FILE by the
# vendor's key. Runs before anything of the bundle is unpacked. gpgv exits 0 for a good signature
# by a key its keyring marks revoked or expired (status REVKEYSIG, EXPKEYSIG): only GOODSIG, which
# it gives for a key valid now, counts (a key's revocation travels in the keyring: docs/fleet.md).
verify_signature() {
  local bundle="$1" sig="${SIGNATURE:-$1.sig}" key="${KEY_FILE:-$VENDOR_KEY}" out
  if [ "$SKIP_SIGNATURE" = 1 ]; then
    say "WARNING: --insecure-skip-signature: installing $(basename "$bundle") without checking who made it"
    journal warning "installing $(basename "$bundle") without checking its signature (--insecure-skip-signature)"
    return 0
  fi
  [ -f "$sig" ] || die "no signature $sig: refusing an unsigned release (--insecure-skip-signature installs it anyway)"
  [ -f "$key" ] || die "no vendor key $key: give the vendor's public key with --key FILE (it is installed with the first release)"
  command -v gpgv >/dev/null 2>&1 || die "gpgv is missing (Debian package gpgv): cannot check the signature"
  mkdir -p "$TMP/gnupg" && chmod 0700 "$TMP/gnupg"
  if ! out="$(gpgv --homedir "$TMP/gnupg" --status-fd 1 --keyring "$(cd "$(dirname "$key")" && pwd)/$(basename "$key")" "$sig" "$bundle" 2>&1)" ||
    ! grep -q '^\[GNUPG:\] GOODSIG ' <<<"$out" || ! grep -q '^\[GNUPG:\] VALIDSIG ' <<<"$out" ||
    grep -q '^\[GNUPG:\] \(REVKEYSIG\|EXPKEYSIG\|EXPSIG\|BADSIG\) ' <<<"$out"; then
    local why
    why="$(grep -o 'REVKEYSIG\|EXPKEYSIG\|EXPSIG\|BADSIG\|NO_PUBKEY\|NODATA\|ERRSIG' <<<"$out" | head -n 1 || true)"
    case "$why" in
      REVKEYSIG) why="REVKEYSIG: signed by a key the vendor has revoked" ;;
      EXPKEYSIG) why="EXPKEYSIG: signed by a key that has expired" ;;
    esac
    journal err "refused $(basename "$bundle"): its signature does not check out against $key (${why:-no good signature})"
    die "bad signature: $(basename "$bundle") is not signed by a valid vendor key in $key (${why:-no good signature})"
  fi
  say "signature ok: signed by $(sed -n 's/^\[GNUPG:\] VALIDSIG \([0-9A-F]*\) .*/\1/p' <<<"$out" | head -n 1)"
}

# extract_bundle FILE -> sets STAGE to the directory holding manifest.json (tar only: no node yet)
extract_bundle() {
  [ -f "$1" ] || die "no bundle file $1"
  mkdir -p "$TMP/bundle"
  tar -xzf "$1" -C "$TMP/bundle" --no-same-owner || die "cannot unpack $1 (not a .tar.gz?)"
  if [ -f "$TMP/bundle/manifest.json" ]; then
    STAGE="$TMP/bundle"
  else
    local tops=("$TMP"/bundle/*)
    if [ "${#tops[@]}" != 1 ] || [ ! -f "${tops[0]}/manifest.json" ]; then die "no manifest.json at the top of $1"; fi
    STAGE="${tops[0]}"
  fi
}

# choose_node: the bundle's own node/bin/node when it ships one, else the board's ($NODE_BIN, >=
# MIN_NODE). A bundled node is checked with sha256sum against manifest.json before it is run at
# all, then must run here (architecture, glibc); it then does the manifest work below too.
choose_node() {
  local bundled="$STAGE/node/bin/node" want got v
  if [ ! -e "$bundled" ]; then
    check_node
    return 0
  fi
  want="$(grep -o '"node/bin/node": *"[0-9a-f]\{64\}"' "$STAGE/manifest.json" | grep -o '[0-9a-f]\{64\}' || true)"
  [ -n "$want" ] || die "the bundle ships node/bin/node but manifest.json has no checksum for it"
  got="$(sha256sum "$bundled" | cut -d' ' -f1)"
  [ "$got" = "$want" ] || die "the bundle is damaged (checksum mismatch: node/bin/node)"
  v="$("$bundled" --version 2>&1)" || die "the bundle's node/bin/node does not run on this board: ${v:-no output} (wrong architecture or glibc?)"
  NODE_BIN="$bundled"
  NODE_VERSION="${v#v}"
  say "the release ships Node $NODE_VERSION (node/bin/node): the unit runs it"
}

# manifest_field FILE FIELD -> the value of a top-level field ('' if absent), with NODE_BIN
manifest_field() {
  "$NODE_BIN" -e '
    const v = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[process.argv[2]];
    process.stdout.write(v == null ? "" : String(v));' "$1" "$2"
}

# verify_bundle: manifest, checksums, architecture and Node major of STAGE, with NODE_BIN. One node
# start for all of it (a start costs seconds on a slow board); node/bin/node was checked already.
verify_bundle() {
  local f out
  for f in app/main.js node_modules package.json systemd/$NAME.service; do
    [ -e "$STAGE/$f" ] || die "the bundle lacks $f"
  done
  out="$("$NODE_BIN" -e '
    const fs = require("fs"), path = require("path"), crypto = require("crypto");
    const dir = process.argv[1];
    const m = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
    let bad = 0;
    for (const [file, want] of Object.entries(m.checksums || {})) {
      if (file === "node/bin/node") continue;
      const p = path.join(dir, file);
      if (!p.startsWith(dir + path.sep)) { console.error("outside the bundle: " + file); bad++; continue; }
      let got = "";
      try { got = crypto.createHash("sha256").update(fs.readFileSync(p)).digest("hex"); } catch { got = "(missing)"; }
      if (got !== want) { console.error("checksum mismatch: " + file + " " + got); bad++; }
    }
    const field = (k) => (m[k] == null || m[k] === "" ? "-" : String(m[k]).replace(/[^A-Za-z0-9._+~-]/g, "?"));
    process.stdout.write([field("name"), field("version"), field("arch"), field("nodeMajor")].join(" ") + "\n");
    process.exit(bad ? 3 : 0);' "$STAGE" 2>&1)" || {
    printf '%s\n' "$out" | head -n -1 >&2
    die "the bundle is damaged (checksums in manifest.json do not match)"
  }
  local name version arch want_major
  read -r name version arch want_major <<<"$(tail -n 1 <<<"$out")"
  [ "$arch" != - ] || arch=""
  [ "$want_major" != - ] || want_major=""
  [ "$name" = "$NAME" ] || die "manifest.json is not $NAME's"
  M_VERSION="$version"
  case "$arch" in arm) arch=armv7 ;; esac
  if [ -n "$arch" ] && [ "$LIVE" = 1 ] && [ "$arch" != "$(target_arch)" ]; then
    die "the bundle is for $arch, this board is $(target_arch)"
  fi
  if [ -n "$want_major" ] && [ "$want_major" != "${NODE_VERSION%%.*}" ]; then
    die "the bundle's native addons are built for Node $want_major, this board has Node $NODE_VERSION"
  fi
}

# build_from_source -> sets STAGE to a freshly built release tree
build_from_source() {
  local src
  src="$(cd "$(dirname "$0")/.." && pwd)"
  if [ ! -f "$src/package.json" ] || [ ! -f "$src/tsconfig.build.json" ]; then die "not a source checkout ($src): use --bundle FILE"; fi
  ensure_packages required "${BUILD_PACKAGES[@]}"
  say "building in $src"
  (cd "$src" && npm ci --no-audit --no-fund && npm run build)
  # A fixed staging path: node-gyp writes absolute paths into its build files, and a random one
  # would make every rebuild differ from the installed release (no idempotent re-run). In a folder
  # only root writes (not /var/tmp: anyone could have made that name a link there first).
  STAGE="$BUILD_STAGE"
  rm -rf "$STAGE"
  mkdir -m 0700 "$STAGE"
  cp -a "$src/app" "$src/package.json" "$src/package-lock.json" "$src/systemd" "$STAGE/"
  [ -d "$src/hardware" ] && cp -a "$src/hardware" "$STAGE/"
  [ -f "$src/README.md" ] && cp -a "$src/README.md" "$STAGE/"
  [ -d "$src/docs" ] && cp -a "$src/docs" "$STAGE/"
  (cd "$STAGE" && npm ci --omit=dev --no-audit --no-fund)
  # Compiler intermediates are not needed at run time.
  rm -rf "$STAGE"/node_modules/*/build/Release/obj.target "$STAGE"/node_modules/*/build/Release/.deps
  local version rev=""
  version="$(manifest_field "$STAGE/package.json" version)"
  if command -v git >/dev/null && git -C "$src" rev-parse --short HEAD >/dev/null 2>&1; then
    rev="-$(git -C "$src" rev-parse --short HEAD)"
    git -C "$src" diff --quiet HEAD 2>/dev/null || rev="$rev-dirty"
  fi
  "$NODE_BIN" -e '
    const [version, arch, node] = process.argv.slice(1);
    process.stdout.write(JSON.stringify({ name: "pickup-station", version, arch, nodeMajor: Number(node.split(".")[0]), source: "built from a checkout" }, null, 2) + "\n");' \
    "$version$rev" "$(target_arch)" "$NODE_VERSION" >"$STAGE/manifest.json"
}

get_release() { # -> STAGE, verified
  if [ -n "$PACKAGE_RELEASE" ]; then
    [ -f "$PACKAGE_RELEASE/manifest.json" ] || die "no release in $PACKAGE_RELEASE (manifest.json)"
    STAGE="$(cd "$PACKAGE_RELEASE" && pwd)"
    if already_installed; then return 0; fi
    choose_node
    verify_bundle
  elif [ -n "$BUNDLE" ]; then
    [ -f "$BUNDLE" ] || die "no bundle file $BUNDLE"
    verify_signature "$BUNDLE"
    extract_bundle "$BUNDLE"
    choose_node
    verify_bundle
  else
    check_node
    build_from_source
  fi
}

# already_installed: the package's release is the one under releases/ (the same manifest, which lists
# every file's sha256, and its files are hard links of the same ones): it was verified when it was
# installed. A configure again (a reinstall, dpkg --configure -a after an interruption, the repair
# before a start) then costs no node start and no second read of 128 MiB.
already_installed() {
  local version dest
  version="$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$STAGE/manifest.json" | head -n 1)"
  [[ "$version" =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] || return 1
  dest="$RELEASES/$version"
  [ -f "$dest/manifest.json" ] && grep -q '"checksums"' "$STAGE/manifest.json" && cmp -s "$STAGE/manifest.json" "$dest/manifest.json" || return 1
  [ "$(stat -c %i "$STAGE/app/main.js")" = "$(stat -c %i "$dest/app/main.js" 2>/dev/null)" ] || return 1
  M_VERSION="$version"
  NODE_BIN="$dest/node/bin/node"
  [ -x "$NODE_BIN" ] || NODE_BIN=/usr/bin/node
  say "release $version is the one installed from this package (verified then)"
}

# --- a release in place ----------------------------------------------------------------------
# same_release A B: the same release. A bundle's manifest lists the sha256 of every file, so equal
# manifests are equal releases (no second read of 128 MiB); a checkout's build is compared file by file.
same_release() {
  if grep -q '"checksums"' "$1/manifest.json" 2>/dev/null; then
    cmp -s "$1/manifest.json" "$2/manifest.json"
  else
    diff -r -q --no-dereference "$1" "$2" >/dev/null 2>&1
  fi
}

# install_release: STAGE into releases/<version> (unless the same release is there); sets RELEASE,
# and RELEASE_REPLACED when a release of the same version but other content was replaced.
install_release() {
  local version dest tmpdest
  version="${M_VERSION:-$(manifest_field "$STAGE/manifest.json" version)}"
  [[ "$version" =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] || die "bad version in manifest.json: '$version'"
  RELEASE="$version"
  dest="$RELEASES/$version"
  ensure_dir "$OPT" 0755 root root
  ensure_dir "$RELEASES" 0755 root root
  if [ -d "$dest" ] && same_release "$STAGE" "$dest"; then
    say "release $version is already installed"
    return 0
  fi
  tmpdest="$RELEASES/.new-$version.$$"
  rm -rf "$tmpdest"
  # The package's tree: hard links (no second copy on the SD card). dpkg replaces a file by renaming
  # a new one over it, so the releases here keep their content when the package is upgraded.
  if [ "$PACKAGED" = 1 ] && [ -n "$PACKAGE_RELEASE" ] && cp -al "$STAGE" "$tmpdest" 2>/dev/null; then :; else
    rm -rf "$tmpdest"
    cp -a "$STAGE" "$tmpdest"
  fi
  chown -R 0:0 "$tmpdest"
  chmod -R u+rwX,go+rX,go-w "$tmpdest"
  # On disk before `current` can ever point at it (a copy's data may still be in the page cache; dpkg's
  # files, which the hard links share, it synced itself).
  sync -f "$tmpdest" 2>/dev/null || sync
  if [ -d "$dest" ]; then
    # Same version, different content (a rebuilt checkout): replace it.
    mv "$dest" "$RELEASES/.old-$version.$$"
    mv "$tmpdest" "$dest"
    rm -rf "$RELEASES/.old-$version.$$"
    RELEASE_REPLACED=1
  else
    mv "$tmpdest" "$dest"
  fi
  sync_path "$RELEASES"
  say "installed release $version"
}

# prune_stale_temps: the temporary files of a run cut off before its rename (NAME.new.PID: the record,
# current, previous, units, udev rules, wrappers), once that PID is no longer alive. Holds the lock.
prune_stale_temps() {
  local f pid
  for f in "$OPT"/*.new.* "$UNIT_DIR"/*.new.* "$(dirname "$UDEV_DEST")"/*.new.* "$BIN"/*.new.* "$(dirname "$INSTALLER_COPY")"/*.new.* \
    "$(dirname "$INSTALLER_COPY")"/installer/*.new.*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    pid="${f##*.new.}"
    case "$pid" in '' | *[!0-9]*) continue ;; esac
    if [ "$pid" = "$$" ] || kill -0 "$pid" 2>/dev/null; then continue; fi
    rm -f "$f"
    say "removed $(basename "$f"), left by an interrupted run"
  done
}

# prune: keep the releases the record names (current, previous, proven, pending, installed); remove
# the rest and what an interrupted run left (.new-*, .old-*, stale temporary files). Holds the installer lock.
prune() {
  local keep d v
  prune_stale_temps
  keep=" $(current_version) $(previous_version) $S_proven $S_pending $S_installed "
  for d in "$RELEASES"/.new-* "$RELEASES"/.old-*; do
    [ -e "$d" ] || continue
    rm -rf "$d"
    say "removed $(basename "$d"), left by an interrupted run"
  done
  for d in "$RELEASES"/*/; do
    [ -d "$d" ] || continue
    v="$(basename "$d")"
    case "$keep" in *" $v "*) continue ;; esac
    rm -rf "${RELEASES:?}/$v"
    say "removed old release $v"
  done
}
