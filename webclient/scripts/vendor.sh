#!/usr/bin/env bash
# Copies the Chart.js UMD build from npm into public/vendor/ so the page (served as plain static
# files by the gateway, no bundler) and report.html can use it. Runs as runner's npm postinstall;
# the lab may also call it directly, then it installs the runner's pinned deps first.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$here/runner/node_modules/chart.js/dist/chart.umd.min.js"
if [[ ! -f "$src" ]]; then
  # npm ci runs this script again as postinstall; by then chart.js exists, so no loop.
  (cd "$here/runner" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --prefer-offline >/dev/null) \
    || { echo "vendor.sh: npm ci in webclient/runner failed" >&2; exit 1; }
  [[ -f "$src" ]] && exit 0
  echo "vendor.sh: $src not found after npm ci" >&2; exit 1
fi
mkdir -p "$here/public/vendor"
cp "$src" "$here/public/vendor/chart.umd.min.js"
cp "$here/runner/node_modules/chart.js/LICENSE.md" "$here/public/vendor/chart.js.LICENSE.md"
echo "vendor.sh: chart.js $(node -p "require('$here/runner/node_modules/chart.js/package.json').version") -> public/vendor/"
