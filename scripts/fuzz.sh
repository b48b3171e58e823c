#!/usr/bin/env bash
# Fuzzes the front ends with libFuzzer (fuzz/, cargo-fuzz layout).
#
#   scripts/fuzz.sh [bp|zing|all] [SECONDS] [--keep]
#
# Each target runs SECONDS (default 60) from a corpus seeded with the regression models, the
# examples and the inputs kept in lang/tests/corpus/TARGET (which lang/tests/corpus.rs feeds to
# the front end on every `cargo test`). --keep merges the inputs that reach new coverage into
# that kept corpus (edge coverage only, so that it stays small). A crash leaves its input in fuzz/artifacts/TARGET and exits non-zero.
# Uses `cargo fuzz` when installed, else builds the same instrumented binary with nightly
# cargo directly. Needs a nightly toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${1:-all}"
seconds="${2:-60}"
keep="${3:-}"
case "$target" in
    all) targets=(bp zing) ;;
    bp | zing) targets=("$target") ;;
    *) echo "usage: $0 [bp|zing|all] [SECONDS] [--keep]" >&2; exit 2 ;;
esac

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz: no nightly toolchain (rustup toolchain install nightly)" >&2
    exit 3
fi

triple="$(rustc -vV | sed -n 's/^host: //p')"
build() {
    local t="$1"
    if cargo fuzz --version >/dev/null 2>&1; then
        (cd fuzz && cargo +nightly fuzz build -O "$t") >&2
        echo "fuzz/target/$triple/release/$t"
        return
    fi
    # what cargo-fuzz passes: coverage counters, comparison tracing, AddressSanitizer
    RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Zsanitizer=address \
-Cdebug-assertions -Coverflow-checks" \
        cargo +nightly build --release --manifest-path fuzz/Cargo.toml \
        --target "$triple" --bin "$t" >&2
    echo "fuzz/target/$triple/release/$t"
}

status=0
for t in "${targets[@]}"; do
    exe="$(build "$t")"
    work="fuzz/corpus/$t"
    kept="lang/tests/corpus/$t"
    seeds="fuzz/seeds/$t"
    mkdir -p "$work" "$kept" "$seeds" "fuzz/artifacts/$t"
    # seed with every model of that language in the repository
    find regressions examples -name "*.$t" -exec cp -n {} "$seeds/" \; 2>/dev/null || true
    echo "== fuzzing $t for $seconds s" >&2
    if ! "$exe" "$work" "$kept" "$seeds" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
        -rss_limit_mb=2048 -artifact_prefix="fuzz/artifacts/$t/" -print_final_stats=1; then
        echo "fuzz: $t found a crash (fuzz/artifacts/$t/)" >&2
        status=1
    fi
    if [ "$keep" = "--keep" ]; then
        # edges only: the smallest set that covers every branch reached (a few hundred inputs)
        "$exe" -merge=1 -use_counters=0 -use_cmp=0 "$kept" "$work" >&2
    fi
done
exit $status
