#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# sampling GPU metrics in the background.

_SG_NVIDIA_QUERY="timestamp,index,power.draw,temperature.gpu"
_SG_NVIDIA_QUERY+=",clocks.current.sm,clocks.current.memory"
_SG_NVIDIA_QUERY+=",utilization.gpu,utilization.memory"
readonly _SG_NVIDIA_QUERY

#######################################
# Sample GPU metrics to a CSV in the background with nvidia-smi or amd-smi.
# Without either tool it says so and returns 0.
# Globals:
#   GPU_MONITOR_PID (set; empty when no tool)
# Arguments:
#   [--output FILE] [--interval SECONDS (default 1)]; FILE defaults to
#   RESULT_DIR/RESULT_FILENAME.gpu_metrics.csv in a job (the name the workflow
#   uploads; jobs' files are merged into one folder, so a plain gpu_metrics.csv
#   would be one job's over another's), to gpu_metrics.csv outside one.
# Returns:
#   0, or 1 on bad arguments.
#######################################
start_gpu_monitor() {
  _sg_guarded _sg_start_gpu_monitor "$@"
}

_sg_start_gpu_monitor() {
  local output="gpu_metrics.csv" interval=1
  if [[ -n "${RESULT_DIR:-}" && -n "${RESULT_FILENAME:-}" ]]; then
    output="${RESULT_DIR}/${RESULT_FILENAME}.gpu_metrics.csv"
  fi
  local -a cmd=()
  _sg_parse_opts start_gpu_monitor "--output=output --interval=interval" \
    "$@" || return 1
  if ! _sg_is_posint "${interval}"; then
    _sg_err "start_gpu_monitor: bad --interval '${interval}'"
    return 1
  fi
  GPU_MONITOR_PID=""
  if command -v nvidia-smi >/dev/null 2>&1; then
    cmd=(nvidia-smi "--query-gpu=${_SG_NVIDIA_QUERY}" --format=csv
      -l "${interval}")
  elif command -v amd-smi >/dev/null 2>&1; then
    cmd=(amd-smi metric -p -c -t -u -w "${interval}" --csv)
  else
    echo "[GPU monitor] neither nvidia-smi nor amd-smi is on PATH;" \
      "not sampling"
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
