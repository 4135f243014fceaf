#!/usr/bin/env bash
#
# Shared helpers for the benchmark scripts under benchmarks/single_node/.
#
# Source it; do not run it:
#   source "$(dirname "${BASH_SOURCE[0]}")/../../benchmark_lib.sh"
#
# This file is the one entry point. It sources the parts under lib/, each one
# concern, relative to its own location:
#   core.sh         the flag guard, messages, number checks
#   units.sh        the DRAM budget in the units each backend reads
#   args.sh         the one option parser
#   processes.sh    reading the process table
#   lifecycle.sh    start_background_process, the cleanup registry, stopping
#   readiness.sh    wait_for_ready, wait_for_server_ready,
#                   start_server_and_wait
#   environment.sh  check_env_vars, write/append_command, prepare_model_path,
#                   require_no_evals, vllm_parallel_args
#   gpu_monitor.sh  start_gpu_monitor, stop_gpu_monitor
#   clients.sh      run_benchmark_serving, run_agentic_trace_replay
#   evals.sh        run_lm_eval, run_requested_evals, is_eval_only,
#                   run_throughput_and_evals
#   kv_offload_arms.sh  setup_kv_offload_arm and the arm validators
# Sourcing it again is a no-op.
#
# Contract (CONTRACTS.md section 5):
#   * Every public function leaves the caller's `set -e`, `set -u` and `set -x`
#     exactly as it found them. Internally they run with all three off and
#     restore the caller's flags from `$-` before returning. (`$(set +o)` is
#     not used: bash clears errexit inside command substitutions, so it would
#     report -e as off and "restore" the caller into a shell without -e.)
#   * No function calls `exit`, except the one cleanup handler that
#     register_cleanup_pid installs for EXIT, INT and TERM.
#   * Commands are bash argv arrays. Nothing is passed to `eval`.
#
# Public functions:
#   wait_for_ready, wait_for_server_ready, start_server_and_wait,
#   stop_background_process_tree, register_cleanup_pid,
#   unregister_cleanup_pid, check_env_vars, write_command, append_command,
#   start_background_process, start_gpu_monitor, stop_gpu_monitor,
#   prepare_model_path, vllm_parallel_args, require_agentic_kv_offload_none,
#   require_agentic_kv_offload_backend, kv_offload_arm_name,
#   setup_kv_offload_arm, require_no_evals, run_benchmark_serving,
#   run_agentic_trace_replay, run_lm_eval, run_requested_evals,
#   is_eval_only, run_throughput_and_evals.

# Include guard: a second `source` keeps the first one's state (the cleanup
# registry above all) and redefines nothing.
if [[ -n "${SWEEPGATE_BENCHMARK_DIR:-}" ]] &&
  declare -F _sg_guarded >/dev/null; then
  return 0
fi

# Identical prefixes must hash to identical block keys in every arm and every
# run, whatever the KV-offload backend. Set once here so no script can forget.
export PYTHONHASHSEED="${PYTHONHASHSEED:-0}"

# Keep bytecode out of the mounted workspace (root-owned caches break checkout
# cleanup on self-hosted runners).
export PYTHONDONTWRITEBYTECODE=1

# Inference server port. Launchers that share a host set PORT before sourcing.
export PORT="${PORT:-8888}"

SWEEPGATE_BENCHMARK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly SWEEPGATE_BENCHMARK_DIR

# Outputs of functions that cannot return a value on stdout without forking.
BACKGROUND_PID=""
GPU_MONITOR_PID=""
KV_OFFLOAD_SERVER_ARGS=()
KV_OFFLOAD_SERVER_ENV=()
KV_OFFLOAD_CONNECTOR=""

# shellcheck source=benchmarks/lib/core.sh
source "${SWEEPGATE_BENCHMARK_DIR}/lib/core.sh"
# shellcheck source=benchmarks/lib/units.sh
source "${SWEEPGATE_BENCHMARK_DIR}/lib/units.sh"
# shellcheck source=benchmarks/lib/args.sh
source "${SWEEPGATE_BENCHMARK_DIR}/lib/args.sh"
# shellcheck source=benchmarks/lib/processes.sh
source "${SWEEPGATE_BENCHMARK_DIR}/lib/processes.sh"
# shellcheck source=benchmarks/lib/lifecycle.sh
source "${SWEEPGATE_BENCHMARK_DIR}/lib/lifecycle.sh"
# shellcheck source=benchmarks/lib/readiness.sh
source "${SWEEPGATE_BENCHMARK_DIR}/lib/readiness.sh"
# shellcheck source=benchmarks/lib/environment.sh
source "${SWEEPGATE_BENCHMARK_DIR}/lib/environment.sh"
# shellcheck source=benchmarks/lib/gpu_monitor.sh
source "${SWEEPGATE_BENCHMARK_DIR}/lib/gpu_monitor.sh"
# shellcheck source=benchmarks/lib/clients.sh
source "${SWEEPGATE_BENCHMARK_DIR}/lib/clients.sh"
# shellcheck source=benchmarks/lib/evals.sh
source "${SWEEPGATE_BENCHMARK_DIR}/lib/evals.sh"
# shellcheck source=benchmarks/lib/kv_offload_arms.sh
source "${SWEEPGATE_BENCHMARK_DIR}/lib/kv_offload_arms.sh"
