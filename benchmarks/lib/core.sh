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
