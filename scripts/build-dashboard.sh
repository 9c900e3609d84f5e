#!/usr/bin/env bash
# Builds the dashboard's browser bundle (Vite: src/dashboard/web -> dist/dashboard), only when its
# sources or the installed packages changed since the last build. Run by build.sh and by the
# browser tests, so that they never test a stale bundle.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/step.sh
# One build at a time: test files that run in parallel each ask for it.
mkdir -p dist
exec 9>dist/.dashboard-build.lock
flock 9
web=src/dashboard/web
stamp=dist/dashboard/.built
if [ ! -f "$stamp" ] || [ -n "$(find "$web" package-lock.json -newer "$stamp" -type f -print -quit)" ]; then
  # Always a production bundle: an inherited NODE_ENV (the test runner sets "test") would make
  # Vite emit development JSX, larger and carrying this machine's file paths.
  step "build: dashboard (vite)" env NODE_ENV=production node node_modules/vite/bin/vite.js build --config "$web/vite.config.ts"
  touch "$stamp"
fi
