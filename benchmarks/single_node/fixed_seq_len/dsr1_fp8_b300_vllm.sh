#!/usr/bin/env bash
# shellcheck disable=SC2153  # the job environment (CONTRACTS section 6)
#
# Fixed-sequence-length serving benchmark: DeepSeek-R1 (FP8) on B300,
# vLLM, no speculative decoding, no KV offload. Random prompts of ISL tokens,
# OSL output tokens, CONC concurrent requests, 10 x CONC prompts.
#
# Required env (CONTRACTS section 6): MODEL TP CONC ISL OSL MAX_MODEL_LEN
#   RESULT_DIR RESULT_FILENAME.
# Optional: MODEL_PATH, EP_SIZE, DP_ATTENTION, PORT, RANDOM_RANGE_RATIO
#   (default 0.8), BENCH_SERVING_SCRIPT, SERVER_READY_TIMEOUT.

set -eo pipefail

# shellcheck source=benchmarks/benchmark_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL MAX_MODEL_LEN RESULT_DIR \
  RESULT_FILENAME || exit 1

if [[ "${SPEC_DECODING:-none}" != "none" ]]; then
  echo "Error: ${0##*/} has no speculative decoding; SPEC_DECODING=${SPEC_DECODING} needs an _mtp script" >&2
  exit 1
fi
if [[ "${KV_OFFLOADING:-none}" != "none" ]]; then
  echo "Error: fixed-seq-len rows do not offload KV; got KV_OFFLOADING=${KV_OFFLOADING}" >&2
  exit 1
fi

mkdir -p "${RESULT_DIR}"
prepare_model_path || exit 1

vllm_parallel_args || exit 1

export VLLM_USE_FLASHINFER_MOE_FP8=1
export VLLM_ENGINE_READY_TIMEOUT_S=1800

server_cmd=(
  vllm serve "${MODEL_PATH}"
  --served-model-name "${MODEL}"
  --host 0.0.0.0
  --port "${PORT}"
  "${VLLM_PARALLEL_ARGS[@]}"
  --max-model-len "${MAX_MODEL_LEN}"
  --max-num-seqs "${CONC}"
  --gpu-memory-utilization 0.90
  --kv-cache-dtype fp8
  --trust-remote-code
  --no-enable-prefix-caching
  --disable-uvicorn-access-log
)
start_server_and_wait "${server_cmd[@]}" || exit 1

# The throughput benchmark unless the row asks for evals only, then the evals
# it asks for (RUN_EVAL / EVAL_ONLY) against the same server.
run_throughput_and_evals run_benchmark_serving --model "${MODEL}" \
  --port "${PORT}" --input-len "${ISL}" --output-len "${OSL}" \
  --max-concurrency "${CONC}" --num-prompts "$((10 * CONC))" \
  --random-range-ratio "${RANDOM_RANGE_RATIO:-0.8}" \
  --result-dir "${RESULT_DIR}" --result-filename "${RESULT_FILENAME}" \
  --server-pid "${SERVER_PID}" --trust-remote-code || exit 1
