#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# starting background processes, the one cleanup registry and its handler,
# and stopping process trees.

# The one cleanup registry (register_cleanup_pid). _SG_CLEANUP_SESSION[i] is
# 1 when the process leads a session of its own (started by _sg_spawn).
_SG_CLEANUP_PIDS=()
_SG_CLEANUP_LABELS=()
_SG_CLEANUP_GRACE=()
_SG_CLEANUP_SESSION=()
_SG_CLEANUP_INSTALLED=0
# Grace of a registration that names none, and of stop_background_process_tree.
_SG_CLEANUP_DEFAULT_GRACE=20
# The handler's one shared grace is the longest registered grace, capped here
# (SWEEPGATE_CLEANUP_GRACE overrides), then at most _SG_KILL_WAIT_MS for KILL:
# 20 s + 2 s stays inside Slurm's 30 s and the 25 s budget of the issue.
_SG_KILL_WAIT_MS=2000
# While sending TERM most recent first, each tree gets up to this long to go
# before the next one is signalled, so that well-behaved trees stop in order.
_SG_TERM_TURN_MS=2000

#######################################
# Stop a process and every process that descends from it.
# Sends TERM to PID, its descendants and, when PID leads a session of its own
# (every process start_background_process starts does), every process left in
# that session, even after PID itself has died. Waits up to GRACE_SECONDS,
# sends KILL to whatever is left, and reaps PID when it is a child of this
# shell.
# Arguments:
#   PID, optional LABEL, optional GRACE_SECONDS (default 20).
# Returns:
#   0, always.
#######################################
stop_background_process_tree() {
  _sg_guarded _sg_stop_tree "$@"
  return 0
}

_sg_stop_tree() {
  local root="${1:-}" label="${2:-background process}"
  local grace="${3:-${_SG_CLEANUP_DEFAULT_GRACE}}" session=0 i
  if ! _sg_is_posint "${root}"; then
    _sg_err "stop_background_process_tree: '${root}' is not a PID;" \
      "nothing to stop"
    return 0
  fi
  _sg_is_uint "${grace}" || grace="${_SG_CLEANUP_DEFAULT_GRACE}"
  for i in "${!_SG_CLEANUP_PIDS[@]}"; do
    [[ "${_SG_CLEANUP_PIDS[i]}" == "${root}" ]] &&
      session="${_SG_CLEANUP_SESSION[i]}"
  done
  _sg_leads_own_session "${root}" && session=1
  _sg_stop_trees "${grace}" "${root}" "${session}" "${label}"
}

#######################################
# Stop several trees against one shared deadline: TERM to each tree in the
# order given (each gets a short turn to go before the next is signalled),
# then one wait until GRACE has passed since the first TERM, then KILL to
# whatever is left of any of them.
# Arguments:
#   GRACE_SECONDS, then PID SESSION(0|1) LABEL for each tree.
# Returns:
#   0
#######################################
_sg_stop_trees() {
  local grace="$1" i deadline turn
  local -a roots=() sessions=() labels=() members=()
  shift
  while (($# >= 3)); do
    roots+=("$1") sessions+=("$2") labels+=("$3")
    shift 3
  done
  _sg_clock
  deadline=$((_SG_NOW_MS + grace * 1000))
  for i in "${!roots[@]}"; do
    members[i]="$(_sg_tree_members "${roots[i]}" "${sessions[i]}")"
    _sg_term_tree "${roots[i]}" "${sessions[i]}" "${labels[i]}" \
      "${members[i]}" || continue
    _sg_clock
    turn=$((_SG_NOW_MS + _SG_TERM_TURN_MS))
    ((turn < deadline)) || turn="${deadline}"
    _sg_wait_trees "${turn}" "${roots[i]}" "${sessions[i]}" "${members[i]}"
  done
  _sg_wait_all_trees "${deadline}"
  _sg_kill_left
  for i in "${!roots[@]}"; do
    wait "${roots[i]}" 2>/dev/null
    [[ -n "${members[i]}" ]] && echo "Stopped ${labels[i]}."
  done
  return 0
}

# TERM one tree: ROOT SESSION LABEL MEMBERS (newline-separated, may be
# empty). Returns 1 when there was nothing to signal.
_sg_term_tree() {
  local root="$1" session="$2" label="$3" count
  local -a pids=()
  mapfile -t pids <<<"$4"
  [[ -n "${pids[0]:-}" ]] || return 1
  count="${#pids[@]}"
  if _sg_is_running "${root}"; then
    echo "Stopping ${label} (PID ${root}, $((count - 1)) descendants)"
  else
    echo "Stopping ${label} (PID ${root} has exited; ${count} processes" \
      "left in its tree)"
  fi
  [[ "${session}" == 1 ]] && kill -TERM -- "-${root}" 2>/dev/null
  kill -TERM "${pids[@]}" 2>/dev/null
  return 0
}

# Wait until DEADLINE_MS for one tree (ROOT SESSION MEMBERS) to be gone.
_sg_wait_trees() {
  local deadline="$1"
  until _sg_tree_gone "$2" "$3" "$4"; do
    _sg_clock
    ((_SG_NOW_MS < deadline)) || return 0
    sleep "${_SG_POLL_S:-0.1}"
  done
}

# Wait until DEADLINE_MS for every tree of _sg_stop_trees to be gone.
# Reads the caller's roots, sessions and members.
_sg_wait_all_trees() {
  local deadline="$1" i busy
  while :; do
    busy=0
    for i in "${!roots[@]}"; do
      _sg_tree_gone "${roots[i]}" "${sessions[i]}" "${members[i]}" ||
        busy=1
    done
    ((busy)) || return 0
    _sg_clock
    ((_SG_NOW_MS < deadline)) || return 0
    sleep "${_SG_POLL_S:-0.1}"
  done
}

# True when nothing of the tree ROOT SESSION MEMBERS is running.
_sg_tree_gone() {
  local -a pids=()
  mapfile -t pids <<<"$3"
  _sg_any_running "${pids[@]}" && return 1
  [[ "$2" != 1 || -z "$(_sg_session_members "$1")" ]]
}

# KILL what is left of the caller's trees (with whatever they spawned while
# we waited), then give the kernel up to _SG_KILL_WAIT_MS to take them.
_sg_kill_left() {
  local i pid deadline
  local -a left=() tree=() pids=()
  for i in "${!roots[@]}"; do
    mapfile -t pids <<<"${members[i]}"
    tree=()
    for pid in "${pids[@]}"; do
      [[ -n "${pid}" ]] || continue
      _sg_is_running "${pid}" || continue
      tree+=("${pid}")
      mapfile -t -O "${#tree[@]}" tree < <(_sg_descendants "${pid}")
    done
    [[ "${sessions[i]}" == 1 ]] &&
      mapfile -t -O "${#tree[@]}" tree < <(_sg_session_members "${roots[i]}")
    ((${#tree[@]} > 0)) || continue
    echo "Force-stopping ${labels[i]}: PIDs ${tree[*]}"
    [[ "${sessions[i]}" == 1 ]] && kill -KILL -- "-${roots[i]}" 2>/dev/null
    kill -KILL "${tree[@]}" 2>/dev/null
    left+=("${tree[@]}")
  done
  ((${#left[@]} > 0)) || return 0
  _sg_clock
  deadline=$((_SG_NOW_MS + _SG_KILL_WAIT_MS))
  while _sg_any_running "${left[@]}"; do
    _sg_clock
    ((_SG_NOW_MS < deadline)) || break
    sleep 0.05
  done
}

#######################################
# Add PID to the one cleanup list. The first call installs the single
# EXIT/INT/TERM handler; when the script ends for any reason it stops every
# registered tree, most recent first, and keeps the script's exit status
# (INT gives 130, TERM gives 143).
# Globals:
#   _SG_CLEANUP_* (appended)
# Arguments:
#   PID, LABEL, optional GRACE_SECONDS (default 20).
# Returns:
#   0; 1 when PID is not a PID.
#######################################
register_cleanup_pid() {
  _sg_guarded _sg_register_cleanup_pid "${1:-}" "${2:-}" "${3:-}"
}

# PID LABEL [GRACE] [SESSION (1: PID leads its own session)]
_sg_register_cleanup_pid() {
  local pid="${1:-}" label="${2:-background process}"
  local grace="${3:-${_SG_CLEANUP_DEFAULT_GRACE}}" session="${4:-0}"
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
  _SG_CLEANUP_SESSION+=("${session}")
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

# Stop every registered tree, most recent first, against one shared
# deadline: the longest registered grace, at most SWEEPGATE_CLEANUP_GRACE
# (default 20 s). Runs at most once.
_sg_run_cleanup() {
  local i grace=0 cap="${SWEEPGATE_CLEANUP_GRACE:-20}"
  local -a trees=()
  _sg_is_uint "${cap}" || cap=20
  for ((i = ${#_SG_CLEANUP_PIDS[@]} - 1; i >= 0; i--)); do
    [[ -n "${_SG_CLEANUP_PIDS[i]}" ]] || continue
    trees+=("${_SG_CLEANUP_PIDS[i]}" "${_SG_CLEANUP_SESSION[i]}"
      "${_SG_CLEANUP_LABELS[i]}")
    ((_SG_CLEANUP_GRACE[i] > grace)) && grace="${_SG_CLEANUP_GRACE[i]}"
    _SG_CLEANUP_PIDS[i]=""
  done
  ((grace < cap)) || grace="${cap}"
  ((${#trees[@]} > 0)) || return 0
  _sg_stop_trees "${grace}" "${trees[@]}"
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
    set -- "${SERVER_STANDIN}" "$@"
  fi
  _sg_spawn "${log}" "$@"
  BACKGROUND_PID="${_SG_SPAWN_PID}"
  echo "${label}: PID ${BACKGROUND_PID}, log ${log}"
  _sg_register_cleanup_pid "${BACKGROUND_PID}" "${label}" "${grace}" \
    "${_SG_SPAWN_SESSION}"
}

#######################################
# Start ARGV in the background in a session (and process group) of its own,
# so that its whole tree can be found and stopped even after its root dies.
# Without setsid on PATH it starts in this shell's group and says so.
# Globals:
#   _SG_SPAWN_PID (set), _SG_SPAWN_SESSION (set: 1 with a session, else 0)
# Arguments:
#   LOG (empty: inherit stdout and stderr), ARGV...
#######################################
_sg_spawn() {
  local log="$1" monitor=0
  local -a launch=()
  shift
  _SG_SPAWN_SESSION=0
  if command -v setsid >/dev/null 2>&1; then
    # setsid only forks (and so hides the PID) when the child leads a
    # process group, as it does under job control; keep job control off.
    [[ "$-" == *m* ]] && monitor=1 && set +m
    launch=(setsid)
    _SG_SPAWN_SESSION=1
  else
    _sg_err "note: setsid is not on PATH; $1 runs in this shell's group"
  fi
  if [[ -n "${log}" ]]; then
    "${launch[@]}" "$@" >"${log}" 2>&1 &
  else
    "${launch[@]}" "$@" &
  fi
  _SG_SPAWN_PID=$!
  ((monitor)) && set -m
  return 0
}
