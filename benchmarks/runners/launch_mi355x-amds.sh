#!/usr/bin/env bash
#
# Run one matrix row on the AMD MI355X Slurm cluster: salloc one node, then
# srun `docker run` of the row's image with the ROCm devices (/dev/kfd,
# /dev/dri). Only the job environment and HF_TOKEN enter the container, which
# is named like the Slurm job and removed by name on cancel or failure and
# before the start (launch::stop_containers).
#
# Usage: launch_mi355x-amds.sh [--dry-run]
# Environment: CONTRACTS section 6 and SWEEPGATE_JOB_ENV_NAMES (set by
#   `sweepgate ci row-env`); SWEEPGATE_SLURM_PARTITION (default mi355x),
#   SWEEPGATE_SLURM_TIME (minutes), SWEEPGATE_CONTAINER_RUNTIME
#   (LAUNCH_RUNTIMES[mi355x] in launch_common.sh: docker, the default, or
#   none), HF_HUB_CACHE (host model cache). A multi-node row
#   allocates its nodes and runs benchmarks/multi_node/... inside the
#   allocation (benchmarks/README.md, "Multi-node rows").

set -euo pipefail

# shellcheck source=benchmarks/runners/launch_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch_common.sh"

#######################################
# Print the cluster command, one NUL-terminated argument each.
# Globals:
#   SWEEPGATE_JOB_ENV_NAMES, IMAGE, RESULT_FILENAME, HF_TOKEN,
#   SWEEPGATE_CONTAINER_RUNTIME (checked by launch::runtime)
# Arguments:
#   Benchmark script, relative to the working directory.
#######################################
mi355x::command() {
  local script="$1"
  if launch::is_multinode; then
    launch::multinode_command mi355x "${script}"
    return
  fi
  if [[ "${SWEEPGATE_CONTAINER_RUNTIME}" != "docker" ]]; then
    launch::salloc_args mi355x
    printf '%s\0' srun --nodes=1 --ntasks=1 --export=ALL bash "${script}"
    return
  fi
  local hf_cache="${HF_HUB_CACHE:-${HOME}/.cache/huggingface}"
  local -a env_args=()
  local name
  # Word splitting is intended: a space-separated list of variable names.
  for name in ${SWEEPGATE_JOB_ENV_NAMES}; do
    env_args+=("--env=${name}")
  done
  [[ -n "${HF_TOKEN:-}" ]] && env_args+=("--env=HF_TOKEN")
  launch::salloc_args mi355x
  printf '%s\0' srun \
    --nodes=1 \
    --ntasks=1 \
    docker run \
    --rm \
    --init \
    "--name=$(launch::job_name)" \
    --network=host \
    --ipc=host \
    --shm-size=64g \
    --device=/dev/kfd \
    --device=/dev/dri \
    --group-add=video \
    --cap-add=SYS_PTRACE \
    --security-opt=seccomp=unconfined \
    "--volume=${PWD}:/workspace" \
    "--volume=${hf_cache}:/root/.cache/huggingface" \
    --workdir=/workspace \
    "${env_args[@]}" \
    "${IMAGE}" \
    bash "${script}"
}

main() {
  launch::parse_args "$@"
  launch::require_env SWEEPGATE_JOB_ENV_NAMES
  # The ROCm devices of a multi-node row's docker workers (disagg_lib.sh).
  local devices="--device=/dev/kfd --device=/dev/dri --group-add=video"
  export SWEEPGATE_CONTAINER_DEVICES="${SWEEPGATE_CONTAINER_DEVICES:-${devices}}"
  launch::main mi355x mi355x::command
}

main "$@"
