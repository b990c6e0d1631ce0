#!/usr/bin/env bash
# Kokkos' own DualView unit tests, compiled UNCHANGED against dualview's
# Kokkos-named headers, in one "form" (the TEST_EXECSPACE they run with):
#   serial      Kokkos::Serial (one memory space: host only)
#   testdevice  Kokkos::TestDevice (two spaces; syncs copy for real, no GPU)
#   cuda        Kokkos::Cuda (nvcc; device lambdas write d_view on the GPU)
#
# usage: tests/kokkos_unit/run.sh FORM KOKKOS_SRC [OUT_DIR]
#   KOKKOS_SRC: a kokkos/kokkos source tree (containers/unit_tests and
#   core/unit_test/tools/include are read; nothing of it is copied here).
# Environment: DV_LIB_DIR (libdualview.so, default target/release), CXX / NVCC,
# GTEST_ROOT (a prefix with include/gtest and lib/libgtest.a, default /usr).
#
# The tests run: every TEST of TestDualView.hpp, the four DualView TESTs of
# TestWithoutInitializing.hpp (the file's preamble is kept, minus the includes
# of containers dualview does not provide: DynRankView, DynamicView,
# OffsetView, ScatterView), and TestDualViewParameterPack.cpp (compile-time).
# Only kokkos_standin.hpp (parallel_for, policies, atomics) is not dualview.
# Errors abort, as in Kokkos (DUALVIEW_ABORT_ON_ERROR), for the death test.
# Then they run again under DV_CHECK=1 (checked mode: no false alarm).
set -euo pipefail
FORM=${1:?form: serial, testdevice or cuda}
K=${2:?path to a kokkos source tree}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
B=${3:-$ROOT/build/kokkos_unit/$FORM}
LIB=${DV_LIB_DIR:-$ROOT/target/release}
GT=${GTEST_ROOT:-/usr}
GTLIB=$( (ls "$GT"/lib/libgtest.a "$GT"/lib/*/libgtest.a 2>/dev/null || true) | head -1)
[ -n "$GTLIB" ] || { echo "no libgtest.a under $GT/lib" >&2; exit 2; }
U=$K/containers/unit_tests
mkdir -p "$B/inc/a/b" "$B/inc/core/unit_test/tools/include"
case $FORM in
  serial) EX=Kokkos::Serial CAT=serial ;;
  testdevice) EX=Kokkos::TestDevice CAT=test_device ;;
  cuda) EX=Kokkos::Cuda CAT=cuda ;;
  *) echo "unknown form $FORM" >&2; exit 2 ;;
esac
cp "$K/core/unit_test/tools/include/ToolTestingUtilities.hpp" "$B/inc/core/unit_test/tools/include/"
python3 - "$U/TestWithoutInitializing.hpp" "$B/TestWithoutInitializing_DualView.hpp" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
head = s[:s.index('TEST(')]
head = re.sub(r'#include <Kokkos_(DynRankView|DynamicView|OffsetView|ScatterView)\.hpp>\n', '', head)
tests = re.findall(r'(TEST\(TEST_CATEGORY, \w*dualview\w*\) \{.*?\n\})', s, re.S)
open(sys.argv[2], 'w').write(head + '\n\n'.join(tests) + '\n')
print(f"{len(tests)} DualView tests taken from TestWithoutInitializing.hpp", file=sys.stderr)
PY
cat > "$B/main.cpp" <<EOT
#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  int r = RUN_ALL_TESTS();
  Kokkos::finalize();
  return r;
}
EOT
printf '#define TEST_CATEGORY %s\n#define TEST_CATEGORY_DEATH %s_DeathTest\n#define TEST_EXECSPACE %s\n#include <TestDualView.hpp>\n' "$CAT" "$CAT" "$EX" > "$B/dualview_tests.cpp"
printf '#define TEST_CATEGORY %s\n#define TEST_EXECSPACE %s\n#include <TestWithoutInitializing_DualView.hpp>\n' "$CAT" "$EX" > "$B/noinit_tests.cpp"
printf '#include <TestDualViewParameterPack.cpp>\n' > "$B/compile_only.cpp"
INC="-I$ROOT/include -I$ROOT/include/dualview/kokkos -I$U -I$B -I$B/inc/a/b -I$GT/include"
DEF="-DDUALVIEW_ABORT_ON_ERROR"
if [ "$FORM" = cuda ]; then
  CC="${NVCC:-nvcc} -std=c++17 -x cu --extended-lambda -arch=${CUDA_ARCH:-sm_90} -Xcompiler -Wall"
  LINK="${NVCC:-nvcc} -arch=${CUDA_ARCH:-sm_90}"
else
  CC="${CXX:-g++} -std=c++17 -Wall -Wextra"
  LINK="${CXX:-g++}"
fi
for f in main dualview_tests noinit_tests compile_only; do
  $CC $DEF $INC -include "$HERE/kokkos_standin.hpp" -c "$B/$f.cpp" -o "$B/$f.o"
done
$LINK "$B"/*.o -L"$LIB" -ldualview "$GTLIB" -lpthread -Xlinker -rpath -Xlinker "$LIB" -o "$B/kokkos_dualview_tests" 2>/dev/null ||
  $LINK "$B"/*.o -L"$LIB" -ldualview "$GTLIB" -lpthread -Wl,-rpath,"$LIB" -o "$B/kokkos_dualview_tests"
"$B/kokkos_dualview_tests"
# Again in checked mode (issue 20): Kokkos' own tests are correct programs, so no alarm.
echo "== the same tests under DV_CHECK=1"
DV_CHECK=1 "$B/kokkos_dualview_tests"
