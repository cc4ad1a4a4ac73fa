#!/usr/bin/env bash
# Regenerate the committed reports. tests/report/test_reports.py fails when they are stale.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf reports/examples
reluid audit examples/networks --markdown reports/examples/summary.md --link-base . --reports reports/examples \
  --certificates reports/examples/certificates --html reports/examples/html \
  || true   # exit 1: some examples have hidden symmetries
if reluid prove --help >/dev/null 2>&1; then reluid prove --output-dir reports || true; fi
# Figure 6 histograms from the committed survey data (the survey itself: see reports/survey.md)
python -c "from reluid.report.survey import plot_from_json; plot_from_json('reports/survey.json', \
  'reports/figure6.png')"
# Screenshots of the HTML audit in headless Chromium (kept as they are when no browser is installed)
python -m reluid.report.browser reports/examples/html/index.html reports/audit-index.png 1280 1160 \
  && python -m reluid.report.browser reports/examples/html/theta1_json.html reports/audit-theta1.png 1280 2560 \
  || echo "regenerate.sh: no chromium, screenshots not updated" >&2
# The page of a real-sized model (a float32 64-512-10 MLP trained with NumPy) and its screenshot
python reports/real_model.py || true
