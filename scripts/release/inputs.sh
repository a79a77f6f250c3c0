# shellcheck shell=bash
# The vendor's inputs every release build takes (sourced by scripts/bundle/build.sh,
# packaging/deb/build.sh, scripts/release/reproduce.sh and scripts/bundle/verify-emulated.sh): who to
# tell about a flaw, the policy that says how it is handled, and until when the release line gets
# security fixes. Never defaulted: a release without them is refused, the missing flag named.
#
#   --security-contact URI        mailto:ADDRESS, https://URL or tel:+NUMBER (RFC 9116 Contact:)
#   --security-policy URL         https://URL of the vendor's vulnerability-handling policy
#                                 (RFC 9116 Policy:; the release's own SECURITY.md is a copy of it)
#   --support-until DATE          YYYY-MM-DD, the last day of security fixes for this release line:
#                                 at least SUPPORT_MIN_YEARS after the build's date (SOURCE_DATE_EPOCH)
#   --support-until-reason TEXT   why a shorter period (a patch release of a line whose end was set
#                                 by its first release, a product sold for less time): with it, any
#                                 date from the build's on is taken, and the reason ships with it
#
# The minimum is the CRA's support period (Art. 13(8): at least five years, unless the product is
# expected in use for less): decision 0150.

# shellcheck disable=SC2034 # the sourcing scripts read these
SUPPORT_MIN_YEARS=5
SECURITY_CONTACT=""
SECURITY_POLICY=""
SUPPORT_UNTIL=""
SUPPORT_REASON=""
RELEASE_INPUTS=()

# release_input FLAG VALUE: keeps a release input (0), or 1 when FLAG is not one.
release_input() {
  case "$1" in
    --security-contact | --security-policy | --support-until | --support-until-reason) [ -n "${2:-}" ] || input_error "$1 needs a value" ;;
    *) return 1 ;;
  esac
  case "$1" in
    --security-contact) SECURITY_CONTACT=$2 ;;
    --security-policy) SECURITY_POLICY=$2 ;;
    --support-until) SUPPORT_UNTIL=$2 ;;
    --support-until-reason) SUPPORT_REASON=$2 ;;
  esac
  RELEASE_INPUTS+=("$1" "$2")
}

input_error() {
  printf '%s: error: %s\n' "${0##*/}" "$1" >&2
  exit 2
}

# check_release_inputs: each input present and well formed; exits 2 naming the first that is not.
check_release_inputs() {
  [ -n "$SECURITY_CONTACT" ] || input_error '--security-contact is required (mailto:ADDRESS, https://URL or tel:+NUMBER: where a flaw is reported)'
  [[ "$SECURITY_CONTACT" =~ ^(mailto:[^@[:space:]\"\\]+@[^@[:space:]\"\\]+\.[^@[:space:]\"\\]+|https://[^[:space:]\"\\]+|tel:\+[0-9][0-9-]*)$ ]] ||
    input_error "--security-contact \"$SECURITY_CONTACT\" is not a mailto:, https: or tel: URI"
  [ -n "$SECURITY_POLICY" ] || input_error '--security-policy is required (https://URL: the vendor'"'"'s vulnerability-handling policy, security.txt'"'"'s Policy:)'
  [[ "$SECURITY_POLICY" =~ ^https://[^/[:space:]\"\\]+[^[:space:]\"\\]*$ ]] || input_error "--security-policy \"$SECURITY_POLICY\" is not an https:// URL"
  [ -n "$SUPPORT_UNTIL" ] || input_error '--support-until is required (YYYY-MM-DD: the last day this release line gets security fixes)'
  if ! [[ "$SUPPORT_UNTIL" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || [ "$(date -u -d "$SUPPORT_UNTIL" +%F 2>/dev/null)" != "$SUPPORT_UNTIL" ]; then
    input_error "--support-until \"$SUPPORT_UNTIL\" is not a date YYYY-MM-DD"
  fi
  if [ -n "$SUPPORT_REASON" ] && { ! [[ "$SUPPORT_REASON" =~ ^[[:print:]]{10,200}$ ]] || [[ "$SUPPORT_REASON" == *[\"\\]* ]]; }; then
    input_error "--support-until-reason is one line of 10 to 200 printable characters, without \" or \\"
  fi
}

# support_minimum EPOCH: the earliest --support-until a build of that date takes without a reason.
support_minimum() { date -u -d "$(date -u -d "@$1" +%F) +$SUPPORT_MIN_YEARS years" +%F; }

# check_support_period EPOCH: the support period against the build's date (SOURCE_DATE_EPOCH, so a
# rebuild years later decides as the first build did). Never ending before the build; shorter than
# the minimum only with a reason. Exits 2 saying which.
check_support_period() {
  local built minimum
  built=$(date -u -d "@$1" +%F)
  minimum=$(support_minimum "$1")
  [ "${SUPPORT_UNTIL//-/}" -ge "${built//-/}" ] || input_error "--support-until $SUPPORT_UNTIL is before the build's date $built: a release cannot ship with its security support already over"
  if [ "${SUPPORT_UNTIL//-/}" -lt "${minimum//-/}" ] && [ -z "$SUPPORT_REASON" ]; then
    input_error "--support-until $SUPPORT_UNTIL is shorter than the minimum support period ($SUPPORT_MIN_YEARS years after the build's date $built: $minimum or later); give --support-until-reason TEXT for a shorter one"
  fi
}

# security_txt_expires EPOCH: RFC 9116 asks for less than a year ahead: the build's time plus 364
# days, or the end of support when that comes first.
security_txt_expires() {
  local year_ahead=$(($1 + 364 * 86400)) end
  end=$(date -u -d "${SUPPORT_UNTIL}T23:59:59Z" +%s)
  [ "$end" -ge "$year_ahead" ] || year_ahead=$end
  date -u -d "@$year_ahead" +%Y-%m-%dT%H:%M:%SZ
}

# write_vendor_files DIR VERSION EPOCH: vendor.json (read by the station: stationctl version, status,
# the technician page, the metric) and security.txt (RFC 9116 fields) into DIR, from the inputs.
write_vendor_files() {
  local dir=$1 version=$2 epoch=$3 reason=null
  [ -z "$SUPPORT_REASON" ] || reason="\"$SUPPORT_REASON\""
  printf '{\n  "product": "pickup-station",\n  "version": "%s",\n  "securityContact": "%s",\n  "securityPolicyUrl": "%s",\n  "supportUntil": "%s",\n  "supportUntilReason": %s,\n  "securityPolicy": "SECURITY.md",\n  "sbom": "sbom.cdx.json"\n}\n' \
    "$version" "$SECURITY_CONTACT" "$SECURITY_POLICY" "$SUPPORT_UNTIL" "$reason" >"$dir/vendor.json"
  printf '# pickup-station %s: where to report a security flaw (RFC 9116 fields).\n# Security fixes for this release line until %s; this release'"'"'s own copy of the policy: SECURITY.md.\nContact: %s\nExpires: %s\nPolicy: %s\nPreferred-Languages: en\n' \
    "$version" "$SUPPORT_UNTIL" "$SECURITY_CONTACT" "$(security_txt_expires "$epoch")" "$SECURITY_POLICY" >"$dir/security.txt"
  chmod 0644 "$dir/vendor.json" "$dir/security.txt"
}

# What test and CI builds pass (a reserved .invalid domain, a date no test outlives): never a
# release's real contact, which is the vendor's to give at its build.
# shellcheck disable=SC2034
TEST_RELEASE_INPUTS=(--security-contact mailto:security@vendor.test.invalid --security-policy https://vendor.test.invalid/security-policy --support-until 2099-12-31)
