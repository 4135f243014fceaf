#!/usr/bin/env bash
#
# One node's docker container of a multi-node task: disagg_lib.sh runs this
# through srun, once per node, when SWEEPGATE_CONTAINER_RUNTIME=docker. It
# runs `docker run DOCKER_RUN_ARGS...` with the container named
# <SWEEPGATE_JOB_NAME>-<label>-<task rank> (unique per job, task and node;
# the job name is the launcher's, launch::job_name), labelled
# sweepgate.job=<SWEEPGATE_JOB_NAME> and sweepgate.row=<SWEEPGATE_ROW_NAME>
# (the row, the same for every attempt: launch::row_name), and every
# exported variable of the job passed in. Docker's daemon, not this process,
# owns the container, so ending the step (scancel, the job's cleanup, the time
# limit) would leave it running: this task removes it by name however it
# ends. A task whose node lost contact cannot, so before `docker run` each
# task removes on its node the same row's containers of other attempts and a
# stale one of its own name (an exclusive node's GPUs would be taken).
#
# Usage: docker_task.sh LABEL DOCKER_RUN_ARGS...  (options, image, command)
# Environment: SWEEPGATE_JOB_NAME, SWEEPGATE_ROW_NAME (exported by the
#   launcher; without the row, no other attempt's container is touched),
#   SLURM_PROCID (srun's task rank).

set -uo pipefail

# Variables of the host, not of the job: not passed into the container.
readonly HOST_VARS=" HOME HOSTNAME LOGNAME OLDPWD PATH PWD SHLVL TERM TMPDIR
  USER _ "
# Set by main: this task's container.
CONTAINER=""

#######################################
# Remove this task's container (nothing when it is already gone). Further
# TERM and INT are ignored from the first one on: a signal arriving while the
# exit handler runs would end it before `docker rm` (seen: the cleanup's TERM
# to the task's process group, then to each of its processes).
# Globals:
#   CONTAINER
#######################################
remove_container() {
  trap '' TERM INT
  [[ -n "${CONTAINER}" ]] || return 0
  docker rm -f "${CONTAINER}" >/dev/null 2>&1 || true
}

#######################################
# Remove this node's leftovers of the row: containers labelled with the row
# whose job label is another attempt's, and one holding this task's name.
# One listing gives each container's name with its job label, so a container
# of this attempt (a sibling task's) is never taken for a leftover: two
# listings (the row's, then the job's) would miss a sibling that removes its
# own stale container between them, and then remove the fresh one it starts
# under the same name. Another attempt's names are never reused, so removing
# them by name cannot hit a container of this one. Other rows' and unlabelled
# containers stay.
# Globals:
#   CONTAINER
# Arguments:
#   Row name, job name.
#######################################
remove_leftovers() {
  local row="$1" job="$2" name its_job
  local -a stale=("${CONTAINER}")
  while IFS=$'\t' read -r name its_job; do
    [[ -n "${name}" && "${its_job}" != "${job}" ]] && stale+=("${name}")
  done < <(docker ps -a --filter "label=sweepgate.row=${row}" \
    --format '{{.Names}}\t{{.Label "sweepgate.job"}}')
  docker rm -f "${stale[@]}" >/dev/null 2>&1 || true
}

#######################################
# Run the container and wait for it; remove it on TERM, INT or exit.
# Globals:
#   CONTAINER (set), SWEEPGATE_JOB_NAME, SWEEPGATE_ROW_NAME, SLURM_PROCID
# Arguments:
#   Label, then docker run's arguments.
#######################################
main() {
  local label="$1"
  shift
  local job="${SWEEPGATE_JOB_NAME:-sweepgate-local}" var
  local row="${SWEEPGATE_ROW_NAME:-${job}}"
  local -a env_args=()
  while read -r var; do
    [[ "${HOST_VARS}" == *[[:space:]]"${var}"[[:space:]]* ]] \
      || env_args+=("--env=${var}")
  done < <(compgen -e)
  CONTAINER="${job}-${label}-${SLURM_PROCID:-0}"
  trap remove_container EXIT
  trap 'trap "" TERM INT; exit 143' TERM
  trap 'trap "" TERM INT; exit 130' INT
  remove_leftovers "${row}" "${job}"
  docker run "--name=${CONTAINER}" "--label=sweepgate.job=${job}" \
    "--label=sweepgate.row=${row}" "${env_args[@]}" "$@" &
  wait "$!"
}

main "$@"
