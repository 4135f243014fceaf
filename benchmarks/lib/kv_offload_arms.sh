#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# the KV-offload arms.
#
# A row names its arm with KV_OFFLOADING and KV_OFFLOAD_BACKEND:
#   KV_OFFLOADING=none                          -> arm "none"
#   KV_OFFLOADING=dram KV_OFFLOAD_BACKEND=NAME  -> arm NAME
# Each arm is a function _sg_kv_arm_<name> (dashes become underscores) that
# validates the row, installs the backend at KV_OFFLOAD_BACKEND_VERSION (the
# version comes from the config row, never from a script), starts what the arm
# needs (registered for cleanup), and sets KV_OFFLOAD_SERVER_ARGS, the vLLM
# arguments the script appends to its server argv.
#
# Arms: none, vllm-simple, lmcache, mooncake.
#
# Overridable (defaults in parentheses):
#   LMCACHE_PORT (PORT+100), LMCACHE_HTTP_PORT (PORT+101),
#   LMCACHE_PACKAGE (lmcache), LMCACHE_READY_TIMEOUT (600),
#   LMCACHE_MAX_WORKERS (2 x TP), LMCACHE_L1_READ_TTL_SECONDS (7200),
#   LMCACHE_SEPARATE_OBJECT_GROUPS (false) -- the row's
#   kv-offload-backend.settings set these (sweepgate.core.fields),
#   MOONCAKE_MASTER_PORT (PORT+200), MOONCAKE_METRICS_PORT (PORT+201),
#   MOONCAKE_PACKAGE (the build for the runtime, below),
#   MOONCAKE_DEVICE_NAME (SWEEPGATE_RDMA_DEVICES),
#   MOONCAKE_PROTOCOL (rdma with devices, else tcp),
#   MOONCAKE_READY_TIMEOUT (120),
#   KV_OFFLOAD_SKIP_INSTALL (0; 1 when the image already has the backend).
#
# Hardware: SWEEPGATE_ACCELERATOR_RUNTIME (cuda|rocm) and
# SWEEPGATE_RDMA_DEVICES come from configs/runners.yaml through the job
# environment. LMCache: on cuda the PyPI wheel with its dependencies; on rocm
# built from its source distribution at the row's version with HIP
# (BUILD_WITH_HIP=1, CXX=hipcc, no build isolation so the image's ROCm torch
# is built against). Mooncake: mooncake-transfer-engine (the CUDA build) on
# cuda, mooncake-transfer-engine-non-cuda on rocm.

# shellcheck disable=SC2034  # KV_OFFLOAD_SERVER_ARGS is read by the scripts.

readonly _SG_KV_ARMS="none vllm-simple lmcache mooncake"

#######################################
# Returns 0 when KV_OFFLOADING=none and no backend is named.
# Globals:
#   KV_OFFLOADING, KV_OFFLOAD_BACKEND
# Returns:
#   0 or 1 (with a message).
#######################################
require_agentic_kv_offload_none() {
  _sg_guarded _sg_require_kv_none "$@"
}

_sg_require_kv_none() {
  if [[ "${KV_OFFLOADING:-}" != "none" ]]; then
    _sg_err "Error: expected KV_OFFLOADING=none, got '${KV_OFFLOADING:-}'"
    return 1
  fi
  if [[ -n "${KV_OFFLOAD_BACKEND:-}" &&
    "${KV_OFFLOAD_BACKEND}" != "none" ]]; then
    _sg_err "Error: KV_OFFLOAD_BACKEND must be empty when" \
      "KV_OFFLOADING=none, got '${KV_OFFLOAD_BACKEND}'"
    return 1
  fi
  return 0
}

#######################################
# Returns 0 iff KV_OFFLOADING=dram, KV_OFFLOAD_BACKEND=NAME and
# TOTAL_CPU_DRAM_GB is a positive integer.
# Arguments:
#   NAME
# Returns:
#   0 or 1 (with a message naming what is wrong).
#######################################
require_agentic_kv_offload_backend() {
  _sg_guarded _sg_require_kv_backend "$@"
}

_sg_require_kv_backend() {
  local expected="${1:-}" ok=0
  if [[ -z "${expected}" ]]; then
    _sg_err "require_agentic_kv_offload_backend: name the expected backend"
    return 1
  fi
  if [[ "${KV_OFFLOADING:-}" != "dram" ]]; then
    _sg_err "Error: backend '${expected}' needs KV_OFFLOADING=dram," \
      "got '${KV_OFFLOADING:-}'"
    ok=1
  fi
  if [[ "${KV_OFFLOAD_BACKEND:-}" != "${expected}" ]]; then
    _sg_err "Error: expected KV_OFFLOAD_BACKEND=${expected}," \
      "got '${KV_OFFLOAD_BACKEND:-}'"
    ok=1
  fi
  if ! _sg_is_posint "${TOTAL_CPU_DRAM_GB:-}"; then
    _sg_err "Error: DRAM KV offloading needs TOTAL_CPU_DRAM_GB as a" \
      "positive integer, got '${TOTAL_CPU_DRAM_GB:-}'"
    ok=1
  fi
  return "${ok}"
}

#######################################
# Print the arm a row names: "none" or the backend name.
# Returns:
#   0, or 1 when KV_OFFLOADING is neither none nor dram.
#######################################
kv_offload_arm_name() {
  _sg_guarded _sg_kv_arm_name "$@"
}

_sg_kv_arm_name() {
  case "${KV_OFFLOADING:-}" in
    none) echo none ;;
    dram)
      if [[ -z "${KV_OFFLOAD_BACKEND:-}" ]]; then
        _sg_err "Error: KV_OFFLOADING=dram needs KV_OFFLOAD_BACKEND" \
          "(one of: ${_SG_KV_ARMS})"
        return 1
      fi
      echo "${KV_OFFLOAD_BACKEND}"
      ;;
    *)
      _sg_err "Error: KV_OFFLOADING must be none or dram," \
        "got '${KV_OFFLOADING:-}'"
      return 1
      ;;
  esac
}

#######################################
# Set up the KV-offload arm the row names.
# Globals:
#   KV_OFFLOAD_SERVER_ARGS (set), KV_OFFLOAD_ARM (set), RESULT_DIR, PORT,
#   TP, TOTAL_CPU_DRAM_GB, KV_OFFLOAD_BACKEND_VERSION
# Arguments:
#   --arms "A B ..."   arms this script supports (default: all)
#   [--chunk-size N]   LMCache chunk size in tokens (default 256)
# Returns:
#   0 when the arm is ready; 1 with a message otherwise.
#######################################
setup_kv_offload_arm() {
  _sg_guarded _sg_setup_kv_offload_arm "$@"
}

_sg_setup_kv_offload_arm() {
  local supported="${_SG_KV_ARMS}" chunk_size=256 arm fn
  KV_OFFLOAD_SERVER_ARGS=()
  KV_OFFLOAD_SERVER_ENV=()
  _sg_parse_opts setup_kv_offload_arm "--arms=supported
    --chunk-size=chunk_size" "$@" || return 1
  arm="$(_sg_kv_arm_name)" || return 1
  if [[ " ${supported} " != *" ${arm} "* ]]; then
    _sg_err "Error: KV-offload arm '${arm}' is not supported by ${0##*/}" \
      "(supported: ${supported})"
    return 1
  fi
  fn="_sg_kv_arm_${arm//-/_}"
  if ! declare -F "${fn}" >/dev/null; then
    _sg_err "Error: unknown KV-offload arm '${arm}' (known: ${_SG_KV_ARMS})"
    return 1
  fi
  if [[ -z "${RESULT_DIR:-}" ]]; then
    _sg_err "setup_kv_offload_arm: RESULT_DIR is not set"
    return 1
  fi
  mkdir -p "${RESULT_DIR}" || return 1
  echo "KV-offload arm: ${arm}"
  KV_OFFLOAD_ARM="${arm}"
  "${fn}" "${chunk_size}"
}

# The runner's accelerator runtime (cuda|rocm) from the job environment.
_sg_accelerator_runtime() {
  case "${SWEEPGATE_ACCELERATOR_RUNTIME:-}" in
    cuda | rocm) echo "${SWEEPGATE_ACCELERATOR_RUNTIME}" ;;
    *)
      _sg_err "Error: SWEEPGATE_ACCELERATOR_RUNTIME is" \
        "'${SWEEPGATE_ACCELERATOR_RUNTIME:-}', not cuda or rocm; state" \
        "accelerator-runtime under" \
        "hardware.${RUNNER_TYPE:-<runner label>} in" \
        "configs/runners.yaml (sweepgate ci row-env exports it)"
      return 1
      ;;
  esac
}

# Install LMCache at the row's version: the CUDA wheel with its
# dependencies, or on ROCm a HIP build of its source distribution.
_sg_lmcache_install() {
  local package="${LMCACHE_PACKAGE:-lmcache}" runtime rc=0
  _sg_kv_install_wanted || rc=$?
  ((rc == 2)) && return 0
  ((rc == 0)) || return 1
  runtime="$(_sg_accelerator_runtime)" || return 1
  if [[ "${runtime}" == cuda ]]; then
    _sg_kv_pip "${package}" || return 1
    return 0
  fi
  echo "Building ${package}==${KV_OFFLOAD_BACKEND_VERSION} from source" \
    "with HIP (ROCm)"
  BUILD_WITH_HIP=1 CXX=hipcc TORCH_DONT_CHECK_COMPILER_ABI=1 \
    _sg_kv_pip "${package}" --no-build-isolation --no-binary "${package}"
}

# 0 to install, 2 when KV_OFFLOAD_SKIP_INSTALL says the image has it, 1 on
# a missing version.
_sg_kv_install_wanted() {
  if [[ -z "${KV_OFFLOAD_BACKEND_VERSION:-}" ]]; then
    _sg_err "Error: KV_OFFLOAD_BACKEND_VERSION is empty; set" \
      "kv-offload-backend.version for" \
      "${KV_OFFLOAD_BACKEND:-this backend} in the master config"
    return 1
  fi
  if [[ "${KV_OFFLOAD_SKIP_INSTALL:-0}" == "1" ]]; then
    echo "KV_OFFLOAD_SKIP_INSTALL=1: using the image's backend"
    return 2
  fi
}

# pip install PACKAGE==KV_OFFLOAD_BACKEND_VERSION [PIP OPTIONS...], with
# its dependencies.
_sg_kv_pip() {
  local package="$1"
  shift
  pip install --quiet --no-cache-dir "$@" \
    "${package}==${KV_OFFLOAD_BACKEND_VERSION}" || {
    _sg_err "Error: could not install" \
      "${package}==${KV_OFFLOAD_BACKEND_VERSION}"
    return 1
  }
}

# Install the Mooncake build for the runtime at the row's version.
_sg_mooncake_install() {
  local rc=0 package
  _sg_kv_install_wanted || rc=$?
  ((rc == 2)) && return 0
  ((rc == 0)) || return 1
  package="$(_sg_mooncake_package)" || return 1
  _sg_kv_pip "${package}"
}

_sg_kv_arm_none() {
  _sg_require_kv_none || return 1
  KV_OFFLOAD_SERVER_ARGS=()
}

# vLLM's SimpleCPUOffloadConnector. `--kv-offloading-backend native` selects
# OffloadingConnector unless VLLM_USE_SIMPLE_KV_OFFLOAD=1, so the arm exports
# it and names it in KV_OFFLOAD_SERVER_ENV (start_server_and_wait records it
# in front of the command). The size is the node's whole budget in GiB (vLLM
# splits it across TP ranks).
_sg_kv_arm_vllm_simple() {
  local gib
  _sg_require_kv_backend vllm-simple || return 1
  gib="$(_sg_gb_to_gib "${TOTAL_CPU_DRAM_GB}")" || return 1
  export VLLM_USE_SIMPLE_KV_OFFLOAD=1
  KV_OFFLOAD_SERVER_ENV=(VLLM_USE_SIMPLE_KV_OFFLOAD=1)
  KV_OFFLOAD_CONNECTOR=SimpleCPUOffloadConnector
  KV_OFFLOAD_SERVER_ARGS=(
    --kv-offloading-backend native
    --kv-offloading-size "${gib}"
  )
}

# One LMCache MP server per node, holding the node's DRAM budget as L1.
_sg_kv_arm_lmcache() {
  local chunk_size="$1" port http_port log gib
  local -a cmd=()
  _sg_require_kv_backend lmcache || return 1
  gib="$(_sg_gb_to_gib "${TOTAL_CPU_DRAM_GB}")" || return 1
  if ! _sg_is_posint "${chunk_size}"; then
    _sg_err "Error: bad LMCache chunk size '${chunk_size}'"
    return 1
  fi
  if [[ -n "${_SG_LMCACHE_PID:-}" ]] &&
    _sg_is_running "${_SG_LMCACHE_PID}"; then
    _sg_err "Error: an LMCache server (PID ${_SG_LMCACHE_PID}) is already" \
      "running; one per node"
    return 1
  fi
  _sg_lmcache_install || return 1
  port="${LMCACHE_PORT:-$((PORT + 100))}"
  http_port="${LMCACHE_HTTP_PORT:-$((PORT + 101))}"
  log="${RESULT_DIR}/lmcache_server.log"
  cmd=(
    lmcache server
    --host 127.0.0.1
    --port "${port}"
    --http-host 127.0.0.1
    --http-port "${http_port}"
    --l1-size-gb "${gib}"
    --chunk-size "${chunk_size}"
    --eviction-policy LRU
    --shm-name ""
    --max-workers "${LMCACHE_MAX_WORKERS:-$((2 * ${TP:-1}))}"
    --l1-read-ttl-seconds "${LMCACHE_L1_READ_TTL_SECONDS:-7200}"
  )
  [[ "${LMCACHE_SEPARATE_OBJECT_GROUPS:-false}" == "true" ]] &&
    cmd+=(--separate-object-groups)
  _sg_start_background_process --label "LMCache server" --log "${log}" \
    --command-file "${RESULT_DIR}/lmcache_command.txt" -- "${cmd[@]}" ||
    return 1
  _SG_LMCACHE_PID="${BACKGROUND_PID}"
  _sg_wait_for_ready --endpoint "http://127.0.0.1:${http_port}/healthcheck" \
    --pid "${_SG_LMCACHE_PID}" --log "${log}" \
    --timeout "${LMCACHE_READY_TIMEOUT:-600}" --sleep-interval 2 || return 1
  KV_OFFLOAD_SERVER_ARGS=(--kv-transfer-config "$(_sg_lmcache_connector \
    "${port}")")
}

# The vLLM --kv-transfer-config JSON for the LMCache MP server on PORT.
_sg_lmcache_connector() {
  local module="lmcache.integration.vllm.lmcache_mp_connector"
  printf '{"kv_connector":"LMCacheMPConnector",'
  printf '"kv_connector_module_path":"%s","kv_role":"kv_both",' "${module}"
  printf '"kv_connector_extra_config":{"lmcache.mp.host":"tcp://127.0.0.1",'
  printf '"lmcache.mp.port":%d,"lmcache.mp.mq_timeout":6000.0}}' "$1"
}

# A Mooncake master plus vLLM's Mooncake store connector; each TP rank
# contributes an equal share of the node's DRAM budget, written in bytes.
_sg_kv_arm_mooncake() {
  local master_port metrics_port log config per_rank
  local -a cmd=()
  _sg_require_kv_backend mooncake || return 1
  if ! _sg_is_posint "${TP:-}"; then
    _sg_err "Error: the mooncake arm needs TP as a positive integer," \
      "got '${TP:-}'"
    return 1
  fi
  per_rank=$(($(_sg_gb_to_bytes "${TOTAL_CPU_DRAM_GB}") / TP))
  if ((per_rank < 1000000000)); then
    _sg_err "Error: TOTAL_CPU_DRAM_GB=${TOTAL_CPU_DRAM_GB} is less than" \
      "1 GB per rank at TP=${TP}"
    return 1
  fi
  _sg_mooncake_install || return 1
  master_port="${MOONCAKE_MASTER_PORT:-$((PORT + 200))}"
  metrics_port="${MOONCAKE_METRICS_PORT:-$((PORT + 201))}"
  log="${RESULT_DIR}/mooncake_master.log"
  config="${RESULT_DIR}/mooncake_config.json"
  _sg_mooncake_config "${master_port}" "${per_rank}" >"${config}" ||
    return 1
  export MOONCAKE_CONFIG_PATH="${config}"
  cmd=(
    mooncake_master
    --port "${master_port}"
    --enable_metric_reporting=true
    --metrics_port "${metrics_port}"
    --eviction_high_watermark_ratio=0.95
    --eviction_ratio=0.10
  )
  _sg_start_background_process --label "Mooncake master" --log "${log}" \
    --command-file "${RESULT_DIR}/mooncake_command.txt" -- "${cmd[@]}" ||
    return 1
  _sg_wait_for_ready --endpoint "http://127.0.0.1:${metrics_port}/metrics" \
    --pid "${BACKGROUND_PID}" --log "${log}" \
    --timeout "${MOONCAKE_READY_TIMEOUT:-120}" --sleep-interval 2 || return 1
  KV_OFFLOAD_SERVER_ARGS=(--kv-transfer-config "$(printf '%s' \
    '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both",' \
    '"kv_load_failure_policy":"recompute"}')")
}

# The Mooncake build for the runtime (MOONCAKE_PACKAGE overrides).
_sg_mooncake_package() {
  local runtime
  if [[ -n "${MOONCAKE_PACKAGE:-}" ]]; then
    echo "${MOONCAKE_PACKAGE}"
    return 0
  fi
  runtime="$(_sg_accelerator_runtime)" || return 1
  case "${runtime}" in
    cuda) echo mooncake-transfer-engine ;;
    rocm) echo mooncake-transfer-engine-non-cuda ;;
  esac
}

# The Mooncake client config: MASTER_PORT, PER_RANK_BYTES. RDMA devices come
# from the runner's facts (SWEEPGATE_RDMA_DEVICES); without any, TCP.
_sg_mooncake_config() {
  local devices="${MOONCAKE_DEVICE_NAME:-${SWEEPGATE_RDMA_DEVICES:-}}"
  local protocol="${MOONCAKE_PROTOCOL:-tcp}"
  [[ -n "${devices}" && -z "${MOONCAKE_PROTOCOL:-}" ]] && protocol=rdma
  printf '{\n'
  printf '  "mode": "embedded",\n'
  printf '  "metadata_server": "P2PHANDSHAKE",\n'
  printf '  "master_server_address": "127.0.0.1:%d",\n' "$1"
  printf '  "global_segment_size": %d,\n' "$2"
  printf '  "local_buffer_size": "4GB",\n'
  printf '  "protocol": "%s"' "${protocol}"
  if [[ -n "${devices}" ]]; then
    printf ',\n  "device_name": "%s"' "${devices}"
  fi
  printf '\n}\n'
}
