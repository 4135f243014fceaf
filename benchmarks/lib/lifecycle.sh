#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# starting background processes, the one cleanup registry and its handler,
# and stopping process trees.

# The one cleanup registry (register_cleanup_pid).
_SG_CLEANUP_PIDS=()
_SG_CLEANUP_LABELS=()
_SG_CLEANUP_GRACE=()
_SG_CLEANUP_INSTALLED=0
_SG_CLEANUP_DEFAULT_GRACE=30

#######################################
# Stop a process and every process that descends from it.
# Sends TERM to PID and all descendants (collected before the root dies, since
# orphans are re-parented), waits up to GRACE_SECONDS for all of them, sends
# KILL to whatever is left, and reaps PID when it is a child of this shell.
# Arguments:
#   PID, optional LABEL, optional GRACE_SECONDS (default 30).
# Returns:
#   0, always.
#######################################
stop_background_process_tree() {
  _sg_guarded _sg_stop_tree "$@"
  return 0
}

_sg_stop_tree() {
  local root="${1:-}" label="${2:-background process}" grace="${3:-30}"
  local pid deadline
  local -a tree=() left=()
  if ! _sg_is_posint "${root}"; then
    _sg_err "stop_background_process_tree: '${root}' is not a PID;" \
      "nothing to stop"
    return 0
  fi
  _sg_is_uint "${grace}" || grace=30
  if ! _sg_is_running "${root}"; then
    wait "${root}" 2>/dev/null
    return 0
  fi
  mapfile -t tree < <(printf '%s\n' "${root}"; _sg_descendants "${root}")
  echo "Stopping ${label} (PID ${root}, $((${#tree[@]} - 1)) descendants)"
  kill -TERM "${tree[@]}" 2>/dev/null
  deadline=$((SECONDS + grace))
  while _sg_any_running "${tree[@]}" && ((SECONDS < deadline)); do
    sleep 0.1
  done
  # Anything still alive, plus whatever it spawned while we waited.
  for pid in "${tree[@]}"; do
    if _sg_is_running "${pid}"; then
      left+=("${pid}")
      mapfile -t -O "${#left[@]}" left < <(_sg_descendants "${pid}")
    fi
  done
  if ((${#left[@]} > 0)); then
    echo "Force-stopping ${label}: PIDs ${left[*]}"
    kill -KILL "${left[@]}" 2>/dev/null
    # KILL is delivered asynchronously; give the kernel a moment so callers
    # see the tree gone when this returns.
    deadline=$((SECONDS + 5))
    while _sg_any_running "${left[@]}" && ((SECONDS < deadline)); do
      sleep 0.05
    done
  fi
  wait "${root}" 2>/dev/null
  echo "Stopped ${label}."
  return 0
}

#######################################
# Add PID to the one cleanup list. The first call installs the single
# EXIT/INT/TERM handler; when the script ends for any reason it stops every
# registered tree, most recent first, and keeps the script's exit status
# (INT gives 130, TERM gives 143).
# Globals:
#   _SG_CLEANUP_* (appended)
# Arguments:
#   PID, LABEL, optional GRACE_SECONDS (default 30).
# Returns:
#   0; 1 when PID is not a PID.
#######################################
register_cleanup_pid() {
  _sg_guarded _sg_register_cleanup_pid "$@"
}

_sg_register_cleanup_pid() {
  local pid="${1:-}" label="${2:-background process}"
  local grace="${3:-${_SG_CLEANUP_DEFAULT_GRACE}}"
  if ! _sg_is_posint "${pid}"; then
    _sg_err "register_cleanup_pid: '${pid}' is not a PID (label: ${label})"
    return 1
  fi
  if ! _sg_is_uint "${grace}"; then
    _sg_err "register_cleanup_pid: grace '${grace}' is not a whole number" \
      "of seconds"
    return 1
  fi
  _SG_CLEANUP_PIDS+=("${pid}")
  _SG_CLEANUP_LABELS+=("${label}")
  _SG_CLEANUP_GRACE+=("${grace}")
  if ((_SG_CLEANUP_INSTALLED == 0)); then
    trap '_sg_cleanup_on_exit "$?"' EXIT
    trap '_sg_cleanup_on_signal 130' INT
    trap '_sg_cleanup_on_signal 143' TERM
    _SG_CLEANUP_INSTALLED=1
  fi
  return 0
}

#######################################
# Forget PID (for example after stopping it yourself), so the handler does not
# signal a PID the kernel may have reused.
# Arguments:
#   PID
# Returns:
#   0
#######################################
unregister_cleanup_pid() {
  _sg_guarded _sg_unregister_cleanup_pid "$@"
}

_sg_unregister_cleanup_pid() {
  local i
  for i in "${!_SG_CLEANUP_PIDS[@]}"; do
    if [[ "${_SG_CLEANUP_PIDS[i]}" == "${1:-}" ]]; then
      _SG_CLEANUP_PIDS[i]=""
    fi
  done
  return 0
}

# Stop every registered tree, most recent first. Runs at most once.
_sg_run_cleanup() {
  local i pid
  for ((i = ${#_SG_CLEANUP_PIDS[@]} - 1; i >= 0; i--)); do
    pid="${_SG_CLEANUP_PIDS[i]}"
    [[ -n "${pid}" ]] || continue
    _SG_CLEANUP_PIDS[i]=""
    _sg_stop_tree "${pid}" "${_SG_CLEANUP_LABELS[i]}" \
      "${_SG_CLEANUP_GRACE[i]}"
  done
}

# The EXIT handler: clean up, keep the script's status.
_sg_cleanup_on_exit() {
  local status="$1"
  set +eu
  trap '' INT TERM
  _sg_run_cleanup
  trap - EXIT INT TERM
  exit "${status}"
}

# The INT/TERM handler: clean up, exit 128+signal.
_sg_cleanup_on_signal() {
  local status="$1"
  set +eu
  trap '' INT TERM
  _sg_err "Received signal; exiting with status ${status} after cleanup."
  _sg_run_cleanup
  trap - EXIT INT TERM
  exit "${status}"
}

#######################################
# Start ARGV in the background with its output in LOG, record the command in
# COMMAND_FILE, and register it for cleanup. When SERVER_STANDIN names an
# executable (set by `sweepgate rehearse`), it runs as `$SERVER_STANDIN
# ARGV...` in place of ARGV; the real command is still built, printed and
# recorded.
# Globals:
#   BACKGROUND_PID (set to the new PID)
#   SERVER_STANDIN (read)
# Arguments:
#   --label L --log FILE [--command-file FILE] [--grace SECONDS] -- ARGV...
# Returns:
#   0 once started; 1 on bad arguments.
#######################################
start_background_process() {
  _sg_guarded _sg_start_background_process "$@"
}

_sg_start_background_process() {
  local label="background process" log="" command_file="" grace=""
  BACKGROUND_PID=""
  _sg_parse_opts start_background_process "--label=label --log=log
    --command-file=command_file --grace=grace --" "$@" || return 1
  shift "${_SG_ARGC}"
  if [[ -z "${log}" ]] || (($# == 0)); then
    _sg_err "start_background_process: need --log FILE and -- ARGV..."
    return 1
  fi
  mkdir -p "$(dirname "${log}")" || return 1
  if [[ -n "${command_file}" ]]; then
    _sg_record_command ">>" "${command_file}" "$@" || return 1
  fi
  printf 'Starting %s:' "${label}"
  printf ' %q' "$@"
  printf '\n'
  if [[ -n "${SERVER_STANDIN:-}" ]]; then
    # Rehearsal: the real command above is built and recorded; a stand-in
    # runs in its place.
    echo "${label}: SERVER_STANDIN=${SERVER_STANDIN} runs in its place"
    "${SERVER_STANDIN}" "$@" >"${log}" 2>&1 &
  else
    "$@" >"${log}" 2>&1 &
  fi
  BACKGROUND_PID=$!
  echo "${label}: PID ${BACKGROUND_PID}, log ${log}"
  _sg_register_cleanup_pid "${BACKGROUND_PID}" "${label}" ${grace:+"${grace}"}
}
