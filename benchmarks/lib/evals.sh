#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# accuracy evals (lm-evaluation-harness) against the running server.
#
# A row asks for evals with RUN_EVAL=true (after the throughput benchmark)
# or EVAL_ONLY=true (instead of it). The scores land in
# RESULT_DIR/RESULT_FILENAME-eval.json, lm-eval's own results JSON, which
# `sweepgate results ingest` pairs with the job's RESULT_FILENAME.job.json.
#
# Overridable (defaults in parentheses):
#   EVAL_TASK (gsm8k), EVAL_LIMIT (unset: the whole task),
#   EVAL_CONCURRENT_REQUESTS (CONC, else 16), EVAL_NUM_FEWSHOT (task's),
#   LM_EVAL_SKIP_INSTALL (0; 1 when the image already has lm-eval).

# The one pin of lm-evaluation-harness (configs/engines has its manifest).
readonly _SG_LM_EVAL_VERSION="0.4.9.1"
# Suffix of the eval results beside RESULT_FILENAME.json (docs/contracts.md
# section 8; sweepgate.core.jobfile.EVAL_SUFFIX is the same string).
readonly _SG_EVAL_SUFFIX="-eval"

#######################################
# Whether the row asks for evals only (no throughput benchmark).
# Globals:
#   EVAL_ONLY
# Returns:
#   0 when EVAL_ONLY=true; 1 otherwise.
#######################################
is_eval_only() {
  [[ "${EVAL_ONLY:-false}" == "true" ]]
}

# pip-install lm-eval at the pin, once per job, with its API extra (the
# OpenAI-compatible clients).
_sg_install_lm_eval() {
  if [[ "${LM_EVAL_SKIP_INSTALL:-0}" == "1" ||
    "${_SG_LM_EVAL_READY:-0}" == "1" ]]; then
    return 0
  fi
  pip install --quiet --no-cache-dir \
    "lm-eval[api]==${_SG_LM_EVAL_VERSION}" || {
    _sg_err "Error: could not install lm-eval==${_SG_LM_EVAL_VERSION}"
    return 1
  }
  _SG_LM_EVAL_READY=1
}

# Options of run_lm_eval (see _sg_parse_opts).
readonly _SG_EVAL_OPTS="--model=model --port=port --result-dir=result_dir
  --result-filename=result_filename --task=task --concurrency=conc
  --limit=limit --server-pid=server_pid"

#######################################
# Run lm-evaluation-harness (pinned, installed here) against the server on
# PORT through its OpenAI-compatible chat endpoint, and move its results
# JSON to RESULT_DIR/RESULT_FILENAME-eval.json.
# Arguments:
#   --model M --port P --result-dir D --result-filename F
#   [--task T (EVAL_TASK, default gsm8k)]
#   [--concurrency N (EVAL_CONCURRENT_REQUESTS, else CONC, else 16)]
#   [--limit N (EVAL_LIMIT; default the whole task)] [--server-pid PID]
# Returns:
#   0 with the results written; 1 on bad arguments, a failed install, a
#   failed eval, a dead server or no results.
#######################################
run_lm_eval() {
  _sg_guarded _sg_run_lm_eval "$@"
}

_sg_run_lm_eval() {
  local model="" port="" result_dir="" result_filename="" server_pid=""
  local task="${EVAL_TASK:-gsm8k}" limit="${EVAL_LIMIT:-}" out_dir
  local conc="${EVAL_CONCURRENT_REQUESTS:-${CONC:-16}}"
  local -a cmd=()
  _sg_parse_opts run_lm_eval "${_SG_EVAL_OPTS}" "$@" || return 1
  _sg_require_opts run_lm_eval "${_SG_EVAL_OPTS}" model port result_dir \
    result_filename || return 1
  _sg_check_eval_numbers "${conc}" "${limit}" || return 1
  _sg_install_lm_eval || return 1
  out_dir="${result_dir}/lm_eval_${result_filename}"
  rm -rf "${out_dir}" && mkdir -p "${out_dir}" || return 1
  cmd=(
    lm_eval
    --model local-chat-completions
    --apply_chat_template
    --tasks "${task}"
    --model_args "$(_sg_lm_eval_model_args "${model}" "${port}" "${conc}")"
    --gen_kwargs "temperature=0"
    --seed 0
    --output_path "${out_dir}"
  )
  [[ -n "${limit}" ]] && cmd+=(--limit "${limit}")
  [[ -n "${EVAL_NUM_FEWSHOT:-}" ]] &&
    cmd+=(--num_fewshot "${EVAL_NUM_FEWSHOT}")
  _sg_run_recorded_client "${result_dir}" "${server_pid}" "lm-eval" \
    "${cmd[@]}" || return $?
  _sg_collect_eval_results "${out_dir}" \
    "${result_dir}/${result_filename}${_SG_EVAL_SUFFIX}.json"
}

# CONC must be a positive integer; LIMIT empty or a positive integer.
_sg_check_eval_numbers() {
  if ! _sg_is_posint "$1"; then
    _sg_err "run_lm_eval: bad eval concurrency '$1'"
    return 1
  fi
  if [[ -n "$2" ]] && ! _sg_is_posint "$2"; then
    _sg_err "run_lm_eval: bad --limit '$2' (a positive integer, or unset" \
      "for the whole task)"
    return 1
  fi
}

# lm-eval's --model_args for the server: MODEL PORT CONC.
_sg_lm_eval_model_args() {
  printf 'model=%s,base_url=http://127.0.0.1:%s/v1/chat/completions,' \
    "$1" "$2"
  printf 'num_concurrent=%s,max_retries=5,timeout=1800,' "$3"
  printf 'tokenized_requests=False'
}

# Move the newest results_*.json lm-eval wrote under OUT_DIR to TARGET.
_sg_collect_eval_results() {
  local out_dir="$1" target="$2" found=""
  found="$(find "${out_dir}" -type f -name 'results_*.json' \
    -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -n 1)"
  found="${found#* }"
  if [[ -z "${found}" || ! -s "${found}" ]]; then
    _sg_err "Error: lm-eval finished but wrote no results_*.json under" \
      "${out_dir}"
    return 1
  fi
  mv -f "${found}" "${target}" || return 1
  echo "Eval results: ${target}"
}

#######################################
# Run the evals the row asks for (RUN_EVAL=true or EVAL_ONLY=true) against
# the server; nothing otherwise. Call it after the throughput benchmark
# (which an eval-only row skips: see is_eval_only).
# Globals:
#   RUN_EVAL, EVAL_ONLY, MODEL, PORT, RESULT_DIR, RESULT_FILENAME (read)
# Arguments:
#   [--server-pid PID] and any other option of run_lm_eval.
# Returns:
#   0 when no eval is asked for or the eval succeeded; 1 otherwise.
#######################################
run_requested_evals() {
  _sg_guarded _sg_run_requested_evals "$@"
}

_sg_run_requested_evals() {
  if [[ "${RUN_EVAL:-false}" != "true" ]] && ! is_eval_only; then
    return 0
  fi
  echo "Running evals (RUN_EVAL=${RUN_EVAL:-false}," \
    "EVAL_ONLY=${EVAL_ONLY:-false})"
  _sg_run_lm_eval --model "${MODEL:-}" --port "${PORT:-}" \
    --result-dir "${RESULT_DIR:-}" \
    --result-filename "${RESULT_FILENAME:-}" "$@"
}

# The throughput clients run_throughput_and_evals takes.
readonly -a _SG_THROUGHPUT_CLIENTS=(
  run_benchmark_serving run_agentic_trace_replay)

#######################################
# The end of every single-node script: unless the row asks for evals only,
# the throughput benchmark (CLIENT and its options) with the GPU monitor
# writing RESULT_DIR/RESULT_FILENAME.gpu_metrics.csv (the job's own name: the
# workflow uploads RESULT_FILENAME* and the collect job merges every job's
# files into one folder); then the evals the row asks for
# (run_requested_evals), against the server start_server_and_wait started.
# Globals:
#   RESULT_DIR, RESULT_FILENAME, SERVER_PID, EVAL_ONLY, RUN_EVAL (read)
# Arguments:
#   CLIENT (run_benchmark_serving or run_agentic_trace_replay), then its
#   options.
# Returns:
#   0 when the benchmark and the evals asked for succeeded; 1 otherwise.
#######################################
run_throughput_and_evals() {
  _sg_guarded _sg_run_throughput_and_evals "$@"
}

_sg_run_throughput_and_evals() {
  local client="${1:-}" known rc=1
  for known in "${_SG_THROUGHPUT_CLIENTS[@]}"; do
    [[ "${client}" == "${known}" ]] && rc=0
  done
  if ((rc)); then
    _sg_err "run_throughput_and_evals: the client must be one of" \
      "${_SG_THROUGHPUT_CLIENTS[*]}; got '${client}'"
    return 1
  fi
  shift
  if ! is_eval_only; then
    _sg_start_gpu_monitor \
      --output "${RESULT_DIR}/${RESULT_FILENAME}.gpu_metrics.csv"
    "_sg_${client}" "$@" || rc=1
    _sg_stop_gpu_monitor
    ((rc == 0)) || return 1
    echo "Result: ${RESULT_DIR}/${RESULT_FILENAME}.json"
  fi
  _sg_run_requested_evals --server-pid "${SERVER_PID:-}"
}
