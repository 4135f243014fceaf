#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# the benchmark clients (fixed-sequence-length serving, agentic replay).

# Run argv in the background, stopping it if SERVER_PID dies. Registered for
# cleanup while it runs. Arguments: SERVER_PID (may be empty) LABEL -- ARGV...
_sg_run_client() {
  local server_pid="$1" label="$2" client_pid rc=0
  shift 3
  _sg_spawn "" "$@"
  client_pid="${_SG_SPAWN_PID}"
  _sg_register_cleanup_pid "${client_pid}" "${label}" 10 \
    "${_SG_SPAWN_SESSION}"
  while _sg_is_running "${client_pid}"; do
    if [[ -n "${server_pid}" ]] && ! _sg_is_running "${server_pid}"; then
      _sg_err "Error: server PID ${server_pid} died while ${label} was" \
        "running"
      _sg_stop_tree "${client_pid}" "${label}" 10
      _sg_unregister_cleanup_pid "${client_pid}"
      return 1
    fi
    sleep "${_SG_POLL_S:-0.2}"
  done
  wait "${client_pid}" || rc=$?
  _sg_unregister_cleanup_pid "${client_pid}"
  if ((rc != 0)); then
    _sg_err "Error: ${label} failed with status ${rc}"
  fi
  return "${rc}"
}

# Options of run_benchmark_serving (see _sg_parse_opts).
readonly _SG_SERVING_OPTS="--model=model --port=port --input-len=input_len
  --output-len=output_len --max-concurrency=conc --num-prompts=num_prompts
  --random-range-ratio=ratio --result-dir=result_dir
  --result-filename=result_filename --backend=backend --endpoint=endpoint
  --server-pid=server_pid --tokenizer=tokenizer --trust-remote-code!trust"

#######################################
# Fixed-sequence-length serving benchmark (random prompts), written to
# RESULT_DIR/RESULT_FILENAME.json. The client is `vllm bench serve`, or
# `python3 $BENCH_SERVING_SCRIPT` (a benchmark_serving.py) when that is set.
# Arguments:
#   --model M --port P --input-len N --output-len N --max-concurrency N
#   --result-dir D --result-filename F [--num-prompts N (default 10x conc)]
#   [--random-range-ratio R (default 0.8)] [--backend B (default vllm)]
#   [--endpoint PATH] [--server-pid PID] [--tokenizer T] [--trust-remote-code]
#   (No --use-chat-template: the pinned `vllm bench serve` rejects it.)
# Returns:
#   The client's status; 1 on bad arguments or when the server dies.
#######################################
run_benchmark_serving() {
  _sg_guarded _sg_run_benchmark_serving "$@"
}

_sg_run_benchmark_serving() {
  local model="" port="" input_len="" output_len="" conc="" result_dir=""
  local result_filename="" num_prompts="" ratio=0.8 backend=vllm endpoint=""
  local server_pid="" tokenizer="" trust=false
  local -a cmd=()
  _sg_parse_opts run_benchmark_serving "${_SG_SERVING_OPTS}" "$@" || return 1
  _sg_require_opts run_benchmark_serving "${_SG_SERVING_OPTS}" model port \
    input_len output_len conc result_dir result_filename || return 1
  if ! _sg_is_posint "${conc}"; then
    _sg_err "run_benchmark_serving: bad --max-concurrency '${conc}'"
    return 1
  fi
  [[ -n "${num_prompts}" ]] || num_prompts=$((conc * 10))
  local -a client=(vllm bench serve)
  [[ -z "${BENCH_SERVING_SCRIPT:-}" ]] ||
    client=(python3 "${BENCH_SERVING_SCRIPT}")
  cmd=(
    "${client[@]}"
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
    --percentile-metrics "ttft,tpot,itl,e2el"
    --save-result
    --result-dir "${result_dir}"
    --result-filename "${result_filename}.json"
  )
  # --num-warmups arrived in vLLM 0.11.1; ask the installed client.
  if _sg_client_has_option --num-warmups "${client[@]}"; then
    cmd+=(--num-warmups "$((2 * conc))")
  fi
  [[ -n "${endpoint}" ]] && cmd+=(--endpoint "${endpoint}")
  [[ -n "${tokenizer}" ]] && cmd+=(--tokenizer "${tokenizer}")
  [[ "${trust}" == true ]] && cmd+=(--trust-remote-code)
  _sg_run_recorded_client "${result_dir}" "${server_pid}" \
    "benchmark client" "${cmd[@]}" || return $?
  if [[ ! -s "${result_dir}/${result_filename}.json" ]]; then
    _sg_err "Error: the client finished but wrote no" \
      "${result_dir}/${result_filename}.json"
    return 1
  fi
}

# Whether the client ARGV... lists OPTION in its --help (the installed parser
# is the only authority on its flags). Arguments: OPTION ARGV...
_sg_client_has_option() {
  local option="$1" help
  shift
  help="$("$@" --help 2>/dev/null)" || true
  # OPTION as argparse prints it: "  --opt N", "[--opt N]", "--opt=N".
  # The pattern lives in a variable: inside an ERE bracket expression a
  # backslash is a literal backslash, so "\]" cannot be written there.
  local pattern="(^|[[:space:],[])${option}([][:space:],=]|$)"
  [[ "${help}" =~ ${pattern} ]]
}

# Record ARGV in RESULT_DIR/client_command.txt, then run it as a client.
# Arguments: RESULT_DIR SERVER_PID LABEL ARGV...
_sg_run_recorded_client() {
  local result_dir="$1" server_pid="$2" label="$3"
  shift 3
  mkdir -p "${result_dir}" || return 1
  _sg_record_command ">>" "${result_dir}/client_command.txt" "$@" || return 1
  _sg_run_client "${server_pid}" "${label}" -- "$@"
}

# The one pin of AIPerf (configs/engines has its manifest).
readonly _SG_AIPERF_VERSION="0.13.0"

# pip-install AIPerf at the pin, once per job (AIPERF_SKIP_INSTALL=1: the
# image has it).
_sg_install_aiperf() {
  if [[ "${AIPERF_SKIP_INSTALL:-0}" == "1" ||
    "${_SG_AIPERF_READY:-0}" == "1" ]]; then
    return 0
  fi
  pip install --quiet --no-cache-dir "aiperf==${_SG_AIPERF_VERSION}" || {
    _sg_err "Error: could not install aiperf==${_SG_AIPERF_VERSION}"
    return 1
  }
  _SG_AIPERF_READY=1
}

# Options of run_agentic_trace_replay (see _sg_parse_opts).
readonly _SG_REPLAY_OPTS="--model=model --port=port --concurrency=conc
  --duration=duration --result-dir=result_dir
  --result-filename=result_filename --server-pid=server_pid
  --tokenizer=tokenizer --trace-file=trace_file --trace-loader=trace_loader"

#######################################
# Agentic trace replay with AIPerf (aiperf==0.13.0, pip-installed here once)
# for DURATION seconds at CONC sessions,
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
  local trace_loader="${AGENTIC_TRACE_LOADER:-}" artifact_dir
  local -a cmd=()
  : "${trace_loader:=semianalysis_cc_traces_weka_062126}"
  _sg_parse_opts run_agentic_trace_replay "${_SG_REPLAY_OPTS}" "$@" ||
    return 1
  _sg_require_opts run_agentic_trace_replay "${_SG_REPLAY_OPTS}" model port \
    conc duration result_dir result_filename || return 1
  _sg_check_replay_numbers "${conc}" "${duration}" || return 1
  _sg_install_aiperf || return 1
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
      _sg_err "run_agentic_trace_replay: trace file '${trace_file}' is" \
        "missing or empty"
      return 1
    fi
    cmd+=(--input-file "${trace_file}" --custom-dataset-type mooncake_trace)
  else
    cmd+=(--public-dataset "${trace_loader}")
  fi
  [[ -n "${tokenizer}" ]] && cmd+=(--tokenizer "${tokenizer}")
  mkdir -p "${artifact_dir}" || return 1
  _sg_run_recorded_client "${result_dir}" "${server_pid}" \
    "agentic replay client" "${cmd[@]}" || return $?
  _sg_write_agentic_result "${artifact_dir}/profile_export_aiperf.json" \
    "${result_dir}/${result_filename}.json"
}

# CONC and DURATION of run_agentic_trace_replay are positive integers.
_sg_check_replay_numbers() {
  if ! _sg_is_posint "$1"; then
    _sg_err "run_agentic_trace_replay: bad --concurrency '$1'"
    return 1
  fi
  if ! _sg_is_posint "$2"; then
    _sg_err "run_agentic_trace_replay: bad --duration '$2'"
    return 1
  fi
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
