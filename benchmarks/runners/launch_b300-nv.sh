#!/usr/bin/env bash
#
# Run one matrix row on the NVIDIA B300 Slurm cluster: salloc one node, then
# srun the benchmark script inside the row's image with enroot/pyxis. A
# multi-node row allocates its nodes and runs benchmarks/multi_node/... inside
# the allocation (benchmarks/README.md, "Multi-node rows").
#
# Usage: launch_b300-nv.sh [--dry-run]
# Environment: CONTRACTS section 6 (set by `sweepgate ci row-env`);
#   SWEEPGATE_SLURM_PARTITION (default b300), SWEEPGATE_SLURM_TIME (minutes),
#   SWEEPGATE_CONTAINER_RUNTIME (LAUNCH_RUNTIMES[b300] in launch_common.sh:
#   pyxis, the default, or none),
#   HF_HUB_CACHE (host model cache, mounted at /root/.cache/huggingface).

set -euo pipefail

# shellcheck source=benchmarks/runners/launch_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch_common.sh"

#######################################
# Print the cluster command, one NUL-terminated argument each.
# Globals:
#   SWEEPGATE_CONTAINER_RUNTIME (checked by launch::runtime), IMAGE
# Arguments:
#   Benchmark script, relative to the working directory.
#######################################
b300::command() {
  local script="$1"
  if launch::is_multinode; then
    launch::multinode_command b300 "${script}"
    return
  fi
  local hf_cache="${HF_HUB_CACHE:-${HOME}/.cache/huggingface}"
  local container_image
  container_image="$(launch::pyxis_image "${IMAGE}")"
  launch::salloc_args b300
  printf '%s\0' srun --nodes=1 --ntasks=1
  if [[ "${SWEEPGATE_CONTAINER_RUNTIME}" != "pyxis" ]]; then
    printf '%s\0' --export=ALL bash "${script}"
    return
  fi
  printf '%s\0' \
    "--container-image=${container_image}" \
    "--container-mounts=${PWD}:/workspace,${hf_cache}:/root/.cache/huggingface" \
    --container-workdir=/workspace \
    --no-container-mount-home \
    --export=ALL \
    bash "${script}"
}

main() {
  launch::parse_args "$@"
  launch::main b300 b300::command
}

main "$@"
