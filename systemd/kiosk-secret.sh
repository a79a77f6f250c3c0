#!/bin/sh
# The kiosk's per-boot secret (src/devices/kiosk/secret.ts explains who holds what).
#
#   kiosk-secret.sh make DIR
#       pickup-station-kiosk.socket's ExecStartPre, as root: DIR/secret (0600 root, 64 hex digits
#       from 32 random bytes, a new one each time: each start of the socket unit) and
#       DIR/secret.sha256 ("sha256:<hex>", 0644: what the station checks against).
#   kiosk-secret.sh clear DIR
#       its ExecStopPost: both removed (the port is gone; the secret goes with it).
#   kiosk-secret.sh page SECRET_FILE PAGE URL
#       pickup-station-kiosk.service's ExecStartPre, as the kiosk's user: PAGE (0600), a local start
#       page that sends the browser to URL with the secret in the fragment (never sent over HTTP,
#       never on a command line: /proc/PID/cmdline is readable by every local user).
set -eu

usage() { echo "usage: $0 make DIR | clear DIR | page SECRET_FILE PAGE URL" >&2; exit 2; }

valid_secret() { printf '%s' "$1" | grep -Eq '^[0-9a-f]{64}$'; }

case "${1:-}" in
  make)
    [ $# -eq 2 ] || usage
    dir=$2
    umask 077
    mkdir -p "$dir"
    # Root's alone: the names below are fixed, so no one else may make links in it first.
    if [ -L "$dir" ] || [ "$(stat -c %u "$dir")" != 0 ]; then
      echo "$0: $dir is not root's: not writing the kiosk secret there" >&2
      exit 1
    fi
    chmod 0755 "$dir"
    od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >"$dir/secret.new"
    valid_secret "$(cat "$dir/secret.new")" || { echo "$0: could not make a secret" >&2; exit 1; }
    mv -f "$dir/secret.new" "$dir/secret"
    hash=$(sha256sum <"$dir/secret" | cut -d' ' -f1)
    printf 'sha256:%s\n' "$hash" >"$dir/secret.sha256.new"
    chmod 0644 "$dir/secret.sha256.new"
    mv -f "$dir/secret.sha256.new" "$dir/secret.sha256"
    ;;
  clear)
    [ $# -eq 2 ] || usage
    rm -f "$2/secret.sha256" "$2/secret" "$2/secret.new" "$2/secret.sha256.new"
    ;;
  page)
    [ $# -eq 4 ] || usage
    secret=$(cat "$2")
    valid_secret "$secret" || { echo "$0: $2 holds no kiosk secret" >&2; exit 1; }
    printf '%s' "$4" | grep -Eq '^http://(127\.0\.0\.1|localhost):[0-9]+/$' || { echo "$0: $4 is not the kiosk page's address" >&2; exit 1; }
    umask 077
    cat >"$3.new" <<PAGE
<!doctype html>
<html><head><meta charset="utf-8"><title>Pickup station</title>
<meta http-equiv="refresh" content="0; url=$4#k=$secret">
</head><body style="background:#000"></body></html>
PAGE
    mv -f "$3.new" "$3"
    ;;
  *) usage ;;
esac
