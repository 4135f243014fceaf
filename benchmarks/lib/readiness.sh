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

# Print what LOG gained since byte _SG_LOG_POS, and advance _SG_LOG_POS.
_sg_follow_log() {
  local log="$1" size
  [[ -n "${log}" && -f "${log}" ]] || return 0
  size="$(wc -c <"${log}" 2>/dev/null)" || return 0
  size="${size//[[:space:]]/}"
  if ((size > _SG_LOG_POS)); then
    tail -c "+$((_SG_LOG_POS + 1))" "${log}" 2>/dev/null |
      head -c "$((size - _SG_LOG_POS))"
    _SG_LOG_POS="${size}"
  fi
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
  local timeout="${_SG_DEFAULT_READY_TIMEOUT}"
  _SG_LOG_POS=0
  _sg_parse_opts wait_for_ready "--endpoint=endpoint --pid=pid --log=log
    --timeout=timeout --sleep-interval=interval" "$@" || return 1
  _sg_check_ready_args "${endpoint}" "${pid}" "${timeout}" "${interval}" ||
    return 1
  ((timeout > 0)) && deadline=$((SECONDS + timeout))
  echo "Waiting for ${endpoint} (PID ${pid}, timeout ${timeout}s)"
  _sg_poll_ready "${endpoint}" "${pid}" "${log}" "${timeout}" \
    "${interval}" "${deadline}"
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

# The polling loop of wait_for_ready:
# ENDPOINT PID LOG TIMEOUT INTERVAL DEADLINE (0: none).
_sg_poll_ready() {
  local endpoint="$1" pid="$2" log="$3" timeout="$4" interval="$5"
  local deadline="$6" delay="${_SG_POLL_S:-0.2}"
  [[ -n "${_SG_POLL_S}" ]] && interval="${_SG_POLL_S}"
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
      _sg_err "wait_for_ready: timed out after ${timeout}s waiting for" \
        "${endpoint}"
      _sg_log_tail "${log}"
      return 1
    fi
    sleep "${delay}"
    # Back off from 0.2 s to the sleep interval: quick servers are seen
    # quickly, slow model loads are not hammered.
    delay="$(awk -v d="${delay}" -v m="${interval}" \
      'BEGIN { d *= 2; if (d > m) d = m; print d }')"
  done
}

# Repeat the last _SG_LOG_TAIL_LINES lines of LOG on stderr, if there is one.
_sg_log_tail() {
  [[ -n "$1" && -s "$1" ]] || return 0
  _sg_err "--- last ${_SG_LOG_TAIL_LINES} lines of $1 ---"
  tail -n "${_SG_LOG_TAIL_LINES}" "$1" >&2
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
# as "vLLM server" (log RESULT_DIR/server.log, command
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
  _sg_start_background_process --label "vLLM server" --log "${SERVER_LOG}" \
    -- "$@" || return 1
  SERVER_PID="${BACKGROUND_PID}"
  # shellcheck disable=SC2153  # PORT is exported by benchmark_lib.sh
  _sg_wait_for_server_ready --port "${PORT}" --server-log "${SERVER_LOG}" \
    --server-pid "${SERVER_PID}" \
    --timeout "${SERVER_READY_TIMEOUT:-${_SG_DEFAULT_READY_TIMEOUT}}"
}
