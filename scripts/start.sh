#!/usr/bin/env bash
# `npm start`: set up what is missing, build, migrate (at start) and serve on the embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec node dist/src/cli/run.js serve "$@"
