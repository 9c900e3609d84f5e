#!/usr/bin/env bash
# Builds the native PocketSphinx addon (node-gyp), the TypeScript sources (tsc -> dist/) and the
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
step "build: TypeScript (tsc)" node node_modules/typescript/bin/tsc -p tsconfig.build.json
bash scripts/build-dashboard.sh
