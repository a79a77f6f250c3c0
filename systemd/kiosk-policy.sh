#!/bin/sh
# The kiosk browser's managed policy, checked before Chromium starts.
#
#   kiosk-policy.sh check FILE
#       pickup-station-kiosk.service's ExecStartPre, as the kiosk's user. Chromium reads every file
#       in /etc/chromium/policies/managed/ and skips one it cannot parse with a line in its own log:
#       a policy an administrator broke while editing it would let the kiosk run with no policy at
#       all (developer tools, every URL, downloads). So the browser does not start unless FILE is
#       readable by this user and a JSON object; the journal says what is wrong. A policy that is
#       valid but no longer closes what the shipped one closes starts, with a warning naming the keys.
set -eu

usage() { echo "usage: $0 check FILE" >&2; exit 2; }
if [ "${1:-}" != check ] || [ $# -ne 2 ]; then usage; fi
file=$2

node=/usr/bin/node
[ -x /opt/pickup-station/current/node/bin/node ] && node=/opt/pickup-station/current/node/bin/node

exec "$node" - "$file" <<'JS'
const { readFileSync } = require('node:fs');
const file = process.argv[2];
const stop = (why) => {
  console.error(`kiosk policy ${file}: ${why}; the kiosk browser stays off rather than run without its policy`);
  process.exit(1);
};
let text;
try {
  text = readFileSync(file, 'utf8');
} catch (e) {
  stop(`cannot be read (${e.code ?? e.message})`);
}
let policy;
try {
  policy = JSON.parse(text);
} catch (e) {
  stop(`is not valid JSON (${e.message})`);
}
if (policy === null || typeof policy !== 'object' || Array.isArray(policy)) stop('is not a JSON object of policy names and values');
const closed = {
  DeveloperToolsAvailability: (v) => v === 2,
  URLBlocklist: (v) => Array.isArray(v) && v.includes('*'),
  DownloadRestrictions: (v) => v === 3,
  AllowFileSelectionDialogs: (v) => v === false,
  PrintingEnabled: (v) => v === false,
};
const open = Object.entries(closed).filter(([k, ok]) => !ok(policy[k])).map(([k]) => k);
if (open.length > 0) console.error(`kiosk policy ${file}: warning: no longer closes what the shipped policy closes: ${open.join(', ')}`);
JS
