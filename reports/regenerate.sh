#!/usr/bin/env bash
# Regenerate the committed reports. tests/test_reports.py fails when they are stale.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf reports/examples
reluid audit examples/networks --markdown reports/examples/summary.md --reports reports/examples \
  --certificates reports/examples/certificates || true   # exit 1: some examples have hidden symmetries
if reluid prove --help >/dev/null 2>&1; then reluid prove --output-dir reports || true; fi
