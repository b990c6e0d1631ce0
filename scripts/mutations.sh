#!/usr/bin/env bash
# Proves the oracles are not blind: each patch in tests/mutations/ breaks a
# rule (the 0.3 copy at modify; a box cap that coarsens the coherence map;
# a staged copy whose completion does not unpack; a resize that copies stale
# elements; a recycled host block zeroed only in part; with_kokkos' Kokkos Views
# that do not hold their blocks, space arguments named by memory space alone, a
# subview with a state of its own, a resize that holds copies of the views, a
# pipelined pageable copy that does not wait for a chunk's copy, a lane of a copy to the
# host that unpacks a piece before its copy has run, a grown mirror
# registered by its first large copy, a churning mirror freed while it registers released
# instead of kept, a tiny sync to the device that returns before its copy lands, a
# freed device slot handed out as zeroed without being zeroed), and
# the tests it names on its first line (`# tests: --test engine`; by default the
# model test and the fuzz engine's test; `# run: <command>` for a command other
# than cargo test) must then fail within their normal runs. The tree is restored
# after each patch. Prints one line a patch. A patch whose tests do not build (cargo
# test --no-run fails, or a `# run:` command exits 3: tests/with_kokkos/quick.sh's "did
# not compile") is an error, not a catch: it proves nothing about the oracle.
#
#   bash scripts/mutations.sh            # every patch
#   bash scripts/mutations.sh copy-at-modify
set -euo pipefail
cd "$(dirname "$0")/.."
TESTS=(--test model --test reliability)
status=0
for patch in tests/mutations/*.patch; do
    name="$(basename "$patch" .patch)"
    [ $# -gt 0 ] && [[ " $* " != *" $name "* ]] && continue
    read -ra tests <<< "$(sed -n '1s/^# tests: //p' "$patch")"
    [ ${#tests[@]} -gt 0 ] || tests=("${TESTS[@]}")
    run="$(sed -n '1s/^# run: //p' "$patch")"
    if ! git apply "$patch" 2>/dev/null; then
        echo "MUTATION $name: ERROR (the patch no longer applies to this tree: regenerate it)"
        status=1
        continue
    fi
    log="$(mktemp)"
    if [ -n "$run" ]; then cmd=(bash -c "$run"); else cmd=(cargo test -q "${tests[@]}"); fi
    rc=0
    if [ -z "$run" ] && ! cargo test -q --no-run "${tests[@]}" >"$log" 2>&1; then
        rc=build
    else
        "${cmd[@]}" >"$log" 2>&1 || rc=$?
        [ -n "$run" ] && [ "$rc" = 3 ] && rc=build
    fi
    if [ "$rc" = build ]; then
        echo "MUTATION $name: ERROR (the patched tree does not build: $(grep -m1 -E '^error|did not compile' "$log" || echo 'see the log'))"
        status=1
    elif [ "$rc" = 0 ] && [ -z "$run" ] && ! grep -qE "test result: ok\. [1-9][0-9]* passed" "$log"; then
        # A filter that matches no test passes: name it, do not call the mutation uncaught or caught.
        echo "MUTATION $name: ERROR (its tests ran nothing: does '${tests[*]}' still name tests?)"
        status=1
    elif [ "$rc" = 0 ]; then
        echo "MUTATION $name: NOT CAUGHT (the tests passed with the rule broken)"
        status=1
    else
        caught="$(grep -m1 -oE "thread '[a-z_]+'|FAILED \[[a-z_]+\]: [^(]*" "$log" | sed "s/thread //; s/'//g" || true)"
        detail="$(grep -m1 -oE "(round [0-9]+ step [0-9]+ [A-Za-z]+\([^)]*\): )?[a-z]+ side at \[[0-9, ]+\]: the ledger's value" "$log" || true)"
        echo "MUTATION $name: caught by ${caught:-a failing test}${detail:+ ($detail)}"
    fi
    git apply -R "$patch"
    rm -f "$log"
done
exit $status
