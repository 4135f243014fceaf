#!/usr/bin/env bash
# shellcheck disable=SC2153  # the job environment (CONTRACTS section 6)
#
# Disaggregated (prefill/decode) serving across the nodes of one Slurm
# allocation. Sourced by benchmarks/multi_node/*/*.sh, never executed.
#
# The launcher (benchmarks/runners/launch_*.sh) allocates SWEEPGATE_NODES
# exclusive nodes and runs the script on its own host inside the allocation.
# The script then starts, through one `srun` per worker, every prefill and
# decode worker on nodes of its own (in node order: prefill workers first),
# and runs the head stage (router + benchmark client, disagg_head.sh) on the
# first node. Every srun runs node_task.sh, so benchmark_lib.sh's lifecycle and
# cleanup hold on each node; every srun is registered here too, so when the
# script ends for any reason its steps, and the processes on every node, stop.
#
# Without a Slurm allocation (SLURM_JOB_ID unset: `sweepgate rehearse`), the
# same tasks run on this host, one port each.
#
# Globals read: SWEEPGATE_NODES, PREFILL_/DECODE_NUM_WORKER,
#   PREFILL_/DECODE_NODES_PER_WORKER (`sweepgate ci row-env`), PORT,
#   RESULT_DIR, SWEEPGATE_CONTAINER_RUNTIME (pyxis|docker|none),
#   SWEEPGATE_CONTAINER_DEVICES (docker flags), SWEEPGATE_JOB_NAME (names
#   docker containers), IMAGE, HF_HUB_CACHE.

# shellcheck source=benchmarks/benchmark_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../benchmark_lib.sh"

DISAGG_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DISAGG_NODES=()
DISAGG_ADDRS=()
DISAGG_PREFILL_URLS=""
DISAGG_DECODE_URLS=""

#######################################
# Fill DISAGG_NODES (Slurm node names) and DISAGG_ADDRS (their addresses).
# Returns:
#   1 when the allocation has fewer nodes than SWEEPGATE_NODES.
#######################################
disagg::nodes() {
  local want="${SWEEPGATE_NODES:?SWEEPGATE_NODES is not set; run sweepgate ci row-env}"
  local i name addr
  if [[ -z "${SLURM_JOB_ID:-}" ]]; then
    for ((i = 0; i < want; i++)); do
      DISAGG_NODES+=("localhost")
      DISAGG_ADDRS+=("127.0.0.1")
    done
    return 0
  fi
  mapfile -t DISAGG_NODES < <(scontrol show hostnames "${SLURM_JOB_NODELIST}")
  for name in "${DISAGG_NODES[@]}"; do
    addr="$(scontrol show node -o "${name}" | tr ' ' '\n' | sed -n 's/^NodeAddr=//p')"
    DISAGG_ADDRS+=("${addr:-${name}}")
  done
  if ((${#DISAGG_NODES[@]} < want)); then
    echo "Error: the allocation has ${#DISAGG_NODES[@]} nodes; the row needs ${want}" >&2
    return 1
  fi
}

#######################################
# Print the command that runs ARGV once per node of a comma-separated node
# list: srun with the container runtime inside an allocation, else ARGV. A
# docker container per node is named after the job, the task's label and its
# rank, and removed when its task ends (docker_task.sh).
# Arguments:
#   Task label, node list, node count, then ARGV.
#######################################
disagg::on_nodes() {
  local label="$1" nodes="$2" count="$3"
  shift 3
  if [[ -z "${SLURM_JOB_ID:-}" ]]; then
    printf '%s\n' "$@"
    return 0
  fi
  printf '%s\n' srun --overlap --kill-on-bad-exit=1 "--nodes=${count}" \
    "--ntasks=${count}" --ntasks-per-node=1 "--nodelist=${nodes}" --export=ALL
  case "${SWEEPGATE_CONTAINER_RUNTIME:-none}" in
    pyxis)
      printf '%s\n' "--container-image=${IMAGE/\//#}" \
        "--container-mounts=${PWD}:${PWD},${HF_HUB_CACHE:-${HOME}/.cache/huggingface}:/root/.cache/huggingface" \
        "--container-workdir=${PWD}" --no-container-mount-home
      ;;
    docker)
      # Word splitting of the device flags is intended.
      # shellcheck disable=SC2086
      printf '%s\n' bash "${DISAGG_DIR}/docker_task.sh" "${label}" \
        --rm --init --network=host --ipc=host --shm-size=64g \
        ${SWEEPGATE_CONTAINER_DEVICES:-} "--volume=${PWD}:${PWD}" "--workdir=${PWD}" \
        "--volume=${HF_HUB_CACHE:-${HOME}/.cache/huggingface}:/root/.cache/huggingface" \
        "${IMAGE}"
      ;;
  esac
  printf '%s\n' "$@"
}

#######################################
# Start one task on a slice of the allocation through node_task.sh, which
# keeps benchmark_lib's lifecycle on every node. SERVER_STANDIN (rehearsal)
# applies on the node, never to srun itself.
# Globals:
#   BACKGROUND_PID (set)
# Arguments:
#   Label, first node index, node count, then the task's ARGV.
#######################################
disagg::start_task() {
  local label="$1" first="$2" count="$3"
  shift 3
  local slice=("${DISAGG_NODES[@]:first:count}")
  local list
  list="$(IFS=,; echo "${slice[*]}")"
  local lines
  lines="$(disagg::on_nodes "${label}" "${list}" "${count}" \
    bash "${DISAGG_DIR}/node_task.sh" "${label}" "$@")" || return 1
  local -a cmd
  mapfile -t cmd <<<"${lines}"
  # The node task, not srun, runs the stand-in: hand it over under another name.
  local standin="${SERVER_STANDIN:-}"
  DISAGG_SERVER_STANDIN="${standin}" SERVER_STANDIN="" \
    start_background_process --label "${label}" \
      --log "${RESULT_DIR}/logs/${label}.log" -- "${cmd[@]}" || return 1
}

#######################################
# Start every worker of one role and wait until each answers /health.
# The caller's function disagg_server_argv ROLE INDEX ADDR PORT NNODES must
# set DISAGG_ARGV to the server command of one worker.
# Globals:
#   DISAGG_PREFILL_URLS / DISAGG_DECODE_URLS (appended), DISAGG_NEXT_NODE
# Arguments:
#   Role (prefill or decode).
#######################################
disagg::start_role() {
  local role="$1" upper="${1^^}"
  local workers_var="${upper}_NUM_WORKER" per_var="${upper}_NODES_PER_WORKER"
  local workers="${!workers_var:-0}" per="${!per_var:-1}" i port addr url
  for ((i = 0; i < workers; i++)); do
    addr="${DISAGG_ADDRS[${DISAGG_NEXT_NODE}]}"
    port=$((PORT + 1 + DISAGG_NEXT_NODE))
    disagg_server_argv "${role}" "${i}" "${addr}" "${port}" "${per}" || return 1
    disagg::start_task "${role}-${i}" "${DISAGG_NEXT_NODE}" "${per}" \
      "${DISAGG_ARGV[@]}" || return 1
    url="http://${addr}:${port}"
    wait_for_ready --endpoint "${url}/health" --pid "${BACKGROUND_PID}" \
      --log "${RESULT_DIR}/logs/${role}-${i}.log" \
      --timeout "${SERVER_READY_TIMEOUT:-0}" || return 1
    if [[ "${role}" == "prefill" ]]; then
      DISAGG_PREFILL_URLS+="${DISAGG_PREFILL_URLS:+ }${url}"
    else
      DISAGG_DECODE_URLS+="${DISAGG_DECODE_URLS:+ }${url}"
    fi
    DISAGG_NEXT_NODE=$((DISAGG_NEXT_NODE + per))
  done
}

#######################################
# What every disaggregated recipe checks and sets up first: the job's
# variables, no eval rows and no speculative decoding (these scripts run
# neither), the result folder and the model path.
# Globals:
#   The job environment (CONTRACTS section 6 and its multi-node extension).
# Returns:
#   Non-zero, with the reason on stderr, when the job cannot run.
#######################################
disagg::prepare() {
  check_env_vars MODEL ISL OSL CONC MAX_MODEL_LEN ROUTER KV_P2P_TRANSFER \
    PREFILL_NUM_WORKER PREFILL_TP DECODE_NUM_WORKER DECODE_TP SWEEPGATE_NODES \
    RESULT_DIR RESULT_FILENAME || return 1
  require_no_evals || return 1
  if [[ "${SPEC_DECODING:-none}" != "none" ]]; then
    echo "Error: ${0##*/} has no speculative decoding;" \
      "SPEC_DECODING=${SPEC_DECODING} needs an _mtp script" >&2
    return 1
  fi
  mkdir -p "${RESULT_DIR}" || return 1
  prepare_model_path
}

#######################################
# The SGLang prefill or decode server command of one worker, for scripts whose
# disagg_server_argv has nothing engine-specific to add: they define
# disagg_server_argv() { disagg::sglang_server_argv "$@"; }.
# Globals:
#   MODEL_PATH MODEL MAX_MODEL_LEN KV_P2P_TRANSFER <ROLE>_TP <ROLE>_EP_SIZE
#   <ROLE>_DP_ATTENTION (read); DISAGG_ARGV, DISAGG_NODE_RANK_FLAG (set)
# Arguments:
#   Role, worker index, node address, port, nodes the worker spans.
#######################################
disagg::sglang_server_argv() {
  local role="$1" addr="$3" port="$4" nnodes="$5" upper="${1^^}"
  local tp_var="${upper}_TP" ep_var="${upper}_EP_SIZE"
  local dpa_var="${upper}_DP_ATTENTION"
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
    DISAGG_ARGV+=(--nnodes "${nnodes}")
    DISAGG_ARGV+=(--dist-init-addr "${addr}:$((port + 1000))")
    export DISAGG_NODE_RANK_FLAG=--node-rank
  else
    unset DISAGG_NODE_RANK_FLAG
  fi
}

#######################################
# The whole job: place the workers, start them, then run disagg_head.sh
# (router and benchmark client) on the first node and return its status.
#######################################
disagg::run() {
  mkdir -p "${RESULT_DIR}/logs" || return 1
  disagg::nodes || return 1
  DISAGG_NEXT_NODE=0
  disagg::start_role prefill || return 1
  disagg::start_role decode || return 1
  export DISAGG_PREFILL_URLS DISAGG_DECODE_URLS
  disagg::start_task head 0 1 bash "${DISAGG_DIR}/disagg_head.sh" || return 1
  local rc=0
  wait "${BACKGROUND_PID}" || rc=$?
  unregister_cleanup_pid "${BACKGROUND_PID}"
  return "${rc}"
}
