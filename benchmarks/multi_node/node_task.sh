#!/usr/bin/env bash
#
# One task of a multi-node job, on one node (started by disagg_lib.sh through
# srun, or on this host in a rehearsal): run ARGV under benchmark_lib.sh's
# lifecycle, so TERM from srun or scancel stops its whole process tree here.
# Its log goes to RESULT_DIR/logs/<label>-<node>.log.
#
# Usage: node_task.sh LABEL ARGV...
# Environment: DISAGG_NODE_RANK_FLAG (appended with this node's rank within
#   the task when set, for servers spanning nodes), SERVER_STANDIN
#   (rehearsal).

set -eo pipefail

# shellcheck source=benchmarks/benchmark_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../benchmark_lib.sh"

# disagg_lib.sh hands the rehearsal's stand-in over as DISAGG_SERVER_STANDIN.
SERVER_STANDIN="${DISAGG_SERVER_STANDIN:-${SERVER_STANDIN:-}}"
unset DISAGG_SERVER_STANDIN
label="$1"
shift
node="${SLURMD_NODENAME:-localhost}"
if [[ "$1" == "bash" ]]; then
  # A stage script (disagg_head.sh) has its own lifecycle: run it in place.
  exec "$@"
fi
argv=("$@")
if [[ -n "${DISAGG_NODE_RANK_FLAG:-}" ]]; then
  argv+=("${DISAGG_NODE_RANK_FLAG}" "${SLURM_NODEID:-0}")
fi
start_background_process --label "${label} on ${node}" \
  --log "${RESULT_DIR}/logs/${label}-${node}.log" \
  --command-file "${RESULT_DIR}/logs/${label}-${node}.command.txt" \
  -- "${argv[@]}" || exit 1
wait "${BACKGROUND_PID}"
