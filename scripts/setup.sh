#!/usr/bin/env bash
# Installs what Parla needs on a fresh Debian 12 machine with Node 20, then builds it.
# Idempotent and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/step.sh

# ffmpeg: decoding odd uploads, real-time Opus, and the OpenAI dialect's opus/aac (libopus, aac encoders).
# flite1-dev: libflite and its voice libraries for the native Flite addon (native/flite; without
# it Flite runs as the `flite` program, slower, same audio).
# bzip2: `parla models pull` decodes .tar.bz2 archives with it, in a child process (src/models/unpack.ts).
DEBS=(flite flite1-dev festival festvox-us-slt-hts htsengine libpocketsphinx-dev libsphinxbase-dev pocketsphinx-en-us pkg-config ffmpeg bzip2)
# Test-only: recordings and tools that make test speech, Chromium for the dashboard's browser tests,
# python3-onnx/numpy to generate small random-weight sherpa-onnx models, bzip2/zip to pack them.
# pocketsphinx (pocketsphinx_continuous), espeak-ng and flite are also the baselines of `npm run bench`.
[ "${PARLA_SETUP_TEST_DEPS:-0}" = 1 ] && DEBS+=(pocketsphinx-testdata pocketsphinx espeak-ng sox chromium python3-onnx python3-numpy bzip2 zip)
missing=()
for p in "${DEBS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    step "setup: apt-get update" apt-get update -qq
    step "setup: Debian packages ${missing[*]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  else
    echo "setup: please install these Debian packages first: ${missing[*]}" >&2
    exit 1
  fi
fi

# node-gyp cannot download Node headers here: build native code against the system's.
export npm_config_nodedir=/usr
if [ ! -d node_modules ] || [ package.json -nt node_modules/.package-lock.json ]; then
  step "setup: npm packages" npm install --no-audit --no-fund --loglevel=error
fi
bash scripts/build.sh
bash scripts/lib/install-command.sh
