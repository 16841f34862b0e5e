#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer and AddressSanitizer, then runs each over its committed
# corpus for N seconds (default 30), or for a number of inputs with `--runs N`.
# New inputs go to a scratch copy, never into Fuzz/Corpus; a crash or broken invariant fails the run.
set -euo pipefail
cd "$(dirname "$0")"
budget=(-max_total_time="${1:-30}")
if [ "${1:-}" = "--runs" ]; then budget=(-runs="$2"); fi
# `--sanitize=fuzzer` alone instruments only the fuzz targets; the -Xswiftc flag gives Courier's
# own modules the coverage feedback libFuzzer needs to explore them.
flags=(--sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address)
swift build "${flags[@]}" 2>&1 | tail -1
bin=$(swift build "${flags[@]}" --show-bin-path)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for corpus in Corpus/*/; do
    target=$(basename "$corpus")
    mkdir -p "$scratch/$target"
    cp -R "$corpus." "$scratch/$target/"
    echo "== $target"
    "$bin/$target" "$scratch/$target" "${budget[@]}" -timeout=5 -rss_limit_mb=2048 \
        -artifact_prefix="$scratch/$target-" -print_final_stats=1 2>&1 | grep -E "^stat::number_of_executed_units|^stat::average_exec_per_sec|Done|ERROR|invariant|SUMMARY" || true
    if ls "$scratch/$target-"* >/dev/null 2>&1; then
        echo "$target found a failing input:"; ls "$scratch/$target-"*
        exit 1
    fi
done
