#!/usr/bin/env bash
# shellcheck disable=SC2153  # the job environment (CONTRACTS section 6)
#
# Disaggregated fixed-sequence-length benchmark: DeepSeek-R1 (FP4) on B300 (CUDA),
# SGLang prefill and decode workers on nodes of their own, KV moved with
# KV_P2P_TRANSFER, the SGLang router in front, random prompts of ISL tokens
# and OSL output tokens at each concurrency of CONC.
#
# Required env (CONTRACTS section 6 and its multi-node extension): MODEL ISL
#   OSL CONC ROUTER KV_P2P_TRANSFER PREFILL_*/DECODE_* SWEEPGATE_NODES
#   RESULT_DIR RESULT_FILENAME.

set -eo pipefail

# shellcheck source=benchmarks/multi_node/disagg_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../disagg_lib.sh"

check_env_vars MODEL ISL OSL CONC MAX_MODEL_LEN ROUTER KV_P2P_TRANSFER \
  PREFILL_NUM_WORKER PREFILL_TP DECODE_NUM_WORKER DECODE_TP SWEEPGATE_NODES \
  RESULT_DIR RESULT_FILENAME || exit 1
require_no_evals || exit 1
if [[ "${SPEC_DECODING:-none}" != "none" ]]; then
  echo "Error: ${0##*/} has no speculative decoding; SPEC_DECODING=${SPEC_DECODING} needs an _mtp script" >&2
  exit 1
fi

mkdir -p "${RESULT_DIR}"
prepare_model_path || exit 1

#######################################
# The SGLang server command of one worker (called by disagg::start_role).
# Arguments:
#   Role, worker index, node address, port, nodes the worker spans.
#######################################
disagg_server_argv() {
  local role="$1" addr="$3" port="$4" nnodes="$5" upper="${1^^}"
  local tp_var="${upper}_TP" ep_var="${upper}_EP_SIZE" dpa_var="${upper}_DP_ATTENTION"
  DISAGG_ARGV=(
    python3 -m sglang.launch_server
    --model-path "${MODEL_PATH}"
    --served-model-name "${MODEL}"
    --host 0.0.0.0
    --port "${port}"
    --tp-size "${!tp_var}"
    --ep-size "${!ep_var:-1}"
    --context-length "${MAX_MODEL_LEN}"
    --disaggregation-mode "${role}"
    --disaggregation-transfer-backend "${KV_P2P_TRANSFER}"
    --trust-remote-code
  )
  if [[ "${!dpa_var:-false}" == "true" ]]; then
    DISAGG_ARGV+=(--enable-dp-attention --dp-size "${!tp_var}")
  fi
  if ((nnodes > 1)); then
    DISAGG_ARGV+=(--nnodes "${nnodes}" --dist-init-addr "${addr}:$((port + 1000))")
    export DISAGG_NODE_RANK_FLAG=--node-rank
  else
    unset DISAGG_NODE_RANK_FLAG
  fi
}

disagg::run || exit 1
echo "Result: ${RESULT_DIR}/${RESULT_FILENAME}.json"
