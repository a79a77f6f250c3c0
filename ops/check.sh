#!/usr/bin/env bash
# Checks the monitoring assets with Prometheus' own tool (Debian package `prometheus`):
# the example configs' syntax, the alert rules, and the rules' unit tests.
# Run by .ci/run and by test/e2e/ops-assets.test.ts (npm test).
set -euo pipefail
cd "$(dirname "$0")/prometheus"
# --syntax-only: the examples name credential files that exist only on a real server.
promtool check config --syntax-only prometheus.yml
promtool check config --syntax-only --agent agent.yml
promtool check rules rules/*.yml
promtool test rules tests/*.yml
