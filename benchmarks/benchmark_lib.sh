#!/usr/bin/env bash
#
# Shared helpers for the benchmark scripts under benchmarks/single_node/.
#
# Source it; do not run it:
#   source "$(dirname "${BASH_SOURCE[0]}")/../../benchmark_lib.sh"
#
# Contract (CONTRACTS.md section 5):
#   * Every public function leaves the caller's `set -e`, `set -u` and `set -x`
#     exactly as it found them. Internally they run with all three off and
#     restore the caller's flags from `$-` before returning. (`$(set +o)` is not
#     used: bash clears errexit inside command substitutions, so it would
#     report -e as off and "restore" the caller into a shell without -e.)
#   * No function calls `exit`, except the one cleanup handler that
#     register_cleanup_pid installs for EXIT, INT and TERM.
#   * Commands are bash argv arrays. Nothing is passed to `eval`.
#
# Public functions:
#   wait_for_ready, wait_for_server_ready, stop_background_process_tree,
#   register_cleanup_pid, unregister_cleanup_pid, check_env_vars,
#   write_command, append_command, start_background_process,
#   start_gpu_monitor, stop_gpu_monitor, prepare_model_path,
#   require_agentic_kv_offload_none, require_agentic_kv_offload_backend,
#   kv_offload_arm_name, setup_kv_offload_arm, require_no_evals,
#   run_benchmark_serving, run_agentic_trace_replay.

# Identical prefixes must hash to identical block keys in every arm and every
# run, whatever the KV-offload backend. Set once here so no script can forget.
export PYTHONHASHSEED="${PYTHONHASHSEED:-0}"

# Keep bytecode out of the mounted workspace (root-owned caches break checkout
# cleanup on self-hosted runners).
export PYTHONDONTWRITEBYTECODE=1

# Inference server port. Launchers that share a host set PORT before sourcing.
export PORT="${PORT:-8888}"

SWEEPGATE_BENCHMARK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly SWEEPGATE_BENCHMARK_DIR

# Outputs of functions that cannot return a value on stdout without forking.
BACKGROUND_PID=""
GPU_MONITOR_PID=""
KV_OFFLOAD_SERVER_ARGS=()

# The one cleanup registry (register_cleanup_pid).
_SG_CLEANUP_PIDS=()
_SG_CLEANUP_LABELS=()
_SG_CLEANUP_GRACE=()
_SG_CLEANUP_INSTALLED=0
_SG_CLEANUP_DEFAULT_GRACE=30

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

_sg_err() {
  printf '%s\n' "$*" >&2
}

_sg_is_uint() {
  [[ "${1:-}" =~ ^[0-9]+$ ]]
}

_sg_is_posint() {
  [[ "${1:-}" =~ ^[1-9][0-9]*$ ]]
}

# ---------------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------------

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

_sg_any_running() {
  local pid
  for pid in "$@"; do
    _sg_is_running "${pid}" && return 0
  done
  return 1
}

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
    _sg_err "stop_background_process_tree: '${root}' is not a PID; nothing to stop"
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
    _sg_err "register_cleanup_pid: grace '${grace}' is not a whole number of seconds"
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
    _sg_stop_tree "${pid}" "${_SG_CLEANUP_LABELS[i]}" "${_SG_CLEANUP_GRACE[i]}"
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
# executable (set by `sweepgate rehearse`), it runs as `$SERVER_STANDIN ARGV...`
# in place of ARGV; the real command is still built, printed and recorded.
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
  while (($# > 0)); do
    case "$1" in
      --label) label="${2:-}"; shift 2 || return 1 ;;
      --log) log="${2:-}"; shift 2 || return 1 ;;
      --command-file) command_file="${2:-}"; shift 2 || return 1 ;;
      --grace) grace="${2:-}"; shift 2 || return 1 ;;
      --) shift; break ;;
      *) _sg_err "start_background_process: unknown option '$1'"; return 1 ;;
    esac
  done
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
    # Rehearsal: the real command above is built and recorded; a stand-in runs it.
    echo "${label}: SERVER_STANDIN=${SERVER_STANDIN} runs in its place"
    "${SERVER_STANDIN}" "$@" >"${log}" 2>&1 &
  else
    "$@" >"${log}" 2>&1 &
  fi
  BACKGROUND_PID=$!
  echo "${label}: PID ${BACKGROUND_PID}, log ${log}"
  _sg_register_cleanup_pid "${BACKGROUND_PID}" "${label}" ${grace:+"${grace}"}
}

# ---------------------------------------------------------------------------
# Readiness
# ---------------------------------------------------------------------------

# True when URL answers 2xx.
_sg_http_ok() {
  local url="$1" code
  if command -v curl >/dev/null 2>&1; then
    code="$(curl --silent --output /dev/null --max-time 5 --noproxy '*' \
      --write-out '%{http_code}' -- "${url}" 2>/dev/null)"
  else
    code="$(python3 - "${url}" 2>/dev/null <<'PY'
import sys, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
try:
    with opener.open(sys.argv[1], timeout=5) as resp:
        print(resp.status)
except Exception as exc:  # HTTPError carries a code; anything else is "no"
    print(getattr(exc, "code", 0))
PY
)"
  fi
  [[ "${code}" =~ ^2[0-9][0-9]$ ]]
}

# Print what LOG gained since byte OFFSET; echo nothing else. Sets _SG_LOG_POS.
_sg_follow_log() {
  local log="$1" size
  [[ -n "${log}" && -f "${log}" ]] || return 0
  size="$(wc -c <"${log}" 2>/dev/null)" || return 0
  size="${size//[[:space:]]/}"
  if ((size > _SG_LOG_POS)); then
    tail -c "+$((_SG_LOG_POS + 1))" "${log}" 2>/dev/null | head -c "$((size - _SG_LOG_POS))"
    _SG_LOG_POS="${size}"
  fi
  return 0
}

#######################################
# Poll URL until it answers 2xx, while PID lives, streaming PID's log.
# Arguments:
#   --endpoint URL --pid PID [--log FILE] [--timeout SECONDS (0: no limit)]
#   [--sleep-interval SECONDS (max poll interval, default 5)]
# Returns:
#   0 when ready; 1 when PID died, the timeout passed, or on bad arguments.
#######################################
wait_for_ready() {
  _sg_guarded _sg_wait_for_ready "$@"
}

_sg_wait_for_ready() {
  local endpoint="" pid="" log="" timeout=0 interval=5 delay=0.2 deadline=0
  _SG_LOG_POS=0
  while (($# > 0)); do
    case "$1" in
      --endpoint) endpoint="${2:-}"; shift 2 || return 1 ;;
      --pid) pid="${2:-}"; shift 2 || return 1 ;;
      --log) log="${2:-}"; shift 2 || return 1 ;;
      --timeout) timeout="${2:-}"; shift 2 || return 1 ;;
      --sleep-interval) interval="${2:-}"; shift 2 || return 1 ;;
      *) _sg_err "wait_for_ready: unknown option '$1'"; return 1 ;;
    esac
  done
  if [[ -z "${endpoint}" ]]; then
    _sg_err "wait_for_ready: --endpoint is required"
    return 1
  fi
  if ! _sg_is_posint "${pid}"; then
    _sg_err "wait_for_ready: --pid must be a PID, got '${pid}'"
    return 1
  fi
  if ! _sg_is_uint "${timeout}"; then
    _sg_err "wait_for_ready: --timeout must be whole seconds, got '${timeout}'"
    return 1
  fi
  if [[ ! "${interval}" =~ ^[0-9]+([.][0-9]+)?$ || "${interval}" =~ ^[0.]+$ ]]; then
    _sg_err "wait_for_ready: --sleep-interval must be a positive number, got '${interval}'"
    return 1
  fi
  ((timeout > 0)) && deadline=$((SECONDS + timeout))
  echo "Waiting for ${endpoint} (PID ${pid}, timeout ${timeout}s)"
  while true; do
    _sg_follow_log "${log}"
    if ! _sg_is_running "${pid}"; then
      _sg_follow_log "${log}"
      _sg_err "wait_for_ready: PID ${pid} died before ${endpoint} became ready"
      return 1
    fi
    if _sg_http_ok "${endpoint}"; then
      _sg_follow_log "${log}"
      echo "Ready: ${endpoint}"
      return 0
    fi
    if ((deadline > 0 && SECONDS >= deadline)); then
      _sg_err "wait_for_ready: timed out after ${timeout}s waiting for ${endpoint}"
      return 1
    fi
    sleep "${delay}"
    # Back off from 0.2 s to the sleep interval: quick servers are seen
    # quickly, slow model loads are not hammered.
    delay="$(awk -v d="${delay}" -v m="${interval}" \
      'BEGIN { d *= 2; if (d > m) d = m; print d }')"
  done
}

#######################################
# wait_for_ready for http://127.0.0.1:PORT/health.
# Arguments:
#   --port PORT --server-log FILE --server-pid PID [--timeout SECONDS]
#   [--sleep-interval SECONDS]
# Returns:
#   As wait_for_ready.
#######################################
wait_for_server_ready() {
  _sg_guarded _sg_wait_for_server_ready "$@"
}

_sg_wait_for_server_ready() {
  local port="" server_log="" server_pid="" timeout=0 interval=5
  while (($# > 0)); do
    case "$1" in
      --port) port="${2:-}"; shift 2 || return 1 ;;
      --server-log) server_log="${2:-}"; shift 2 || return 1 ;;
      --server-pid) server_pid="${2:-}"; shift 2 || return 1 ;;
      --timeout) timeout="${2:-}"; shift 2 || return 1 ;;
      --sleep-interval) interval="${2:-}"; shift 2 || return 1 ;;
      *) _sg_err "wait_for_server_ready: unknown option '$1'"; return 1 ;;
    esac
  done
  if ! _sg_is_posint "${port}" || [[ -z "${server_log}" || -z "${server_pid}" ]]; then
    _sg_err "wait_for_server_ready: --port, --server-log and --server-pid are required"
    return 1
  fi
  _sg_wait_for_ready --endpoint "http://127.0.0.1:${port}/health" \
    --pid "${server_pid}" --log "${server_log}" --timeout "${timeout}" \
    --sleep-interval "${interval}"
}

#######################################
# The inference server's lifecycle in one call: start ARGV in the background as
# "vLLM server" (log RESULT_DIR/server.log, command RESULT_DIR/server_command.txt,
# registered for cleanup), then wait for http://127.0.0.1:PORT/health.
# Globals:
#   RESULT_DIR, PORT, SERVER_READY_TIMEOUT (read)
#   SERVER_LOG, SERVER_PID (set)
# Arguments:
#   The server ARGV.
# Returns:
#   0 once the server answers; 1 if it failed to start, died or timed out.
#######################################
start_server_and_wait() {
  _sg_guarded _sg_start_server_and_wait "$@"
}

_sg_start_server_and_wait() {
  SERVER_LOG="${RESULT_DIR}/server.log"
  SERVER_PID=""
  _sg_start_background_process --label "vLLM server" --log "${SERVER_LOG}" \
    --command-file "${RESULT_DIR}/server_command.txt" -- "$@" || return 1
  SERVER_PID="${BACKGROUND_PID}"
  _sg_wait_for_server_ready --port "${PORT}" --server-log "${SERVER_LOG}" \
    --server-pid "${SERVER_PID}" --timeout "${SERVER_READY_TIMEOUT:-0}"
}

#######################################
# `vllm serve` parallelism flags for the row: attention data-parallel with
# expert parallelism when DP_ATTENTION=true, else tensor parallel (plus
# expert parallel when EP_SIZE > 1).
# Globals:
#   TP, EP_SIZE, DP_ATTENTION (read); VLLM_PARALLEL_ARGS (set)
# Returns:
#   0; 1 when TP is not a positive integer.
#######################################
vllm_parallel_args() {
  _sg_guarded _sg_vllm_parallel_args
}

_sg_vllm_parallel_args() {
  VLLM_PARALLEL_ARGS=()
  if ! _sg_is_posint "${TP:-}"; then
    _sg_err "vllm_parallel_args: TP must be a positive integer, got '${TP:-}'"
    return 1
  fi
  if [[ "${DP_ATTENTION:-false}" == "true" ]]; then
    VLLM_PARALLEL_ARGS=(--data-parallel-size "${TP}" --tensor-parallel-size 1
      --enable-expert-parallel)
  else
    VLLM_PARALLEL_ARGS=(--tensor-parallel-size "${TP}")
    if [[ "${EP_SIZE:-1}" != "1" ]]; then
      VLLM_PARALLEL_ARGS+=(--enable-expert-parallel)
    fi
  fi
}

# ---------------------------------------------------------------------------
# Environment and command records
# ---------------------------------------------------------------------------

#######################################
# Check that every named variable is set and non-empty.
# Arguments:
#   Variable names.
# Returns:
#   0 when all are present; 1, naming every missing one, otherwise.
#######################################
check_env_vars() {
  _sg_guarded _sg_check_env_vars "$@"
}

_sg_check_env_vars() {
  local name
  local -a missing=()
  for name in "$@"; do
    if [[ ! "${name}" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
      missing+=("${name} (not a variable name)")
    elif [[ -z "${!name:-}" ]]; then
      missing+=("${name}")
    fi
  done
  if ((${#missing[@]} > 0)); then
    _sg_err "Error: required environment variables are not set: ${missing[*]}"
    for name in "${missing[@]}"; do
      _sg_err "  - ${name}"
    done
    return 1
  fi
  return 0
}

# MODE (">" or ">>") FILE ARGV...: one line, each word quoted with printf %q.
_sg_record_command() {
  local mode="$1" file="$2" line
  shift 2
  if (($# == 0)); then
    _sg_err "write_command/append_command: no command to record"
    return 1
  fi
  line="$(printf '%q ' "$@")"
  line="${line% }"
  mkdir -p "$(dirname "${file}")" || return 1
  if [[ "${mode}" == ">" ]]; then
    printf '%s\n' "${line}" >"${file}" || return 1
  else
    printf '%s\n' "${line}" >>"${file}" || return 1
  fi
}

#######################################
# Record ARGV in FILE (replacing it) so it can be replayed; each word is
# quoted with printf %q.
# Arguments:
#   FILE, ARGV...
# Returns:
#   0, or 1 when there is nothing to record or FILE is not writable.
#######################################
write_command() {
  _sg_guarded _sg_record_command ">" "$@"
}

#######################################
# As write_command, appending a line to FILE.
#######################################
append_command() {
  _sg_guarded _sg_record_command ">>" "$@"
}

#######################################
# Resolve MODEL_PATH: a non-empty local directory is used as is; otherwise
# MODEL is downloaded into the HF cache and MODEL_PATH becomes MODEL.
# Globals:
#   MODEL (read), MODEL_PATH (set and exported)
# Returns:
#   0, or 1 when the download fails.
#######################################
prepare_model_path() {
  _sg_guarded _sg_prepare_model_path
}

_sg_prepare_model_path() {
  if [[ -z "${MODEL:-}" ]]; then
    _sg_err "prepare_model_path: MODEL is not set"
    return 1
  fi
  if [[ -n "${MODEL_PATH:-}" && -d "${MODEL_PATH}" ]] &&
    [[ -n "$(ls -A "${MODEL_PATH}" 2>/dev/null)" ]]; then
    echo "Using local model directory ${MODEL_PATH}"
    return 0
  fi
  if [[ -n "${MODEL_PATH:-}" ]]; then
    hf download "${MODEL}" --local-dir "${MODEL_PATH}" || return 1
  else
    hf download "${MODEL}" || return 1
    MODEL_PATH="${MODEL}"
  fi
  export MODEL_PATH
}

#######################################
# Fail clearly when a row asks for evals: lm-eval is not wired into these
# scripts, and a silently skipped eval would look like a passed one.
# Globals:
#   RUN_EVAL, EVAL_ONLY
# Returns:
#   0 when no eval is requested; 1 otherwise.
#######################################
require_no_evals() {
  _sg_guarded _sg_require_no_evals
}

_sg_require_no_evals() {
  if [[ "${RUN_EVAL:-false}" == "true" || "${EVAL_ONLY:-false}" == "true" ]]; then
    _sg_err "Error: this row requests evals (RUN_EVAL=${RUN_EVAL:-}, EVAL_ONLY=${EVAL_ONLY:-}), but evals are not wired into ${0##*/}; run it without evals or add an eval step"
    return 1
  fi
  return 0
}

# ---------------------------------------------------------------------------
# GPU monitor
# ---------------------------------------------------------------------------

readonly _SG_NVIDIA_QUERY="timestamp,index,power.draw,temperature.gpu,clocks.current.sm,clocks.current.memory,utilization.gpu,utilization.memory"

#######################################
# Sample GPU metrics to a CSV in the background with nvidia-smi or amd-smi.
# Without either tool it says so and returns 0.
# Globals:
#   GPU_MONITOR_PID (set; empty when no tool)
# Arguments:
#   [--output FILE (default gpu_metrics.csv)] [--interval SECONDS (default 1)]
# Returns:
#   0, or 1 on bad arguments.
#######################################
start_gpu_monitor() {
  _sg_guarded _sg_start_gpu_monitor "$@"
}

_sg_start_gpu_monitor() {
  local output="gpu_metrics.csv" interval=1
  local -a cmd=()
  while (($# > 0)); do
    case "$1" in
      --output) output="${2:-}"; shift 2 || return 1 ;;
      --interval) interval="${2:-}"; shift 2 || return 1 ;;
      *) _sg_err "start_gpu_monitor: unknown option '$1'"; return 1 ;;
    esac
  done
  _sg_is_posint "${interval}" || { _sg_err "start_gpu_monitor: bad --interval '${interval}'"; return 1; }
  GPU_MONITOR_PID=""
  if command -v nvidia-smi >/dev/null 2>&1; then
    cmd=(nvidia-smi "--query-gpu=${_SG_NVIDIA_QUERY}" --format=csv -l "${interval}")
  elif command -v amd-smi >/dev/null 2>&1; then
    cmd=(amd-smi metric -p -c -t -u -w "${interval}" --csv)
  else
    echo "[GPU monitor] neither nvidia-smi nor amd-smi is on PATH; not sampling"
    return 0
  fi
  mkdir -p "$(dirname "${output}")" || return 1
  "${cmd[@]}" >"${output}" 2>/dev/null &
  GPU_MONITOR_PID=$!
  _sg_register_cleanup_pid "${GPU_MONITOR_PID}" "GPU monitor" 5
  echo "[GPU monitor] ${cmd[0]} PID ${GPU_MONITOR_PID} -> ${output}"
}

#######################################
# Stop the monitor that start_gpu_monitor started, if any.
# Globals:
#   GPU_MONITOR_PID (cleared)
# Returns:
#   0
#######################################
stop_gpu_monitor() {
  _sg_guarded _sg_stop_gpu_monitor
  return 0
}

_sg_stop_gpu_monitor() {
  [[ -n "${GPU_MONITOR_PID}" ]] || return 0
  _sg_stop_tree "${GPU_MONITOR_PID}" "GPU monitor" 5
  _sg_unregister_cleanup_pid "${GPU_MONITOR_PID}"
  GPU_MONITOR_PID=""
}

# ---------------------------------------------------------------------------
# Benchmark clients
# ---------------------------------------------------------------------------

# Run argv in the background, stopping it if SERVER_PID dies. Registered for
# cleanup while it runs. Arguments: SERVER_PID (may be empty) LABEL -- ARGV...
_sg_run_client() {
  local server_pid="$1" label="$2" client_pid rc=0
  shift 3
  "$@" &
  client_pid=$!
  _sg_register_cleanup_pid "${client_pid}" "${label}" 10
  while _sg_is_running "${client_pid}"; do
    if [[ -n "${server_pid}" ]] && ! _sg_is_running "${server_pid}"; then
      _sg_err "Error: server PID ${server_pid} died while ${label} was running"
      _sg_stop_tree "${client_pid}" "${label}" 10
      _sg_unregister_cleanup_pid "${client_pid}"
      return 1
    fi
    sleep 0.5
  done
  wait "${client_pid}" || rc=$?
  _sg_unregister_cleanup_pid "${client_pid}"
  if ((rc != 0)); then
    _sg_err "Error: ${label} failed with status ${rc}"
  fi
  return "${rc}"
}

#######################################
# Fixed-sequence-length serving benchmark (random prompts), written to
# RESULT_DIR/RESULT_FILENAME.json. The client is `vllm bench serve`, or
# `python3 $BENCH_SERVING_SCRIPT` (a benchmark_serving.py) when that is set.
# Arguments:
#   --model M --port P --input-len N --output-len N --max-concurrency N
#   --result-dir D --result-filename F [--num-prompts N (default 10x conc)]
#   [--random-range-ratio R (default 0.8)] [--backend B (default vllm)]
#   [--endpoint PATH] [--server-pid PID] [--tokenizer T] [--trust-remote-code]
#   [--use-chat-template]
# Returns:
#   The client's status; 1 on bad arguments or when the server dies.
#######################################
run_benchmark_serving() {
  _sg_guarded _sg_run_benchmark_serving "$@"
}

_sg_run_benchmark_serving() {
  local model="" port="" input_len="" output_len="" conc="" result_dir=""
  local result_filename="" num_prompts="" ratio=0.8 backend=vllm endpoint=""
  local server_pid="" tokenizer="" trust=false chat=false name
  local -a cmd=()
  while (($# > 0)); do
    case "$1" in
      --model) model="${2:-}"; shift 2 || return 1 ;;
      --port) port="${2:-}"; shift 2 || return 1 ;;
      --input-len) input_len="${2:-}"; shift 2 || return 1 ;;
      --output-len) output_len="${2:-}"; shift 2 || return 1 ;;
      --max-concurrency) conc="${2:-}"; shift 2 || return 1 ;;
      --num-prompts) num_prompts="${2:-}"; shift 2 || return 1 ;;
      --random-range-ratio) ratio="${2:-}"; shift 2 || return 1 ;;
      --result-dir) result_dir="${2:-}"; shift 2 || return 1 ;;
      --result-filename) result_filename="${2:-}"; shift 2 || return 1 ;;
      --backend) backend="${2:-}"; shift 2 || return 1 ;;
      --endpoint) endpoint="${2:-}"; shift 2 || return 1 ;;
      --server-pid) server_pid="${2:-}"; shift 2 || return 1 ;;
      --tokenizer) tokenizer="${2:-}"; shift 2 || return 1 ;;
      --trust-remote-code) trust=true; shift ;;
      --use-chat-template) chat=true; shift ;;
      *) _sg_err "run_benchmark_serving: unknown option '$1'"; return 1 ;;
    esac
  done
  for name in model port input_len output_len conc result_dir result_filename; do
    if [[ -z "${!name}" ]]; then
      _sg_err "run_benchmark_serving: --${name//_/-} is required"
      return 1
    fi
  done
  _sg_is_posint "${conc}" || { _sg_err "run_benchmark_serving: bad --max-concurrency '${conc}'"; return 1; }
  [[ -n "${num_prompts}" ]] || num_prompts=$((conc * 10))
  if [[ -n "${BENCH_SERVING_SCRIPT:-}" ]]; then
    cmd=(python3 "${BENCH_SERVING_SCRIPT}")
  else
    cmd=(vllm bench serve)
  fi
  cmd+=(
    --backend "${backend}"
    --model "${model}"
    --base-url "http://127.0.0.1:${port}"
    --dataset-name random
    --random-input-len "${input_len}"
    --random-output-len "${output_len}"
    --random-range-ratio "${ratio}"
    --num-prompts "${num_prompts}"
    --max-concurrency "${conc}"
    --request-rate inf
    --ignore-eos
    --seed 0
    --num-warmups "$((2 * conc))"
    --percentile-metrics "ttft,tpot,itl,e2el"
    --save-result
    --result-dir "${result_dir}"
    --result-filename "${result_filename}.json"
  )
  [[ -n "${endpoint}" ]] && cmd+=(--endpoint "${endpoint}")
  [[ -n "${tokenizer}" ]] && cmd+=(--tokenizer "${tokenizer}")
  [[ "${trust}" == true ]] && cmd+=(--trust-remote-code)
  [[ "${chat}" == true ]] && cmd+=(--use-chat-template)
  mkdir -p "${result_dir}" || return 1
  _sg_record_command ">>" "${result_dir}/client_command.txt" "${cmd[@]}" || return 1
  _sg_run_client "${server_pid}" "benchmark client" -- "${cmd[@]}" || return $?
  if [[ ! -s "${result_dir}/${result_filename}.json" ]]; then
    _sg_err "Error: the client finished but wrote no ${result_dir}/${result_filename}.json"
    return 1
  fi
}

#######################################
# Agentic trace replay with AIPerf for DURATION seconds at CONC sessions,
# summarized into RESULT_DIR/RESULT_FILENAME.json together with the row's
# identity (EXP_NAME, RECIPE_FINGERPRINT, KV_OFFLOAD_* ...).
# Arguments:
#   --model M --port P --concurrency N --duration S --result-dir D
#   --result-filename F [--server-pid PID] [--tokenizer T]
#   [--trace-file JSONL | --trace-loader NAME]
#   Defaults: AGENTIC_TRACE_FILE, else AGENTIC_TRACE_LOADER, else
#   semianalysis_cc_traces_weka_062126.
# Returns:
#   The client's status; 1 on bad arguments, a dead server or no export.
#######################################
run_agentic_trace_replay() {
  _sg_guarded _sg_run_agentic_trace_replay "$@"
}

_sg_run_agentic_trace_replay() {
  local model="" port="" conc="" duration="" result_dir="" result_filename=""
  local server_pid="" tokenizer="" trace_file="${AGENTIC_TRACE_FILE:-}"
  local trace_loader="${AGENTIC_TRACE_LOADER:-semianalysis_cc_traces_weka_062126}"
  local artifact_dir name
  local -a cmd=()
  while (($# > 0)); do
    case "$1" in
      --model) model="${2:-}"; shift 2 || return 1 ;;
      --port) port="${2:-}"; shift 2 || return 1 ;;
      --concurrency) conc="${2:-}"; shift 2 || return 1 ;;
      --duration) duration="${2:-}"; shift 2 || return 1 ;;
      --result-dir) result_dir="${2:-}"; shift 2 || return 1 ;;
      --result-filename) result_filename="${2:-}"; shift 2 || return 1 ;;
      --server-pid) server_pid="${2:-}"; shift 2 || return 1 ;;
      --tokenizer) tokenizer="${2:-}"; shift 2 || return 1 ;;
      --trace-file) trace_file="${2:-}"; shift 2 || return 1 ;;
      --trace-loader) trace_loader="${2:-}"; shift 2 || return 1 ;;
      *) _sg_err "run_agentic_trace_replay: unknown option '$1'"; return 1 ;;
    esac
  done
  for name in model port conc duration result_dir result_filename; do
    if [[ -z "${!name}" ]]; then
      _sg_err "run_agentic_trace_replay: --${name//_/-} is required"
      return 1
    fi
  done
  _sg_is_posint "${conc}" || { _sg_err "run_agentic_trace_replay: bad --concurrency '${conc}'"; return 1; }
  _sg_is_posint "${duration}" || { _sg_err "run_agentic_trace_replay: bad --duration '${duration}'"; return 1; }
  artifact_dir="${result_dir}/aiperf_${result_filename}"
  cmd=(
    aiperf profile
    --model "${model}"
    --url "http://127.0.0.1:${port}"
    --endpoint-type chat
    --streaming
    --concurrency "${conc}"
    --benchmark-duration "${duration}"
    --random-seed 0
    --artifact-dir "${artifact_dir}"
  )
  if [[ -n "${trace_file}" ]]; then
    if [[ ! -s "${trace_file}" ]]; then
      _sg_err "run_agentic_trace_replay: trace file '${trace_file}' is missing or empty"
      return 1
    fi
    cmd+=(--input-file "${trace_file}" --custom-dataset-type mooncake_trace)
  else
    cmd+=(--public-dataset "${trace_loader}")
  fi
  [[ -n "${tokenizer}" ]] && cmd+=(--tokenizer "${tokenizer}")
  mkdir -p "${artifact_dir}" || return 1
  _sg_record_command ">>" "${result_dir}/client_command.txt" "${cmd[@]}" || return 1
  _sg_run_client "${server_pid}" "agentic replay client" -- "${cmd[@]}" || return $?
  _sg_write_agentic_result "${artifact_dir}/profile_export_aiperf.json" \
    "${result_dir}/${result_filename}.json"
}

# Combine the AIPerf export with the row's identity. Values travel as argv and
# environment, never as code.
_sg_write_agentic_result() {
  local export_file="$1" result_file="$2"
  if [[ ! -s "${export_file}" ]]; then
    _sg_err "Error: the replay client wrote no ${export_file}"
    return 1
  fi
  python3 - "${export_file}" "${result_file}" <<'PY'
import json, os, sys

export_path, result_path = sys.argv[1], sys.argv[2]
with open(export_path, encoding="utf-8") as fh:
    export = json.load(fh)
names = ["EXP_NAME", "RECIPE_FINGERPRINT", "IMAGE", "MODEL", "MODEL_PREFIX",
         "PRECISION", "FRAMEWORK", "TP", "EP_SIZE", "PP_SIZE", "DCP_SIZE",
         "PCP_SIZE", "DP_ATTENTION", "CONC", "SPEC_DECODING", "SCENARIO_TYPE",
         "DURATION", "KV_OFFLOADING", "KV_OFFLOAD_BACKEND",
         "KV_OFFLOAD_BACKEND_VERSION", "TOTAL_CPU_DRAM_GB", "RUNNER_NAME",
         "PYTHONHASHSEED"]
result = {name.lower(): os.environ.get(name, "") for name in names}
result["client"] = "aiperf"
result["aiperf"] = export
tmp = result_path + ".tmp"
with open(tmp, "w", encoding="utf-8") as fh:
    json.dump(result, fh, indent=2, sort_keys=True)
    fh.write("\n")
os.replace(tmp, result_path)
print(f"Wrote {result_path}")
PY
}

# KV-offload arms (setup_kv_offload_arm and the validators).
# shellcheck source=benchmarks/kv_offload_arms.sh
source "${SWEEPGATE_BENCHMARK_DIR}/kv_offload_arms.sh"
