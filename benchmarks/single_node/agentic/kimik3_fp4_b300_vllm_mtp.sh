#!/usr/bin/env bash
# shellcheck disable=SC2153  # the job environment (CONTRACTS section 6)
#
# Agentic trace replay: Kimi-K3 (MXFP4) on B300, vLLM, DSpark speculative
# decoding (spec-decoding: mtp).
#
# KV-offload arm, chosen by the row (KV_OFFLOADING / KV_OFFLOAD_BACKEND):
#   none         GPU prefix cache only
#   vllm-simple  vLLM's native CPU offload, TOTAL_CPU_DRAM_GB for the node
#   lmcache      one LMCache MP server per node (L1 = TOTAL_CPU_DRAM_GB),
#                installed at KV_OFFLOAD_BACKEND_VERSION
#   mooncake     a Mooncake master and vLLM's Mooncake store connector,
#                installed at KV_OFFLOAD_BACKEND_VERSION
#
# DSpark draft length follows concurrency: conc <= 8 drafts 7 tokens,
# conc <= 16 drafts 3, above that 1 (the draft's acceptance falls as batches
# grow). Override with DSPARK_NUM_SPEC_TOKENS.
#
# Required env (CONTRACTS section 6): MODEL TP CONC SPEC_DECODING KV_OFFLOADING
#   DURATION RESULT_DIR RESULT_FILENAME.
# Optional: MODEL_PATH, DRAFT_MODEL, DRAFT_MODEL_PATH, EP_SIZE, PORT,
#   AGENTIC_TRACE_FILE / AGENTIC_TRACE_LOADER, SERVER_READY_TIMEOUT.

set -eo pipefail

# shellcheck source=benchmarks/benchmark_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC SPEC_DECODING KV_OFFLOADING DURATION \
  RESULT_DIR RESULT_FILENAME || exit 1

if [[ "${TP}" != "8" ]]; then
  echo "Error: Kimi-K3 MXFP4 on B300 runs at TP=8 (the checkpoint is ~1.5 TB), got TP=${TP}" >&2
  exit 1
fi
if [[ "${EP_SIZE:-1}" != "1" ]]; then
  echo "Error: this recipe is pure TP8; EP_SIZE=${EP_SIZE} is not wired" >&2
  exit 1
fi
if [[ "${SPEC_DECODING}" != "mtp" ]]; then
  echo "Error: ${0##*/} is the spec-decoding=mtp (DSpark) recipe, got SPEC_DECODING=${SPEC_DECODING}" >&2
  exit 1
fi

mkdir -p "${RESULT_DIR}"

prepare_model_path || exit 1
DRAFT_MODEL="${DRAFT_MODEL:-Inferact/Kimi-K3-DSpark}"
if [[ -z "${DRAFT_MODEL_PATH:-}" ]]; then
  hf download "${DRAFT_MODEL}"
  DRAFT_MODEL_PATH="${DRAFT_MODEL}"
fi

# ---- KV-offload arm ---------------------------------------------------------
# The hybrid attention layout needs chunks that are a multiple of every KV
# group's block size; 768 is the CUDA value.
setup_kv_offload_arm --arms "none vllm-simple lmcache mooncake" \
  --chunk-size 768 || exit 1

# ---- DSpark speculative decoding ------------------------------------------
if [[ -n "${DSPARK_NUM_SPEC_TOKENS:-}" ]]; then
  num_spec_tokens="${DSPARK_NUM_SPEC_TOKENS}"
elif ((CONC <= 8)); then
  num_spec_tokens=7
elif ((CONC <= 16)); then
  num_spec_tokens=3
else
  num_spec_tokens=1
fi
spec_config="$(printf '{"method":"dspark","model":"%s","num_speculative_tokens":%d,"draft_sample_method":"probabilistic","rejection_sample_method":"block"}' \
  "${DRAFT_MODEL_PATH}" "${num_spec_tokens}")"

# ---- Server -----------------------------------------------------------------
export VLLM_USE_V2_MODEL_RUNNER=1
export VLLM_ENGINE_READY_TIMEOUT_S=3600
# AIPerf keeps one pooled connection per session; outlast its idle gaps.
export VLLM_HTTP_TIMEOUT_KEEP_ALIVE=900

server_cmd=(
  vllm serve "${MODEL_PATH}"
  --served-model-name "${MODEL}"
  --host 0.0.0.0
  --port "${PORT}"
  --tensor-parallel-size "${TP}"
  --max-num-seqs "$((2 * CONC))"
  --gpu-memory-utilization 0.92
  --max-num-batched-tokens 16384
  --trust-remote-code
  --enable-prefix-caching
  --kv-cache-dtype fp8
  --speculative-config "${spec_config}"
  --disable-uvicorn-access-log
  "${KV_OFFLOAD_SERVER_ARGS[@]}"
)
start_server_and_wait "${server_cmd[@]}" || exit 1

# ---- Client -----------------------------------------------------------------
# The throughput benchmark unless the row asks for evals only, then the evals
# it asks for (RUN_EVAL / EVAL_ONLY) against the same server.
run_throughput_and_evals run_agentic_trace_replay --model "${MODEL}" \
  --port "${PORT}" --concurrency "${CONC}" --duration "${DURATION}" \
  --result-dir "${RESULT_DIR}" --result-filename "${RESULT_FILENAME}" \
  --server-pid "${SERVER_PID}" || exit 1
