#!/usr/bin/env bash
#
# One node's docker container of a multi-node task: disagg_lib.sh runs this
# through srun, once per node, when SWEEPGATE_CONTAINER_RUNTIME=docker. It
# runs `docker run DOCKER_RUN_ARGS...` with the container named
# <SWEEPGATE_JOB_NAME>-<label>-<task rank> (unique per job, task and node;
# the job name is the launcher's, launch::job_name), labelled
# sweepgate.job=<SWEEPGATE_JOB_NAME>, and every exported variable of the job
# passed in. Docker's daemon, not this process, owns the container, so ending
# the step (scancel, the job's cleanup, the time limit) would leave it
# running: this task removes it by name however it ends.
#
# Usage: docker_task.sh LABEL DOCKER_RUN_ARGS...  (options, image, command)
# Environment: SWEEPGATE_JOB_NAME (exported by the launcher), SLURM_PROCID
#   (srun's task rank).

set -uo pipefail

# Variables of the host, not of the job: not passed into the container.
readonly HOST_VARS=" HOME HOSTNAME LOGNAME OLDPWD PATH PWD SHLVL TERM TMPDIR
  USER _ "
# Set by main: this task's container.
CONTAINER=""

#######################################
# Remove this task's container (nothing when it is already gone).
# Globals:
#   CONTAINER
#######################################
remove_container() {
  [[ -n "${CONTAINER}" ]] || return 0
  docker rm -f "${CONTAINER}" >/dev/null 2>&1 || true
}

#######################################
# Run the container and wait for it; remove it on TERM, INT or exit.
# Globals:
#   CONTAINER (set), SWEEPGATE_JOB_NAME, SLURM_PROCID
# Arguments:
#   Label, then docker run's arguments.
#######################################
main() {
  local label="$1"
  shift
  local job="${SWEEPGATE_JOB_NAME:-sweepgate-local}" var
  local -a env_args=()
  while read -r var; do
    [[ "${HOST_VARS}" == *[[:space:]]"${var}"[[:space:]]* ]] \
      || env_args+=("--env=${var}")
  done < <(compgen -e)
  CONTAINER="${job}-${label}-${SLURM_PROCID:-0}"
  trap remove_container EXIT
  trap 'exit 143' TERM
  trap 'exit 130' INT
  docker run "--name=${CONTAINER}" "--label=sweepgate.job=${job}" \
    "${env_args[@]}" "$@" &
  wait "$!"
}

main "$@"
