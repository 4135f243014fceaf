#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# reading the process table (liveness, children, descendants).

# True while PID exists and is not a zombie (`kill -0` alone counts zombies).
_sg_is_running() {
  local pid="$1" stat rest state
  kill -0 "${pid}" 2>/dev/null || return 1
  if [[ -r "/proc/${pid}/stat" ]]; then
    read -r stat <"/proc/${pid}/stat" 2>/dev/null || return 1
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
    read -r stat <"${entry}/stat" 2>/dev/null || continue
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
