# shellcheck shell=bash
# Sourced by install.sh (which holds the globals and the state table): what every job of the
# installer uses. Output and the journal, the live system or a record of what would be done to it
# (--root), idempotent file operations (temp file, fsync, rename), and a few small questions.

cleanup() {
  if [ -n "$TMP" ]; then rm -rf "$TMP"; fi
  rm -rf "$BUILD_STAGE"
}

# --- the live system, or a record of what would be done to it --------------------------------
host() {
  if [ "$LIVE" = 1 ]; then
    "$@"
  else
    say "would run: $*"
    if [ -n "${PICKUP_INSTALL_RECORD:-}" ]; then printf '%s\n' "$*" >>"$PICKUP_INSTALL_RECORD"; fi
  fi
}

# journal PRIORITY MESSAGE: a line in the system journal (syslog identifier pickup-station-install)
# besides the output: what apt or Ansible print scrolls away, the journal stays.
journal() {
  if [ "$LIVE" = 1 ]; then
    if command -v logger >/dev/null 2>&1; then logger -t "$NAME-install" -p "daemon.$1" -- "$2" || true; fi
  else
    host logger -t "$NAME-install" -p "daemon.$1" -- "$2"
  fi
}

# sync_path PATH: its data (a file) or its entries (a folder) on disk before the next step.
sync_path() { sync "$1" 2>/dev/null || true; }

# --- idempotent file operations (each returns 0 only when something changed) -----------------
# ensure_dir DIR MODE OWNER GROUP
ensure_dir() {
  local dir="$1" mode="$2" uid gid
  uid="$(uid_of "$3")"; gid="$(gid_of "$4")"
  if [ ! -d "$dir" ]; then
    mkdir -p "$dir" || die "cannot create $dir"
  fi
  if [ "$(stat -c '%a %u %g' "$dir")" != "${mode#0} $uid $gid" ]; then
    chown "$uid:$gid" "$dir" || die "cannot chown $dir"
    chmod "$mode" "$dir" || die "cannot chmod $dir"
  fi
}

# ensure_file SRC DEST MODE OWNER GROUP [--keep]: copy unless identical (temp file, fsync, rename);
# --keep: never replace an existing DEST's content (config), only create it.
ensure_file() {
  local src="$1" dest="$2" mode="$3" uid gid
  uid="$(uid_of "$4")"; gid="$(gid_of "$5")"
  if [ -e "$dest" ] && [ "${6:-}" = --keep ]; then
    return 1
  fi
  if [ -f "$dest" ] && [ ! -L "$dest" ] && cmp -s "$src" "$dest" && [ "$(stat -c '%a %u %g' "$dest")" = "${mode#0} $uid $gid" ]; then
    return 1
  fi
  # Functions called in an `if` run without set -e: every step checks for itself.
  mkdir -p "$(dirname "$dest")" || die "cannot create $(dirname "$dest")"
  install -m "$mode" -o "$uid" -g "$gid" "$src" "$dest.new.$$" || die "cannot write $dest"
  sync_path "$dest.new.$$"
  mv -f "$dest.new.$$" "$dest" || die "cannot write $dest"
  return 0
}

# ensure_link TARGET LINK: atomic switch (rename over the old link), on disk before it returns.
ensure_link() {
  if [ -L "$2" ] && [ "$(readlink "$2")" = "$1" ]; then return 1; fi
  ln -sfn "$1" "$2.new.$$" || die "cannot create $2"
  mv -fT "$2.new.$$" "$2" || die "cannot point $2 to $1"
  sync_path "$(dirname "$2")"
  return 0
}

# --- the station's own files -------------------------------------------------------------------
# station_read FILE: FILE's text, read as the station's user. The daemon's runtime folder
# (/run/pickup-station: its update lock, its release.json) is that user's: a link planted there must
# lead root nowhere that user could not read itself (docs/security.md, "Privileged steps"). Nothing
# (and no error) when it cannot be read.
station_read() {
  local uid gid
  if [ "$LIVE" = 0 ]; then
    # A tree being prepared (--root): its users' ids are not this host's, and no daemon of its own
    # runs to plant anything; the file is read as it is, never through a link.
    dd if="$1" iflag=nofollow status=none 2>/dev/null || true
    return 0
  fi
  uid="$(id_of passwd "$NAME" 2>/dev/null)" || return 0
  gid="$(id_of group "$NAME" 2>/dev/null)" || return 0
  setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs -- cat -- "$1" 2>/dev/null || true
}

# --- small questions -------------------------------------------------------------------------
# systemd runs here (not a chroot, not an image being prepared).
systemd_running() { [ "$LIVE" = 0 ] || [ -d /run/systemd/system ]; }

uptime_s() { cut -d. -f1 /proc/uptime; }   # monotonic (the wall clock may jump on a board's first NTP sync)

version_ge() { # A >= B, dotted numbers
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

target_arch() {
  case "$(uname -m)" in
    aarch64|arm64) echo arm64 ;;
    armv7l|armv6l|armhf) echo armv7 ;;
    x86_64) echo x64 ;;
    *) uname -m ;;
  esac
}
