#!/usr/bin/env bash
# Builds the native PocketSphinx and Flite addons (node-gyp), the TypeScript sources (tsc -> dist/) and the
# dashboard's browser bundle (Vite -> dist/dashboard/).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/step.sh
export npm_config_nodedir=/usr
if [ -f native/pocketsphinx/binding.gyp ]; then
  if [ ! -f native/pocketsphinx/build/Release/parla_pocketsphinx.node ] || [ -n "$(find native/pocketsphinx -name '*.cc' -newer native/pocketsphinx/build/Release/parla_pocketsphinx.node)" ]; then
    step "build: native/pocketsphinx (node-gyp)" node node_modules/node-gyp/bin/node-gyp.js rebuild --nodedir=/usr --directory=native/pocketsphinx
  fi
fi
# The Flite addon needs libflite's headers (Debian package flite1-dev, scripts/setup.sh); without
# them Parla runs the `flite` program instead (same audio, slower), so it is not an error.
if [ -f native/flite/binding.gyp ]; then
  if [ ! -f /usr/include/flite/flite.h ]; then
    echo "build: native/flite skipped (no /usr/include/flite/flite.h: install flite1-dev); Flite runs as the flite program" >&2
  elif [ ! -f native/flite/build/Release/parla_flite.node ] || [ -n "$(find native/flite -name '*.cc' -newer native/flite/build/Release/parla_flite.node)" ]; then
    step "build: native/flite (node-gyp)" node node_modules/node-gyp/bin/node-gyp.js rebuild --nodedir=/usr --directory=native/flite
  fi
fi
step "build: TypeScript (tsc)" node node_modules/typescript/bin/tsc -p tsconfig.build.json
bash scripts/build-dashboard.sh
