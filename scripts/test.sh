#!/usr/bin/env bash
# `npm test`: set up what is missing (including test-only packages and services), type-check,
# then run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PARLA_SETUP_TEST_DEPS=1 bash scripts/setup.sh
bash scripts/services.sh
# Type-checks and compiles src/, test/ and bench/ to dist/: the runner then runs each test file's
# compiled copy (decision #102).
echo "test: type-check and compile (tsc -> dist/)"
node node_modules/typescript/bin/tsc -p tsconfig.json
node node_modules/typescript/bin/tsc -p packages/client/tsconfig.json --noEmit
node node_modules/typescript/bin/tsc -p src/dashboard/web/tsconfig.json
node scripts/run-tests.mjs "$@"
