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

# Spin frames (docs/spins.md) are shot on demand by the studio's baker, which needs WebGL: a GPU's
# driver, or without one Mesa's software Vulkan driver (lavapipe). Compositing never runs on lavapipe
# (auto measures and refuses a software rasterizer: 50-100x slower than the cpu backend), so the
# driver changes only that spins can be shot. Installed before npm ci: its postinstall links gl to
# the system's Vulkan loader.
if ! ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "quickstart: installing Mesa's Vulkan driver (lavapipe), so spin frames can be shot without a GPU (docs/spins.md)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends mesa-vulkan-drivers libvulkan1 >/dev/null 2>&1 ||
      { apt-get update -qq && apt-get install -y -qq --no-install-recommends mesa-vulkan-drivers libvulkan1 >/dev/null; }
  else
    echo "quickstart: no Vulkan driver found; spin frames cannot be shot until one is installed" \
      "(Debian/Ubuntu: sudo apt-get install mesa-vulkan-drivers libvulkan1, then npm ci). Everything else works."
  fi
fi
npm ci --no-audit --no-fund
# the renderer keeps the levels it builds on disk beside the embedded database, so a restart renders
# its first pictures in milliseconds (docs/renderer.md, "Level files"); LEVEL_CACHE_DIR= turns that off
export LEVEL_CACHE_DIR="${LEVEL_CACHE_DIR-${DATA_DIR:-$PWD/.data}/levels}"
exec npm start
