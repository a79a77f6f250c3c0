# shellcheck shell=bash
# Sourced by install.sh: the target's users and groups. The station's system user and group, the
# device groups the unit's SupplementaryGroups= names, and the numeric ids every file operation
# owns files by (read from the target's /etc, so that --root DIR gives DIR's ids).

# useradd/groupadd/userdel/groupdel on the target's /etc files (--prefix for a --root install).
accounts() {
  local cmd="$1"; shift
  if [ "$LIVE" = 1 ]; then "$cmd" "$@"; else "$cmd" --prefix "$ROOT" "$@"; fi
}

id_of() { # FILE NAME -> numeric id from a passwd/group file of the target
  awk -F: -v n="$2" '$1 == n { print $3; found = 1 } END { exit !found }' "$ROOT/etc/$1"
}
uid_of() { id_of passwd "$1" || die "no user $1 in $ROOT/etc/passwd"; }
gid_of() { id_of group "$1" || die "no group $1 in $ROOT/etc/group"; }

# --- users and groups -------------------------------------------------------------------------
ensure_accounts() {
  if [ ! -f "$ROOT/etc/passwd" ] || [ ! -f "$ROOT/etc/group" ]; then die "$ROOT/etc/passwd and $ROOT/etc/group must exist"; fi
  local g
  for g in "${SUPPLEMENTARY_GROUPS[@]}" "$NAME"; do
    if ! id_of group "$g" >/dev/null; then
      accounts groupadd --system "$g"
      say "created group $g"
    fi
  done
  if ! id_of passwd "$NAME" >/dev/null; then
    accounts useradd --system --gid "$NAME" --home-dir "/var/lib/$NAME" --no-create-home \
      --shell /usr/sbin/nologin --comment "library pickup station" "$NAME"
    say "created system user $NAME (groups come from the unit's SupplementaryGroups=)"
  fi
}

