# shellcheck shell=bash
# The vendor's inputs every release build takes (sourced by scripts/bundle/build.sh and
# packaging/deb/build.sh): who to tell about a flaw and until when the release line gets security
# fixes. Never defaulted: a release without them is refused, the missing flag named.
#
#   --security-contact URI   mailto:ADDRESS, https://URL or tel:+NUMBER (RFC 9116 Contact:)
#   --support-until DATE     YYYY-MM-DD, the last day of security fixes for this release line

# check_release_inputs CONTACT UNTIL: exits 2 naming the first flag missing or malformed.
check_release_inputs() {
  local contact=$1 until=$2 me=${0##*/}
  if [ -z "$contact" ]; then
    printf '%s: error: --security-contact is required (mailto:ADDRESS, https://URL or tel:+NUMBER: where a flaw is reported)\n' "$me" >&2
    exit 2
  fi
  if ! [[ "$contact" =~ ^(mailto:[^@[:space:]]+@[^@[:space:]]+\.[^@[:space:]]+|https://[^[:space:]]+|tel:\+[0-9][0-9-]*)$ ]]; then
    printf '%s: error: --security-contact "%s" is not a mailto:, https: or tel: URI\n' "$me" "$contact" >&2
    exit 2
  fi
  if [ -z "$until" ]; then
    printf '%s: error: --support-until is required (YYYY-MM-DD: the last day this release line gets security fixes)\n' "$me" >&2
    exit 2
  fi
  if ! [[ "$until" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || [ "$(date -u -d "$until" +%F 2>/dev/null)" != "$until" ]; then
    printf '%s: error: --support-until "%s" is not a date YYYY-MM-DD\n' "$me" "$until" >&2
    exit 2
  fi
}

# write_vendor_files DIR CONTACT UNTIL VERSION: vendor.json (read by the station: stationctl version,
# status, the technician page, the metric) and security.txt (RFC 9116 fields) into DIR.
write_vendor_files() {
  local dir=$1 contact=$2 until=$3 version=$4
  printf '{\n  "product": "pickup-station",\n  "version": "%s",\n  "securityContact": "%s",\n  "supportUntil": "%s",\n  "securityPolicy": "SECURITY.md",\n  "sbom": "sbom.cdx.json"\n}\n' \
    "$version" "$contact" "$until" >"$dir/vendor.json"
  # Expires: the end of the support period (RFC 9116 asks for one; past it nobody answers for this release).
  printf '# pickup-station %s: where to report a security flaw (RFC 9116 fields).\nContact: %s\nExpires: %sT23:59:59Z\nPolicy: file:///opt/pickup-station/current/SECURITY.md\nPreferred-Languages: en\n' \
    "$version" "$contact" "$until" >"$dir/security.txt"
  chmod 0644 "$dir/vendor.json" "$dir/security.txt"
}

# What test and CI builds pass (a reserved .invalid domain, a date no test outlives): never a
# release's real contact, which is the vendor's to give at its build.
# shellcheck disable=SC2034
TEST_RELEASE_INPUTS=(--security-contact mailto:security@vendor.test.invalid --support-until 2099-12-31)
