#!/usr/bin/env bash
# shellcheck disable=SC2153  # the job environment (CONTRACTS section 6)
#
# Agentic trace replay: DeepSeek-V4 (FP4) on MI355X, vLLM (ROCm/AITER), MTP
# speculative decoding.
#
# KV-offload arms: none, vllm-simple, lmcache (the row picks one; LMCache is
# installed at KV_OFFLOAD_BACKEND_VERSION).
#
# Required env (CONTRACTS section 6): MODEL TP CONC SPEC_DECODING KV_OFFLOADING
#   DURATION RESULT_DIR RESULT_FILENAME.
# Optional: MODEL_PATH, EP_SIZE, PORT, MTP_NUM_SPEC_TOKENS (default 3),
#   AGENTIC_TRACE_FILE / AGENTIC_TRACE_LOADER, SERVER_READY_TIMEOUT.

set -eo pipefail

# shellcheck source=benchmarks/benchmark_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC SPEC_DECODING KV_OFFLOADING DURATION \
  RESULT_DIR RESULT_FILENAME || exit 1

if [[ "${SPEC_DECODING}" != "mtp" ]]; then
  echo "Error: ${0##*/} is the spec-decoding=mtp recipe, got SPEC_DECODING=${SPEC_DECODING}" >&2
  exit 1
fi
case "${TP}" in
  4 | 8) ;;
  *) echo "Error: DeepSeek-V4 on MI355X runs at TP=4 or TP=8, got TP=${TP}" >&2; exit 1 ;;
esac

mkdir -p "${RESULT_DIR}"
prepare_model_path || exit 1

setup_kv_offload_arm --arms "none vllm-simple lmcache" \
  --chunk-size 256 || exit 1

vllm_parallel_args || exit 1
spec_config="$(printf '{"method":"mtp","num_speculative_tokens":%d}' \
  "${MTP_NUM_SPEC_TOKENS:-3}")"

export VLLM_ROCM_USE_AITER=1
export VLLM_ENGINE_READY_TIMEOUT_S=3600
export VLLM_HTTP_TIMEOUT_KEEP_ALIVE=900

server_cmd=(
  vllm serve "${MODEL_PATH}"
  --served-model-name "${MODEL}"
  --host 0.0.0.0
  --port "${PORT}"
  "${VLLM_PARALLEL_ARGS[@]}"
  --max-num-seqs "$((2 * CONC))"
  --gpu-memory-utilization 0.90
  --trust-remote-code
  --enable-prefix-caching
  --kv-cache-dtype fp8
  --speculative-config "${spec_config}"
  --disable-uvicorn-access-log
  "${KV_OFFLOAD_SERVER_ARGS[@]}"
)
start_server_and_wait "${server_cmd[@]}" || exit 1

# The throughput benchmark unless the row asks for evals only, then the evals
# it asks for (RUN_EVAL / EVAL_ONLY) against the same server.
run_throughput_and_evals run_agentic_trace_replay --model "${MODEL}" \
  --port "${PORT}" --concurrency "${CONC}" --duration "${DURATION}" \
  --result-dir "${RESULT_DIR}" --result-filename "${RESULT_FILENAME}" \
  --server-pid "${SERVER_PID}" || exit 1
