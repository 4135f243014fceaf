#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# waiting for a server to answer, and the inference server's start-and-wait.

# Readiness timeout when none is given: a large model on a cold cache loads in
# tens of minutes, yet a hung load must not hold a GPU node for ever. A config
# whose model needs longer sets SERVER_READY_TIMEOUT in the job environment.
# An explicit --timeout 0 still means no limit (CONTRACTS section 5).
readonly _SG_DEFAULT_READY_TIMEOUT=1800
# Lines of the server log repeated on stderr when readiness fails.
readonly _SG_LOG_TAIL_LINES=40

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

# The log a wait follows, held open across polls so that each poll reads
# only what was appended (the descriptor keeps the offset), with builtins
# only: the line it currently ends in, and a ring of its last complete lines
# (_SG_LOG_LINES of them read so far) for _sg_log_tail.
_SG_LOG_FD=""
_SG_LOG_PART=""
_SG_LOG_LINES=0
_SG_LOG_RING=()

# Forget the followed log, closing its descriptor.
_sg_log_reset() {
  if [[ -n "${_SG_LOG_FD}" ]]; then
    exec {_SG_LOG_FD}<&-
  fi
  _SG_LOG_FD=""
  _SG_LOG_PART=""
  _SG_LOG_LINES=0
  _SG_LOG_RING=()
}

# Print what LOG gained since the last call, and keep its last lines.
_sg_follow_log() {
  local log="$1" line=""
  [[ -n "${log}" ]] || return 0
  if [[ -z "${_SG_LOG_FD}" ]]; then
    [[ -f "${log}" && -r "${log}" ]] || return 0
    { exec {_SG_LOG_FD}<"${log}"; } 2>/dev/null || return 0
  fi
  while IFS= read -r -u "${_SG_LOG_FD}" line; do
    printf '%s\n' "${line}"
    line="${_SG_LOG_PART}${line}"
    _SG_LOG_PART=""
    _SG_LOG_RING[_SG_LOG_LINES % _SG_LOG_TAIL_LINES]="${line}"
    _SG_LOG_LINES=$((_SG_LOG_LINES + 1))
  done
  # An unfinished last line: print it now, complete it on a later poll.
  printf '%s' "${line}"
  _SG_LOG_PART+="${line}"
  return 0
}

#######################################
# Poll URL until it answers 2xx, while PID lives, streaming PID's log.
# Arguments:
#   --endpoint URL --pid PID [--log FILE]
#   [--timeout SECONDS (default 1800; 0: no limit)]
#   [--sleep-interval SECONDS (max poll interval, default 5)]
# Returns:
#   0 when ready; 1 when PID died, the timeout passed, or on bad arguments.
#   On failure the last lines of the log are repeated on stderr.
#######################################
wait_for_ready() {
  _sg_guarded _sg_wait_for_ready "$@"
}

_sg_wait_for_ready() {
  local endpoint="" pid="" log="" interval=5 deadline=0
  local timeout="${_SG_DEFAULT_READY_TIMEOUT}" rc=0
  _sg_parse_opts wait_for_ready "--endpoint=endpoint --pid=pid --log=log
    --timeout=timeout --sleep-interval=interval" "$@" || return 1
  _sg_check_ready_args "${endpoint}" "${pid}" "${timeout}" "${interval}" ||
    return 1
  ((timeout > 0)) && deadline=$((SECONDS + timeout))
  echo "Waiting for ${endpoint} (PID ${pid}, timeout ${timeout}s)"
  _sg_log_reset
  _sg_poll_ready "${endpoint}" "${pid}" "${log}" "${timeout}" \
    "${interval}" "${deadline}" || rc=$?
  _sg_log_reset
  return "${rc}"
}

# Validate wait_for_ready's ENDPOINT PID TIMEOUT INTERVAL.
_sg_check_ready_args() {
  local who=wait_for_ready
  if [[ -z "$1" ]]; then
    _sg_err "${who}: --endpoint is required"
    return 1
  fi
  if ! _sg_is_posint "$2"; then
    _sg_err "${who}: --pid must be a PID, got '$2'"
    return 1
  fi
  if ! _sg_is_uint "$3"; then
    _sg_err "${who}: --timeout must be whole seconds, got '$3'"
    return 1
  fi
  if [[ ! "$4" =~ ^[0-9]+([.][0-9]+)?$ || "$4" =~ ^[0.]+$ ]]; then
    _sg_err "${who}: --sleep-interval must be a positive number, got '$4'"
    return 1
  fi
}

# Set _SG_US to SECONDS (a decimal such as 5 or 0.25) in microseconds, at
# least 1.
_sg_to_us() {
  local whole="${1%%.*}" frac=""
  [[ "$1" == *.* ]] && frac="${1#*.}"
  frac="${frac}000000"
  _SG_US=$((10#${whole:-0} * 1000000 + 10#${frac:0:6}))
  ((_SG_US > 0)) || _SG_US=1
}

# The polling loop of wait_for_ready:
# ENDPOINT PID LOG TIMEOUT INTERVAL DEADLINE (0: none). Apart from the HTTP
# check and `sleep`, it runs builtins only: no process per poll.
_sg_poll_ready() {
  local endpoint="$1" pid="$2" log="$3" timeout="$4" interval="$5"
  local deadline="$6" delay_us max_us pause
  [[ -n "${_SG_POLL_S}" ]] && interval="${_SG_POLL_S}"
  _sg_to_us "${_SG_POLL_S:-0.2}"
  delay_us="${_SG_US}"
  _sg_to_us "${interval}"
  max_us="${_SG_US}"
  while true; do
    _sg_follow_log "${log}"
    if ! _sg_is_running "${pid}"; then
      _sg_follow_log "${log}"
      _sg_err "wait_for_ready: PID ${pid} died before ${endpoint}" \
        "became ready"
      _sg_log_tail "${log}"
      return 1
    fi
    if _sg_http_ok "${endpoint}"; then
      _sg_follow_log "${log}"
      echo "Ready: ${endpoint}"
      return 0
    fi
    if ((deadline > 0 && SECONDS >= deadline)); then
      _sg_follow_log "${log}"
      _sg_err "wait_for_ready: timed out after ${timeout}s waiting for" \
        "${endpoint}"
      _sg_log_tail "${log}"
      return 1
    fi
    printf -v pause '%d.%06d' $((delay_us / 1000000)) \
      $((delay_us % 1000000))
    sleep "${pause}"
    # Back off from 0.2 s to the sleep interval: quick servers are seen
    # quickly, slow model loads are not hammered.
    delay_us=$((delay_us * 2 > max_us ? max_us : delay_us * 2))
  done
}

# Repeat the last _SG_LOG_TAIL_LINES lines of LOG (as _sg_follow_log has
# read it) on stderr, if it has any.
_sg_log_tail() {
  local n="${_SG_LOG_LINES}" keep="${_SG_LOG_TAIL_LINES}" i first
  ((n > 0)) || [[ -n "${_SG_LOG_PART}" ]] || return 0
  [[ -n "${_SG_LOG_PART}" ]] && keep=$((keep - 1))
  first=$((n > keep ? n - keep : 0))
  _sg_err "--- last ${_SG_LOG_TAIL_LINES} lines of $1 ---"
  for ((i = first; i < n; i++)); do
    _sg_err "${_SG_LOG_RING[i % _SG_LOG_TAIL_LINES]}"
  done
  [[ -n "${_SG_LOG_PART}" ]] && _sg_err "${_SG_LOG_PART}"
  _sg_err "--- end of $1 ---"
}

#######################################
# wait_for_ready for http://127.0.0.1:PORT/health.
# Arguments:
#   --port PORT --server-log FILE --server-pid PID
#   [--timeout SECONDS (default 1800; 0: no limit)] [--sleep-interval SECONDS]
# Returns:
#   As wait_for_ready.
#######################################
wait_for_server_ready() {
  _sg_guarded _sg_wait_for_server_ready "$@"
}

_sg_wait_for_server_ready() {
  local port="" server_log="" server_pid="" interval=5
  local timeout="${_SG_DEFAULT_READY_TIMEOUT}"
  _sg_parse_opts wait_for_server_ready "--port=port --server-log=server_log
    --server-pid=server_pid --timeout=timeout --sleep-interval=interval" \
    "$@" || return 1
  if ! _sg_is_posint "${port}" || [[ -z "${server_log}" ||
    -z "${server_pid}" ]]; then
    _sg_err "wait_for_server_ready: --port, --server-log and --server-pid" \
      "are required"
    return 1
  fi
  _sg_wait_for_ready --endpoint "http://127.0.0.1:${port}/health" \
    --pid "${server_pid}" --log "${server_log}" --timeout "${timeout}" \
    --sleep-interval "${interval}"
}

# Append the server ARGV to FILE as one replayable line, preceded by the
# arm's KV_OFFLOAD_SERVER_ENV assignments and, when the arm's connector is not
# named in ARGV, a comment line naming it (KV_OFFLOAD_CONNECTOR).
_sg_record_server_command() {
  local file="$1"
  shift
  mkdir -p "$(dirname "${file}")" || return 1
  if [[ -n "${KV_OFFLOAD_CONNECTOR:-}" ]]; then
    printf '# kv connector: %s\n' "${KV_OFFLOAD_CONNECTOR}" >>"${file}" ||
      return 1
  fi
  _sg_record_command ">>" "${file}" "${KV_OFFLOAD_SERVER_ENV[@]}" "$@"
}

#######################################
# The inference server's lifecycle in one call: start ARGV in the background
# as "vLLM server", "SGLang server" or "inference server", after what ARGV
# runs (log RESULT_DIR/server.log, command
# RESULT_DIR/server_command.txt, registered for cleanup), then wait for
# http://127.0.0.1:PORT/health for up to SERVER_READY_TIMEOUT seconds
# (default 1800).
# Globals:
#   RESULT_DIR, PORT, SERVER_READY_TIMEOUT, KV_OFFLOAD_SERVER_ENV,
#   KV_OFFLOAD_CONNECTOR (read)
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
  local record="${RESULT_DIR}/server_command.txt"
  SERVER_LOG="${RESULT_DIR}/server.log"
  SERVER_PID=""
  _sg_record_server_command "${record}" "$@" || return 1
  local label="inference server" arg
  for arg in "${@:1:3}"; do
    case "${arg##*/}" in
      vllm) label="vLLM server" ;;
      sglang | sglang.launch_server) label="SGLang server" ;;
    esac
  done
  _sg_start_background_process --label "${label}" --log "${SERVER_LOG}" \
    -- "$@" || return 1
  SERVER_PID="${BACKGROUND_PID}"
  # shellcheck disable=SC2153  # PORT is exported by benchmark_lib.sh
  _sg_wait_for_server_ready --port "${PORT}" --server-log "${SERVER_LOG}" \
    --server-pid "${SERVER_PID}" \
    --timeout "${SERVER_READY_TIMEOUT:-${_SG_DEFAULT_READY_TIMEOUT}}"
}
