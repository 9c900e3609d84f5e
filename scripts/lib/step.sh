# Sourced by setup.sh, build.sh and build-dashboard.sh: each step of setting up and building
# prints one line; what its tools print (node-gyp's, npm's, Vite's dozens of lines) is kept in a
# log that is shown in full only when the step fails.
#
#   step "build: tsc" node node_modules/typescript/bin/tsc -p tsconfig.build.json
#
# prints "build: tsc ... ok (8 s)", or "build: tsc ... FAILED (exit 2)" followed by the log on
# stderr, and returns the command's exit status (so `set -e` stops the script there).
step() {
  local label=$1
  shift
  local log started=$SECONDS status=0
  log=$(mktemp "${TMPDIR:-/tmp}/parla-step.XXXXXX")
  printf '%s ... ' "$label"
  "$@" >"$log" 2>&1 || status=$?
  if [ "$status" -eq 0 ]; then
    echo "ok ($((SECONDS - started)) s)"
  else
    echo "FAILED (exit $status)"
    {
      echo "---- output of: $*"
      cat "$log"
      echo "---- end of output ($label)"
    } >&2
  fi
  rm -f "$log"
  return "$status"
}
