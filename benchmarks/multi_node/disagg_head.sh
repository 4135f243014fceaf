#!/usr/bin/env bash
# shellcheck disable=SC2153  # the job environment (CONTRACTS section 6)
#
# The head stage of a disaggregated job, on the allocation's first node: start
# the router in front of the prefill and decode workers, wait until it answers,
# then run the fixed-seq-len benchmark client once per concurrency of the row.
#
# Environment: DISAGG_PREFILL_URLS, DISAGG_DECODE_URLS (space-separated, set
#   by disagg_lib.sh), ROUTER, ROUTER_VERSION, PORT, MODEL, ISL, OSL, CONC
#   (space-separated), RESULT_DIR, RESULT_FILENAME.
# Output: RESULT_DIR/RESULT_FILENAME.json, the client's output when the row
#   has one concurrency; with several, one RESULT_FILENAME_conc<N>.json each
#   and RESULT_FILENAME.json as the list of them, in order.

set -eo pipefail

# shellcheck source=benchmarks/benchmark_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../benchmark_lib.sh"

check_env_vars DISAGG_PREFILL_URLS DISAGG_DECODE_URLS ROUTER PORT MODEL ISL \
  OSL CONC RESULT_DIR RESULT_FILENAME || exit 1

router_cmd=()
case "${ROUTER}" in
  sglang-router)
    router_cmd=(python3 -m sglang_router.launch_router --pd-disaggregation
      --host 0.0.0.0 --port "${PORT}")
    for url in ${DISAGG_PREFILL_URLS}; do router_cmd+=(--prefill "${url}"); done
    for url in ${DISAGG_DECODE_URLS}; do router_cmd+=(--decode "${url}"); done
    ;;
  *)
    echo "Error: no router command for ROUTER=${ROUTER}; add one to ${0##*/}" >&2
    exit 1
    ;;
esac
if [[ -n "${ROUTER_VERSION:-}" ]]; then
  pip install "${ROUTER}==${ROUTER_VERSION}"
fi
start_background_process --label "router" --log "${RESULT_DIR}/logs/router.log" \
  --command-file "${RESULT_DIR}/logs/router.command.txt" -- "${router_cmd[@]}" || exit 1
router_pid="${BACKGROUND_PID}"
wait_for_server_ready --port "${PORT}" --server-log "${RESULT_DIR}/logs/router.log" \
  --server-pid "${router_pid}" --timeout "${SERVER_READY_TIMEOUT:-0}" || exit 1

read -r -a concs <<<"${CONC}"
for conc in "${concs[@]}"; do
  name="${RESULT_FILENAME}"
  ((${#concs[@]} == 1)) || name="${RESULT_FILENAME}_conc${conc}"
  run_benchmark_serving --model "${MODEL}" --port "${PORT}" \
    --input-len "${ISL}" --output-len "${OSL}" --max-concurrency "${conc}" \
    --random-range-ratio "${RANDOM_RANGE_RATIO:-0.8}" \
    --result-dir "${RESULT_DIR}" --result-filename "${name}" \
    --server-pid "${router_pid}" --trust-remote-code || exit 1
done
if ((${#concs[@]} > 1)); then
  python3 - "${RESULT_DIR}" "${RESULT_FILENAME}" "${concs[@]}" <<'PY'
import json, sys
folder, name, concs = sys.argv[1], sys.argv[2], sys.argv[3:]
parts = [json.load(open(f"{folder}/{name}_conc{c}.json")) for c in concs]
json.dump(parts, open(f"{folder}/{name}.json", "w"), indent=2)
PY
fi
echo "Result: ${RESULT_DIR}/${RESULT_FILENAME}.json"
