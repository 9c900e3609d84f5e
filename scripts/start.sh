#!/usr/bin/env bash
# `npm start`: set up what is missing, build, migrate (at start) and serve on the embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# glibc raises its mmap threshold after large frees (up to 32 MB), and audio arrays of a few MB
# then come from heaps that keep freed memory: after a burst of large requests RSS stayed high.
# A fixed 128 KB threshold gives such arrays back to the system when they are freed
# (docs/tts.md#memory). An operator's own setting wins.
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"
exec node dist/src/cli/run.js serve "$@"
