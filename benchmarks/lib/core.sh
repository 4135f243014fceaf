#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# the guard that keeps the caller's shell options, messages and number checks.

#######################################
# Run a function with errexit, nounset and xtrace off; restore the caller's
# flags afterwards. Every public function is a thin wrapper around this.
# Arguments:
#   Function name, then its arguments.
# Returns:
#   The function's status.
#######################################
_sg_guarded() {
  local _sg_flags="$-" _sg_rc=0
  { set +eux; } 2>/dev/null
  "$@" || _sg_rc=$?
  _sg_restore_flags "${_sg_flags}"
  return "${_sg_rc}"
}

# Restore -u, -e and -x (last, so the restore itself is not traced).
_sg_restore_flags() {
  case "$1" in *u*) set -u ;; *) set +u ;; esac
  case "$1" in *e*) set -e ;; *) set +e ;; esac
  case "$1" in *x*) set -x ;; esac
}

# Print the arguments as one line on stderr.
_sg_err() {
  printf '%s\n' "$*" >&2
}

_sg_is_uint() {
  [[ "${1:-}" =~ ^[0-9]+$ ]]
}

_sg_is_posint() {
  [[ "${1:-}" =~ ^[1-9][0-9]*$ ]]
}

# SWEEPGATE_POLL_S (seconds above 0, optional): the polling loops (readiness,
# a client's watch on its server, cleanup's waits for a tree to go) sleep this
# long between checks instead of their defaults (readiness without backing
# off). Jobs leave it unset; `sweepgate preflight` sets it, as its stand-ins
# start, answer and stop in milliseconds.
_SG_POLL_S=""
if [[ "${SWEEPGATE_POLL_S:-}" =~ ^[0-9]*\.?[0-9]+$ &&
  "${SWEEPGATE_POLL_S}" =~ [1-9] ]]; then
  _SG_POLL_S="${SWEEPGATE_POLL_S}"
fi
