#!/usr/bin/env bash
# Replays every openb workload with every given policy and seeds 42..51, one JSON line per run, then prints the
# mean unallocated GPU % at 100% arrival per (workload, policy) next to the paper authors' numbers.
#   bench/openb_sweep.sh [-o results.jsonl] [-w "default gpushare40"] [-s "42 43"] [-j 2] [-a "--defrag"] policy...
# -j runs that many replays at once (default 1); -a passes extra options to every replay (`--defrag` runs are
# summarised as "<policy>+defrag").
# Environment: TIDEPOOL_SIM (default build/bin/tidepool-sim), TIDEPOOL_DATA (default ../shared/data).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
sim="${TIDEPOOL_SIM:-$root/build/bin/tidepool-sim}"
data="${TIDEPOOL_DATA:-$root/../shared/data}/openb"
out="openb_sweep.jsonl"
workloads=""
seeds="42 43 44 45 46 47 48 49 50 51"
jobs=1
extra=""
usage() { echo "usage: $0 [-o results.jsonl] [-w workloads] [-s seeds] [-j jobs] [-a \"sim options\"] policy..." >&2; exit 2; }
while getopts "o:w:s:j:a:" opt; do
  case "$opt" in
    o) out="$OPTARG" ;;
    w) workloads="$OPTARG" ;;
    s) seeds="$OPTARG" ;;
    j) jobs="$OPTARG" ;;
    a) extra="$OPTARG" ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || usage
[ -x "$sim" ] || { echo "$0: no simulator at $sim (build first, or set TIDEPOOL_SIM)" >&2; exit 2; }
if [ -z "$workloads" ]; then
  workloads=$(cd "$data" && ls openb_pod_list_*.csv | sed 's/^openb_pod_list_//; s/\.csv$//')
fi
# One line per run; each run writes its own file so that parallel runs never interleave their output.
parts="$(mktemp -d)"
trap 'rm -rf "$parts"' EXIT
n=0
for w in $workloads; do
  for p in "$@"; do
    for s in $seeds; do
      n=$((n + 1))
      printf '%s\0' "$(printf '%06d' "$n") $w $p $s"
    done
  done
done | SIM="$sim" DATA="$data" PARTS="$parts" EXTRA="$extra" xargs -0 -P "$jobs" -n 1 bash -c '
  set -euo pipefail
  read -r i w p s <<< "$1"
  # shellcheck disable=SC2086
  "$SIM" openb --nodes "$DATA/openb_node_list_gpu_node.csv" --pods "$DATA/openb_pod_list_$w.csv" \
    --policy "$p" --seed "$s" --json $EXTRA > "$PARTS/$i.jsonl"' _
cat "$parts"/*.jsonl > "$out"
python3 "$here/openb_summary.py" "$out" "$data/unallocated_gpu_pct_at_arrival100.csv"
