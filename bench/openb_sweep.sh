#!/usr/bin/env bash
# Replays every openb workload with every given policy and seeds 42..51, one JSON line per run, then prints the
# mean unallocated GPU % at 100% arrival per (workload, policy) next to the paper authors' numbers.
#   bench/openb_sweep.sh [-o results.jsonl] [-w "default gpushare40"] [-s "42 43"] policy...
# Environment: TIDEPOOL_SIM (default build/bin/tidepool-sim), TIDEPOOL_DATA (default ../shared/data).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
sim="${TIDEPOOL_SIM:-$root/build/bin/tidepool-sim}"
data="${TIDEPOOL_DATA:-$root/../shared/data}/openb"
out="openb_sweep.jsonl"
workloads=""
seeds="42 43 44 45 46 47 48 49 50 51"
while getopts "o:w:s:" opt; do
  case "$opt" in
    o) out="$OPTARG" ;;
    w) workloads="$OPTARG" ;;
    s) seeds="$OPTARG" ;;
    *) echo "usage: $0 [-o results.jsonl] [-w workloads] [-s seeds] policy..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-o results.jsonl] [-w workloads] [-s seeds] policy..." >&2; exit 2; }
[ -x "$sim" ] || { echo "$0: no simulator at $sim (build first, or set TIDEPOOL_SIM)" >&2; exit 2; }
if [ -z "$workloads" ]; then
  workloads=$(cd "$data" && ls openb_pod_list_*.csv | sed 's/^openb_pod_list_//; s/\.csv$//')
fi
: > "$out"
for w in $workloads; do
  for p in "$@"; do
    for s in $seeds; do
      "$sim" openb --nodes "$data/openb_node_list_gpu_node.csv" --pods "$data/openb_pod_list_$w.csv" \
        --policy "$p" --seed "$s" --json >> "$out"
    done
  done
done
python3 "$here/openb_summary.py" "$out" "$data/unallocated_gpu_pct_at_arrival100.csv"
