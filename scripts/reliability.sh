#!/usr/bin/env bash
# Reliability checks of dualview (docs/RELIABILITY.md), on a fresh Debian
# machine as root: installs what it needs, then runs
#   1. the Rust reliability tests: thread stress, injected allocation
#      failures, the fuzz corpus replay, random C ABI programs against the
#      oracle of what the program wrote (tests/common/oracle.rs), and the
#      bad-input table of docs/RELIABILITY.md;
#   2. the libFuzzer target fuzz/fuzz_targets/c_abi.rs for 60 s (AddressSanitizer);
#   3. the C, C++ and Fortran tests and examples under AddressSanitizer + UBSan
#      (a second CMake build directory, build/asan);
#   4. Miri on the unit tests that exercise unsafe code, and on C ABI programs;
#   5. ThreadSanitizer on the stress test.
# A step that cannot run says SKIPPED and why; any report fails the script.
# Builds are cached under target/ (and build/asan), so a second run is quick.
#
# Environment: DV_FUZZ_SECONDS (60), DV_RELIABILITY_STEPS (e.g. "1 2"; all by default).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export CARGO_TERM_COLOR=never
STEPS="${DV_RELIABILITY_STEPS:-1 2 3 4 5}"
FUZZ_SECONDS="${DV_FUZZ_SECONDS:-60}"
TRIPLE=x86_64-unknown-linux-gnu
declare -a SUMMARY=()

apt_install() {
    local missing=()
    for pkg in "$@"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

step_begin() {
    STEP_NAME="$1"
    STEP_START=$SECONDS
    echo
    echo "== $STEP_NAME"
}
step_end() {
    local t=$((SECONDS - STEP_START))
    SUMMARY+=("$(printf '%-58s %5ss  %s' "$STEP_NAME" "$t" "$1")")
}
wants() { [[ " $STEPS " == *" $1 "* ]]; }

# ---- tools ---------------------------------------------------------------------
apt_install build-essential cmake gcc g++ gfortran clang llvm libclang-rt-14-dev libasan8 libubsan1 \
    pkgconf libgtest-dev libopenmpi-dev openmpi-bin libtrilinos-kokkos-dev curl ca-certificates
if ! command -v cargo >/dev/null 2>&1; then
    apt_install cargo rustc
fi
NIGHTLY=""
if command -v rustup >/dev/null 2>&1; then
    if ! rustup run nightly rustc --version >/dev/null 2>&1; then
        rustup toolchain install nightly --profile minimal --component miri,rust-src >/dev/null 2>&1 || true
    fi
    if rustup run nightly rustc --version >/dev/null 2>&1; then
        rustup component add --toolchain nightly miri rust-src >/dev/null 2>&1 || true
        NIGHTLY=nightly
    fi
fi
[ -n "$NIGHTLY" ] && echo "nightly: $(rustup run nightly rustc --version)" \
    || echo "no nightly Rust toolchain (rustup could not install one): fuzzing, Miri and ThreadSanitizer will be SKIPPED"
has_component() { rustup component list --toolchain nightly --installed 2>/dev/null | grep -q "^$1"; }

# ---- 1. Rust reliability tests --------------------------------------------------
if wants 1; then
    step_begin "1. cargo test: stress, alloc_failures, reliability"
    nice cargo test --test stress --test alloc_failures --test reliability -- --nocapture 2>&1 | grep -vE '^\s*$' | tail -40
    step_end "passed"
fi

# ---- 2. fuzzing -------------------------------------------------------------------
if wants 2; then
    step_begin "2. libFuzzer c_abi, ${FUZZ_SECONDS} s (ASan)"
    if [ -z "$NIGHTLY" ]; then
        echo "SKIPPED: no nightly toolchain (-Zsanitizer and libFuzzer need it)"
        step_end "SKIPPED (no nightly)"
    else
        # cargo-fuzz's flags (`cargo fuzz build c_abi`), without installing cargo-fuzz;
        # the coverage flags are fuzz/Cargo.toml's, on the library only (the harness's
        # own comparisons cost half of each execution and guide nothing).
        export RUSTFLAGS="--cfg fuzzing -Zsanitizer=address -Cdebug-assertions -Coverflow-checks -Cforce-frame-pointers"
        # Into fuzz/target, where BIN is read, whatever CARGO_TARGET_DIR says.
        (cd fuzz && CARGO_TARGET_DIR="$ROOT/fuzz/target" nice cargo +nightly build --release --target $TRIPLE --bin c_abi)
        unset RUSTFLAGS
        BIN="fuzz/target/$TRIPLE/release/c_abi"
        WORK=fuzz/target/corpus-work
        mkdir -p "$WORK" fuzz/artifacts/c_abi
        # New inputs go to the work corpus; the committed seeds are read only.
        ASAN_OPTIONS=malloc_context_size=5 DV_SYSTEM_ALLOCATOR=1 nice "$BIN" -max_total_time="$FUZZ_SECONDS" \
            -max_len=320 -print_final_stats=1 -artifact_prefix=fuzz/artifacts/c_abi/ "$WORK" fuzz/corpus/c_abi \
            2>&1 | tee fuzz/target/last-run.log | grep -E '^#[0-9]+ +(INITED|DONE)|stat::|ERROR|panicked|SUMMARY' || true
        execs=$(grep -E 'stat::number_of_executed_units' fuzz/target/last-run.log | awk '{print $2}')
        if grep -qE 'ERROR: libFuzzer|ERROR: AddressSanitizer|panicked' fuzz/target/last-run.log; then
            echo "FINDING: see fuzz/target/last-run.log and fuzz/artifacts/c_abi/"
            step_end "FAILED: a finding"
            exit 1
        fi
        step_end "no finding, ${execs:-?} executions"
    fi
fi

# ---- 3. C, C++ and Fortran under ASan + UBSan ---------------------------------------
if wants 3; then
    step_begin "3. ctest under AddressSanitizer + UBSan (build/asan)"
    SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
    # The Rust library is not instrumented: the default preset's release build of it (same profile
    # and features) serves here too, when the normal ctest ran first (scripts/test.sh). The C, C++
    # and Fortran programs at -O0: the sanitizers see the same errors, and g++ compiles the
    # instrumented gtest and Kokkos programs several times faster (one: 10.7 s against 28.7 at -O1).
    CARGO_DIR=()
    [ -f build/default/cargo/release/libdualview.so ] && CARGO_DIR=(-DDUALVIEW_CARGO_DIR="$ROOT/build/default/cargo")
    nice cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Release -DDUALVIEW_BUILD_TESTS=ON -DDUALVIEW_VALGRIND=OFF "${CARGO_DIR[@]}" \
        -DCMAKE_C_FLAGS_RELEASE="-O0 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O0 -DNDEBUG" -DCMAKE_Fortran_FLAGS_RELEASE="-O0" \
        -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ -DCMAKE_Fortran_COMPILER=gfortran \
        -DCMAKE_C_FLAGS="$SAN" -DCMAKE_CXX_FLAGS="$SAN" -DCMAKE_Fortran_FLAGS="$SAN" \
        -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
        >build-asan-configure.log 2>&1 || { tail -30 build-asan-configure.log; exit 1; }
    nice cmake --build build/asan -j 2 >build-asan-build.log 2>&1 || { tail -40 build-asan-build.log; exit 1; }
    rm -f build-asan-configure.log build-asan-build.log
    # Every report is an error: leaks (LSan), invalid accesses (ASan), UB (UBSan).
    export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    export LSAN_OPTIONS="suppressions=$ROOT/tests/reliability/lsan.supp:print_suppressions=0"
    # OpenMPI's launcher cannot run as root without these (as in the normal ctest).
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # Not run here, each for its reason (the normal ctest runs them):
    # - docs.complete_programs and consumer.*: they compile programs of their
    #   own without these flags and link the instrumented Fortran library, which
    #   cannot work; they check packaging and documentation, not run-time behaviour;
    # - cpp.header_hygiene.* and fortran.module_up_to_date: compile-only and
    #   file checks, nothing instrumented runs;
    # - c.checker.valgrind_*: runs valgrind, which cannot run ASan binaries;
    # - cuda.compile_*: nvcc compiles the CUDA programs without these flags and runs nothing.
    EXCLUDE='^(docs\.complete_programs|consumer\.|cpp\.header_hygiene|fortran\.module_up_to_date|c\.checker\.valgrind|cuda\.compile_)'
    if (cd build/asan && ctest --output-on-failure -j 2 -E "$EXCLUDE" >../../ctest-asan.log 2>&1); then
        tail -3 ctest-asan.log
        n=$(grep -E 'tests passed' ctest-asan.log | tail -1)
        if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' ctest-asan.log; then
            grep -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' ctest-asan.log | head
            step_end "FAILED: sanitizer report"
            exit 1
        fi
        rm -f ctest-asan.log
        step_end "passed, zero reports ($n)"
    else
        grep -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|\*\*\*Failed|Failed|Not Run' ctest-asan.log | head -30
        tail -25 ctest-asan.log
        step_end "FAILED (ctest-asan.log)"
        exit 1
    fi
    unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
fi

# ---- 4. Miri --------------------------------------------------------------------------
if wants 4; then
    step_begin "4. Miri: unit tests with unsafe code, C ABI programs"
    if [ -z "$NIGHTLY" ] || ! has_component miri || ! has_component rust-src; then
        echo "SKIPPED: Miri needs the nightly toolchain with the miri and rust-src components"
        step_end "SKIPPED (no miri)"
    else
        export CARGO_TARGET_DIR="$ROOT/target/miri"
        mkdir -p "$CARGO_TARGET_DIR"
        nice cargo +nightly miri setup >/dev/null 2>&1
        miri_run() { # log, cargo miri test arguments...
            local log="$CARGO_TARGET_DIR/$1"
            shift
            if ! MIRIFLAGS="-Zmiri-disable-isolation" nice cargo +nightly miri test "$@" >"$log" 2>&1; then
                grep -E -B2 -A30 'Undefined Behavior|panicked|^error' "$log" | head -60
                step_end "FAILED ($log)"
                exit 1
            fi
            grep -E '^test |test result' "$log"
        }
        # The unit tests of the unsafe parts: flags, borrows, regions, the panic
        # boundary and status table, the test device. The three host-allocator
        # tests touch 256 KiB to 64 MiB byte by byte: minutes each under Miri
        # (host allocation is exercised by the C ABI programs below instead).
        miri_run lib.log --lib -- dual_view:: ffi:: memory::device::drivers::fake:: typed::
        # The Rust guards: indexing, slices, iterators over strided views, typed
        # subviews, disjoint mutable borrows (from two threads).
        miri_run rust_api.log --test rust_api
        # Handles, layouts, subviews, host and test-device copies, resize and the
        # allocation registry through the C ABI: fixed programs of the fuzz engine.
        miri_run abi.log --test reliability miri_
        unset CARGO_TARGET_DIR
        step_end "no Undefined Behavior"
    fi
fi

# ---- 5. ThreadSanitizer -------------------------------------------------------------------
if wants 5; then
    step_begin "5. ThreadSanitizer: tests/stress.rs"
    if [ -z "$NIGHTLY" ] || ! has_component rust-src; then
        echo "SKIPPED: ThreadSanitizer needs the nightly toolchain with rust-src (-Zbuild-std)"
        step_end "SKIPPED (no nightly rust-src)"
    else
        export CARGO_TARGET_DIR="$ROOT/target/tsan"
        export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
        if RUSTFLAGS="-Zsanitizer=thread" RUSTDOCFLAGS="-Zsanitizer=thread" nice cargo +nightly test -Zbuild-std \
            --target $TRIPLE --test stress -- --nocapture >target/tsan.log 2>&1; then
            grep -E 'threads,|test result' target/tsan.log | cut -c1-160
            if grep -q 'WARNING: ThreadSanitizer' target/tsan.log; then
                step_end "FAILED: ThreadSanitizer report (target/tsan.log)"
                exit 1
            fi
            step_end "zero reports"
        else
            grep -E -A25 'WARNING: ThreadSanitizer|panicked|error(\[|:)' target/tsan.log | head -60
            step_end "FAILED (target/tsan.log)"
            exit 1
        fi
        unset CARGO_TARGET_DIR TSAN_OPTIONS
    fi
fi

echo
echo "== summary (step, seconds, result)"
for line in "${SUMMARY[@]}"; do echo "$line"; done
echo "reliability checks passed"
