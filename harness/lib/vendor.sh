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
# JsSIP (the page's SIP-over-WebSocket client, webclient/public/sip-ws-client.js): npm ships it as CommonJS with
# its dependencies, so esbuild bundles it into one script that defines the global JsSIP.
jssip="$harness/node_modules/jssip"
[[ -f "$jssip/lib/JsSIP.js" ]] || { echo "vendor.sh: $jssip/lib/JsSIP.js not found (npm ci in harness/)" >&2; exit 1; }
"$harness/node_modules/.bin/esbuild" "$jssip/lib/JsSIP.js" --bundle --format=iife --global-name=JsSIP --minify \
  --platform=browser --log-level=warning --outfile="$public/vendor/jssip.min.js"
cp "$jssip/LICENSE.md" "$public/vendor/jssip.LICENSE.md"
echo "vendor.sh: jssip $(node -p "require('$jssip/package.json').version") -> webclient/public/vendor/jssip.min.js"
# MD5 over raw octets for IMS-AKA digest (webclient/public/ims-aka.js: RFC 3310's password is RES as octets; WebCrypto
# has no MD5 and JsSIP's calculateMD5 UTF-8-encodes its input): @noble/hashes' md5, bundled as one ES module.
noble="$harness/node_modules/@noble/hashes"
[[ -f "$noble/legacy.js" ]] || { echo "vendor.sh: $noble/legacy.js not found (npm ci in harness/)" >&2; exit 1; }
"$harness/node_modules/.bin/esbuild" "$noble/legacy.js" --bundle --format=esm --minify --platform=browser --log-level=warning \
  --outfile="$public/vendor/noble-legacy.js"
cp "$noble/LICENSE" "$public/vendor/noble-hashes.LICENSE"
echo "vendor.sh: @noble/hashes $(node -p "require('$noble/package.json').version") -> webclient/public/vendor/noble-legacy.js"
