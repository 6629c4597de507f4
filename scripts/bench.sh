#!/usr/bin/env bash
# bench: the lifecycle and sampling benchmarks in one go test run, then a table
# computed from that run's numbers (scripts/benchtable), then benchstat if it
# is on PATH.
#
#   scripts/bench.sh [OUT]     raw output to OUT (default bench.txt)
#
# BENCHTIME (default 1.5s) and COUNT (default 6: benchstat needs 6 counts for a
# confidence interval) override the go test flags; GOAL (default 1.10) is the
# harness-fixed/bare ratio the table judges. BenchmarkProfileCost (engine/goengine) puts
# rocksleak run --profile's lifecycle rate beside the unprofiled one (goal ≤ 1.3×),
# about 20 s per count. About 5 minutes on 2 cores.
set -euo pipefail

out=${1:-bench.txt}
case $out in /*) ;; *) out=$PWD/$out ;; esac
cd "$(dirname "$0")/.."

GO=${GO:-go}
benchtime=${BENCHTIME:-1.5s}
count=${COUNT:-6}
goal=${GOAL:-1.10}

cmd=("$GO" test -run '^$' -bench 'Lifecycle|Sample|ProfileCost' -benchtime="$benchtime" -count="$count" -timeout 30m
	./lifecycle/ ./engine/goengine/ ./measure/)
echo "${cmd[*]}" >&2
"${cmd[@]}" | tee "$out"
echo
"$GO" run ./scripts/benchtable -goal "$goal" "$out"
if command -v benchstat >/dev/null 2>&1; then
	echo
	benchstat "$out"
fi
