#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# reading the process table (liveness, children, descendants).

# True while PID exists and is not a zombie (`kill -0` alone counts zombies).
_sg_is_running() {
  local pid="$1" stat rest state
  kill -0 "${pid}" 2>/dev/null || return 1
  if [[ -r "/proc/${pid}/stat" ]]; then
    read -r stat 2>/dev/null <"/proc/${pid}/stat" || return 1
    rest="${stat##*) }"
    state="${rest%% *}"
  else
    state="$(ps -o stat= -p "${pid}" 2>/dev/null)" || return 1
    state="${state# }"
  fi
  [[ -n "${state}" && "${state:0:1}" != "Z" ]]
}

# Print the direct children of PID, one per line.
_sg_children() {
  local parent="$1" entry stat rest ppid
  if command -v pgrep >/dev/null 2>&1; then
    pgrep -P "${parent}" 2>/dev/null
    return 0
  fi
  if command -v ps >/dev/null 2>&1; then
    ps -o pid= --ppid "${parent}" 2>/dev/null | tr -d ' '
    return 0
  fi
  for entry in /proc/[0-9]*; do
    read -r stat 2>/dev/null <"${entry}/stat" || continue
    rest="${stat##*) }"
    read -r _ ppid _ <<<"${rest}"
    [[ "${ppid}" == "${parent}" ]] && printf '%s\n' "${entry#/proc/}"
  done
  return 0
}

# Print every descendant of PID (children first, then their children).
_sg_descendants() {
  local child
  while read -r child; do
    [[ -n "${child}" ]] || continue
    printf '%s\n' "${child}"
    _sg_descendants "${child}"
  done < <(_sg_children "$1")
}

# True when any of the PIDs is running.
_sg_any_running() {
  local pid
  for pid in "$@"; do
    _sg_is_running "${pid}" && return 0
  done
  return 1
}

# Print field N of PID's /proc stat line, counted after the command name
# (0 state, 1 ppid, 2 process group, 3 session). Fails when PID is gone.
_sg_stat_field() {
  local stat rest
  local -a parts=()
  read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
  rest="${stat##*) }"
  read -r -a parts <<<"${rest}"
  [[ -n "${parts[$2]:-}" ]] || return 1
  printf '%s\n' "${parts[$2]}"
}

# Print every live process in session SID, one per line.
_sg_session_members() {
  local sid="$1" entry
  _sg_is_posint "${sid}" || return 0
  if command -v pgrep >/dev/null 2>&1; then
    pgrep -s "${sid}" 2>/dev/null
    return 0
  fi
  for entry in /proc/[0-9]*; do
    [[ "$(_sg_stat_field "${entry#/proc/}" 3)" == "${sid}" ]] &&
      printf '%s\n' "${entry#/proc/}"
  done
  return 0
}

# True when PID leads a session of its own that is not this shell's: a
# process started by _sg_spawn (setsid), whose whole session is its tree.
_sg_leads_own_session() {
  local sid own
  sid="$(_sg_stat_field "$1" 3)" || return 1
  own="$(_sg_stat_field "$$" 3)" || return 1
  [[ "${sid}" == "$1" && "${sid}" != "${own}" ]]
}

# Print the running processes of a tree: ROOT, its descendants and, when
# SESSION is 1, every process left in ROOT's session (orphans included).
_sg_tree_members() {
  local root="$1" session="$2" pid
  {
    _sg_is_running "${root}" && printf '%s\n' "${root}"
    _sg_descendants "${root}"
    [[ "${session}" == 1 ]] && _sg_session_members "${root}"
  } | sort -un | while read -r pid; do
    _sg_is_running "${pid}" && printf '%s\n' "${pid}"
  done
  return 0
}

# Milliseconds on a monotonic-enough clock, into _SG_NOW_MS (no fork).
_sg_clock() {
  if [[ -n "${EPOCHREALTIME:-}" ]]; then
    local t="${EPOCHREALTIME/[.,]/}"
    _SG_NOW_MS=$((10#${t} / 1000))
  else
    _SG_NOW_MS=$((SECONDS * 1000))
  fi
}
