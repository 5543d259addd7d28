#!/usr/bin/env bash
# Copies the Chart.js UMD build from the harness's npm deps (harness/package.json) into
# webclient/public/vendor/, so the page (served as plain static files by the gateway, no bundler) and
# every report.html can use it. Runs as the harness's npm postinstall (`npm ci --prefix harness`);
# run on its own it installs the pinned deps first.
set -euo pipefail
harness="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
public="$harness/../webclient/public"
src="$harness/node_modules/chart.js/dist/chart.umd.min.js"
if [[ ! -f "$src" ]]; then
  # npm ci runs this script again as postinstall; by then chart.js exists, so no loop.
  (cd "$harness" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --prefer-offline >/dev/null) \
    || { echo "vendor.sh: npm ci in harness/ failed" >&2; exit 1; }
  [[ -f "$src" ]] && exit 0
  echo "vendor.sh: $src not found after npm ci" >&2; exit 1
fi
mkdir -p "$public/vendor"
cp "$src" "$public/vendor/chart.umd.min.js"
cp "$harness/node_modules/chart.js/LICENSE.md" "$public/vendor/chart.js.LICENSE.md"
echo "vendor.sh: chart.js $(node -p "require('$harness/node_modules/chart.js/package.json').version") -> webclient/public/vendor/"
