#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer and AddressSanitizer, then runs each over its committed
# corpus for N seconds (default 30), or for a number of inputs with `--runs N` (e.g.
# `FUZZ_CONFIGURATION=release Fuzz/run.sh --runs 1000000`).
# New inputs go to a scratch copy, never into Fuzz/Corpus; a crash or broken invariant fails the run.
set -euo pipefail
cd "$(dirname "$0")"
budget=(-max_total_time="${1:-30}")
if [ "${1:-}" = "--runs" ]; then budget=(-runs="$2"); fi
# `--sanitize=fuzzer` alone instruments only the fuzz targets; the -Xswiftc flag gives Courier's
# own modules the coverage feedback libFuzzer needs to explore them.
flags=(--sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address)
# FUZZ_CONFIGURATION=release for long runs: optimized code runs ~10× more inputs a second;
# `-enable-testing` keeps the targets' `@testable import` working.
if [ "${FUZZ_CONFIGURATION:-debug}" = "release" ]; then flags+=(-c release -Xswiftc -enable-testing); fi
# Swift's own crash backtracer and ASan's both claim a crash; under CI the backtracer can wait
# forever. libFuzzer + ASan report it.
export SWIFT_BACKTRACE=enable=no
seconds="${1:-30}"; if [ "${1:-}" = "--runs" ]; then seconds=600; fi
swift build "${flags[@]}" 2>&1 | tail -1
bin=$(swift build "${flags[@]}" --show-bin-path)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for corpus in Corpus/*/; do
    target=$(basename "$corpus")
    mkdir -p "$scratch/$target"
    cp -R "$corpus." "$scratch/$target/"
    echo "== $target"
    # A hang anywhere (even in a crash handler) fails this target instead of stalling CI.
    status=0
    timeout -k 10 $((seconds + 60)) "$bin/$target" "$scratch/$target" "${budget[@]}" -timeout=5 -rss_limit_mb=2048 \
        -artifact_prefix="$scratch/$target-" -print_final_stats=1 >"$scratch/$target.log" 2>&1 || status=$?
    grep -E "^stat::number_of_executed_units|^stat::average_exec_per_sec|Done|ERROR|invariant|SUMMARY" "$scratch/$target.log" || true
    if [ "$status" -ne 0 ] || ls "$scratch/$target-"* >/dev/null 2>&1; then
        echo "$target failed (exit $status):"; ls "$scratch/$target-"* 2>/dev/null || true
        exit 1
    fi
done
