#!/usr/bin/env bash
# .ci/run's static checks: typecheck, eslint, Prettier; the monitoring assets; the rollout playbook;
# Shellcheck over every shell script; the systemd unit's verify and exposure.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run check
# Monitoring assets: example configs, alert rules and their unit tests (promtool; also run by npm test).
bash ops/check.sh
# The fleet rollout playbook (docs/fleet.md), by Ansible's own syntax check.
ansible-playbook -i localhost, --syntax-check ops/ansible/rollout.yml
shellcheck -x .ci/run .ci/parts.sh .ci/static-checks.sh scripts/bundle/*.sh scripts/release/*.sh scripts/rig/*.sh scripts/node/*.sh ops/check.sh \
  packaging/deb/build.sh packaging/deb/debian/preinst packaging/deb/debian/postinst packaging/deb/debian/prerm packaging/deb/debian/postrm \
  packaging/apt/publish.sh packaging/test/*.sh scripts/board/*.sh scripts/board/guest/*.sh
# systemd unit: verify + security exposure (printed, must be <= 3.0); the installer's lint: its job
# files (installer/*.sh) checked as install.sh sources them (-x -a), with its globals in view.
bash systemd/check-unit.sh
for f in systemd/install.sh systemd/installer/*.sh; do bash -n "$f"; done
shellcheck -x -a systemd/install.sh systemd/check-unit.sh systemd/kiosk-secret.sh systemd/kiosk-policy.sh systemd/credentials-check.sh
echo "shellcheck: ok"
