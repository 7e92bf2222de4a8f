#!/usr/bin/env bash
# One command on a fresh machine: install, then start the whole service on its embedded defaults
# (PGlite in ./.data, in-process limiter, a local renderer). It prints an admin token, a demo API key
# and the first calls to make.
set -euo pipefail
cd "$(dirname "$0")/.."

# 20.19: what package.json's engines and the test runner ask for (zlib.crc32, the level files' checksum, came in 20.15)
node_ok=$(node -p 'const [a, b] = process.versions.node.split(".").map(Number); a > 20 || (a === 20 && b >= 19) ? 1 : 0' 2>/dev/null || echo 0)
if [ "$node_ok" != 1 ]; then
  echo "Node.js 20.19 or newer is needed (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi

# No system packages: without a GPU the renderer's auto backend composites on its cpu backend, which
# is 50-100x faster than Mesa's software Vulkan (lavapipe) would be; a GPU host brings its own driver.
# Only the studio's baker needs a Vulkan driver on a machine without a GPU (docs/studio.md).
npm ci --no-audit --no-fund
# the renderer keeps the levels it builds on disk beside the embedded database, so a restart renders
# its first pictures in milliseconds (docs/renderer.md, "Level files"); LEVEL_CACHE_DIR= turns that off
export LEVEL_CACHE_DIR="${LEVEL_CACHE_DIR-${DATA_DIR:-$PWD/.data}/levels}"
exec npm start
