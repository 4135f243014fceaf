#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# the one conversion of the DRAM budget into what the backends read.
#
# TOTAL_CPU_DRAM_GB is the node's KV-offload budget in decimal gigabytes
# (1 GB = 10^9 bytes), as configs/runners.yaml states it. vLLM
# (--kv-offloading-size), LMCache (--l1-size-gb) and Mooncake ("NGB" sizes)
# read gibibytes (1 GiB = 2^30 bytes), so passing the number through unchanged
# would hand them 7.4% more memory than the budget (1889 -> 2028 GB). Every
# arm converts here instead:
#   bytes = GB * 10^9
#   GiB   = bytes / 2^30, rounded down to hundredths: never above the budget,
#           and under it by less than 0.01 GiB (10.7 MB), where the exact
#           quotient would print up to 30 decimal places.
# The seed row's 1889 GB is 1889000000000 bytes = 1759.26 GiB (of
# 1759.268...).

readonly _SG_GIB=1073741824

# Print the bytes of GB decimal gigabytes (a positive integer).
_sg_gb_to_bytes() {
  _sg_is_posint "$1" || return 1
  printf '%d\n' "$(($1 * 1000000000))"
}

# Print BYTES as GiB rounded down to hundredths, without trailing zeros
# (1759.26, 931.3, 1000).
_sg_bytes_to_gib() {
  local bytes="$1" quarters rest hundredths cents
  _sg_is_uint "${bytes}" || return 1
  # In quarter GiB first (25 hundredths each): bytes * 100 could overflow.
  quarters=$((bytes / (_SG_GIB / 4)))
  rest=$((bytes % (_SG_GIB / 4)))
  hundredths=$((quarters * 25 + rest * 100 / _SG_GIB))
  cents=$((hundredths % 100))
  if ((cents == 0)); then
    printf '%d\n' "$((hundredths / 100))"
  elif ((cents % 10 == 0)); then
    printf '%d.%d\n' "$((hundredths / 100))" "$((cents / 10))"
  else
    printf '%d.%02d\n' "$((hundredths / 100))" "${cents}"
  fi
}

# Print GB decimal gigabytes as GiB (_sg_bytes_to_gib).
_sg_gb_to_gib() {
  local bytes
  bytes="$(_sg_gb_to_bytes "$1")" || return 1
  _sg_bytes_to_gib "${bytes}"
}
