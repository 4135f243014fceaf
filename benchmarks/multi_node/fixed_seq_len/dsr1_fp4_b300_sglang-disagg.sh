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

disagg::prepare || exit 1

# The SGLang server command of one worker (called by disagg::start_role).
disagg_server_argv() {
  disagg::sglang_server_argv "$@"
}

disagg::run || exit 1
echo "Result: ${RESULT_DIR}/${RESULT_FILENAME}.json"
