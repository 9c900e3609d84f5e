#!/usr/bin/env bash
# Puts the `parla` command on the PATH (run by setup.sh, so after `npm start` every doc's
# `parla ...` works): a two-line shim that runs this clone's bin/parla.js, written to
# PARLA_BIN_DIR, else /usr/local/bin as root, else ~/.local/bin when that is on the PATH. A `parla`
# already there that is not a Parla shim is left alone; with nowhere to write, the line to run
# instead is printed. Idempotent; PARLA_BIN_DIR=none skips it.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd -P)
marker='# parla shim (scripts/lib/install-command.sh)'
dir=${PARLA_BIN_DIR:-}
if [ -z "$dir" ]; then
  if [ "$(id -u)" = 0 ]; then dir=/usr/local/bin
  elif [[ ":$PATH:" == *":$HOME/.local/bin:"* ]]; then dir=$HOME/.local/bin
  fi
fi
[ "$dir" = none ] && exit 0
if [ -z "$dir" ] || ! mkdir -p "$dir" 2>/dev/null || [ ! -w "$dir" ]; then
  echo "setup: no writable bin directory on the PATH for \`parla\`: run it as node $root/bin/parla.js (or set PARLA_BIN_DIR)"
  exit 0
fi
target=$dir/parla
if [ -e "$target" ] && ! grep -qF "$marker" "$target" 2>/dev/null; then
  echo "setup: $target exists and is not Parla's: left alone (run node $root/bin/parla.js)"
  exit 0
fi
tmp=$(mktemp "$dir/.parla.XXXXXX")
printf '#!/bin/sh\n%s\nexec node "%s/bin/parla.js" "$@"\n' "$marker" "$root" >"$tmp"
chmod 755 "$tmp"
mv -f "$tmp" "$target"
echo "setup: \`parla\` is $target (runs $root/bin/parla.js)"
