# Sourced by scripts/lammps-check.sh: the steps. Uses its ROOT, SRC_IN, WORK,
# CACHE, OUT, JOBS, NSTEPS, REPEAT, SUMMARY, note and fail.

# The switch (docs/LAMMPS.md "The switch"): dualview's DualView for Kokkos'.
# kokkos_type.h gets the include and its aliases; "full" also switches every
# Kokkos::DualView spelt out elsewhere in src/KOKKOS.
LAMMPS_SWITCH_INCLUDE='s|(#include <Kokkos_DualView.hpp>\n)|$1#include <dualview/with_kokkos.hpp>\n|'
LAMMPS_SWITCH_TYPES='s/Kokkos::\s*DualView</dv::with_kokkos::DualView</g'
# The KOKKOS files the syntax step compiles (docs/LAMMPS.md lists them).
LAMMPS_SYNTAX_FILES="atom_kokkos.cpp atom_vec_atomic_kokkos.cpp atom_vec_full_kokkos.cpp comm_kokkos.cpp
  neighbor_kokkos.cpp npair_kokkos.cpp verlet_kokkos.cpp pair_lj_cut_kokkos.cpp pair_eam_kokkos.cpp
  pair_lj_charmm_coul_long_kokkos.cpp pppm_kokkos.cpp fix_shake_kokkos.cpp bond_fene_kokkos.cpp"

# LIB: a directory with libdualview.so under its own name and its SONAME.
lammps_libdualview() {
  local lib=${DV_LIB_DIR:-$ROOT/target/release}
  # A GPU machine has no Rust: the library scripts/gpu-prepare.sh put in .gpu/lib.
  [ -z "${DV_LIB_DIR:-}" ] && [ ! -f "$lib/libdualview.so" ] && [ -f "$ROOT/.gpu/lib/libdualview.so" ] && lib=$ROOT/.gpu/lib
  if [ ! -f "$lib/libdualview.so" ] && [ -z "${DV_LIB_DIR:-}" ] && command -v cargo >/dev/null; then
    note "building libdualview.so (cargo rustc --release --lib --crate-type cdylib,staticlib)"
    (cd "$ROOT" && cargo rustc --quiet --release --lib --crate-type cdylib,staticlib) || { echo "FAIL: libdualview.so did not build"; exit 1; }
  fi
  . "$ROOT/scripts/lib/dvlib.sh"
  local out=$OUT  # dvlib_links sets OUT
  dvlib_links "$lib" "$CACHE"
  OUT=$out
  # Binaries built on another machine (cuda-build) find the library here too.
  export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

# The CUDA binaries the cuda-build step archived (.lammps/lmp-cuda.tar.xz and
# .lammps/test_pair_style-cuda.tar.xz), for a GPU machine: each unpacked into
# $CACHE/bin unless its binaries are there.
lammps_cuda_binaries() {
  local kind a sum
  for kind in lmp test_pair_style; do
    a=$ROOT/.lammps/$kind-cuda.tar.xz
    [ -f "$a" ] || continue
    sum=$(sha1sum "$a" | cut -c1-12)
    [ "$(cat "$CACHE/bin/$kind-cuda.from" 2>/dev/null)" = "$sum" ] && continue
    mkdir -p "$CACHE/bin" && tar xJf "$a" -C "$CACHE/bin" && echo "$sum" >"$CACHE/bin/$kind-cuda.from" &&
      note "CUDA binaries from $a (built by cuda-build)"
  done
  # The force-style tests look for their inputs where they were built: that path, made to
  # lead to this copy's when it is not there.
  local inputs lib
  inputs=$(cat "$CACHE/bin/test_pair_style.inputs" 2>/dev/null)
  if [ -n "$inputs" ] && [ ! -e "$inputs" ]; then
    mkdir -p "$(dirname "$inputs")" && ln -s "$WORK/unittest/force-styles/tests" "$inputs" &&
      note "$inputs -> $WORK/unittest/force-styles/tests (the test binaries' inputs)"
  fi
  # The shared libraries they were linked with: only those this machine lacks stay (a
  # directory in LD_LIBRARY_PATH comes before the machine's own for every program).
  [ -d "$CACHE/bin/lib" ] || return 0
  local known
  known=$("$(command -v ldconfig || echo /sbin/ldconfig)" -p 2>/dev/null | awk '{print $1}')
  [ -n "$known" ] || echo "note: no ldconfig: every bundled library is used"
  for lib in "$CACHE"/bin/lib/*; do
    [ -e "$lib" ] && grep -qxF "$(basename "$lib")" <<<"$known" && rm -f "$lib"
  done
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$CACHE/bin/lib"
  return 0
}

# Copy into $2 the shared libraries binary $1 loads that a GPU machine may lack (libyaml,
# libjpeg, libpng, the CUDA runtime, ...): all but the C and C++ runtimes, the CUDA driver
# and libdualview, which the machine brings.
lammps_bundle_libs() {
  mkdir -p "$2"
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
    grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libstdc\+\+|libgcc_s|libcuda|libdualview)\.so' |
    xargs -r cp -L -t "$2"
  # The CUDA runtime, which the loader finds only beside nvcc here.
  local rt
  for rt in $(ldd "$1" | awk '$3 == "not" && $1 ~ /^libcudart/ {print $1}'); do
    local d=$(dirname "$(command -v nvcc)")/..
    cp -L "$d/lib/$rt" "$2/" 2>/dev/null || cp -L "$d/lib64/$rt" "$2/" || echo "note: $rt not found beside nvcc: not bundled"
  done
}

# Whether the tree $1 was configured with LAMMPS' unit tests.
lammps_has_tests() { grep -q '^ENABLE_TESTING:BOOL=\(yes\|ON\|on\)$' "$1/CMakeCache.txt" 2>/dev/null; }

# Whether variant $2 of back end $1 needs a build (no binary for these headers; $3 =
# test_pair_style: its force-style test binary).
lammps_stale() {
  local bin=$CACHE/bin/${3:-lmp}-$1-$2 stamp
  stamp=$([ "$2" = stock ] && echo stock || lammps_headers_stamp)
  ! { [ -x "$bin" ] && [ "$(cat "$bin.stamp" 2>/dev/null)" = "$stamp" ]; }
}

# WORK: a copy of LAMMPS_SRC's parts a build needs, made once per source tree.
lammps_copy_source() {
  if [ "$(cat "$WORK/.from" 2>/dev/null)" = "$SRC_IN" ]; then return; fi
  note "copying $SRC_IN into $WORK (once)"
  rm -rf "$WORK" && mkdir -p "$WORK/lib" "$WORK/examples"
  local d
  for d in cmake src bench unittest potentials fortran lib/kokkos examples/peptide; do
    [ -e "$SRC_IN/$d" ] && cp -a "$SRC_IN/$d" "$WORK/$d"
  done
  echo "$SRC_IN" >"$WORK/.from"
}

# Whether src/KOKKOS/$1 (pristine) names Kokkos::DualView.
lammps_names_dualview() { perl -0ne 'exit(/Kokkos::\s*DualView</ ? 0 : 1)' "$SRC_IN/src/KOKKOS/$1"; }

# Print src/KOKKOS/$2 as variant $1 has it (stock, switched, full).
lammps_variant_text() {
  local variant=$1 f=$2 pristine="$SRC_IN/src/KOKKOS/$2"
  if [ "$variant" = stock ] || { [ "$variant" = switched ] && [ "$f" != kokkos_type.h ]; }; then
    cat "$pristine"
  elif [ "$f" = kokkos_type.h ]; then
    perl -0pe "$LAMMPS_SWITCH_INCLUDE; $LAMMPS_SWITCH_TYPES" "$pristine"
  else
    perl -0pe "$LAMMPS_SWITCH_TYPES" "$pristine"
  fi
}

# Make DIR/*.{h,cpp} hold variant $1 of src/KOKKOS, rewriting only the files that
# differ (so that make rebuilds only what the switch touches).
lammps_switch() {
  local variant=$1 dir=${2:-$WORK/src/KOKKOS} f n=0 tmp
  tmp=$(mktemp)
  for f in $(cd "$SRC_IN/src/KOKKOS" && ls -- *.h *.cpp); do
    lammps_names_dualview "$f" || continue
    lammps_variant_text "$variant" "$f" >"$tmp"
    if ! cmp -s "$tmp" "$dir/$f"; then
      cp "$tmp" "$dir/$f"
      n=$((n + 1))
    fi
  done
  rm -f "$tmp"
  echo "$variant: $n files of src/KOKKOS rewritten"
}

# The variant src/KOKKOS of WORK holds now (stock, switched or full).
lammps_tree_variant() {
  local v f other
  # kokkos_type.h tells stock from switched; another file naming Kokkos::DualView, switched from full.
  for f in $(cd "$SRC_IN/src/KOKKOS" && ls -- *.cpp); do lammps_names_dualview "$f" && other=$f && break; done
  for v in full switched stock; do
    for f in kokkos_type.h ${other:-}; do
      lammps_variant_text "$v" "$f" | cmp -s - "$WORK/src/KOKKOS/$f" || continue 2
    done
    echo "$v"
    return
  done
}

# The stamp a switched binary is valid for: dualview's C++ headers (the stock
# binary depends on LAMMPS alone).
lammps_headers_stamp() { (cd "$ROOT/include" && find . -name '*.hpp' -o -name '*.h' | LC_ALL=C sort | xargs cat) | sha1sum | cut -c1-12; }

# Configure build tree $CACHE/build-$1 once.
lammps_configure() {
  local backend=$1 dir=$CACHE/build-$1
  [ -f "$dir/CMakeCache.txt" ] && return 0
  local flags=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DBUILD_MPI=no -DPKG_KOKKOS=yes -DPKG_MOLECULE=yes
    -DPKG_MANYBODY=yes -DPKG_KSPACE=yes -DPKG_RIGID=yes -DFFT=KISS -DDOWNLOAD_POTENTIALS=no
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "-DCMAKE_CXX_FLAGS=-I$ROOT/include"
    "-DCMAKE_CXX_STANDARD_LIBRARIES=-L$LIB -Wl,-rpath,$LIB -ldualview")
  case $backend in
  serial | syntax) flags+=(-DKokkos_ENABLE_SERIAL=yes -DBUILD_OMP=no) ;;
  openmp)
    lammps_gtest_archive
    flags+=(-DKokkos_ENABLE_OPENMP=yes -DBUILD_OMP=yes -DENABLE_TESTING=yes "-DGTEST_URL=file://$CACHE/googletest-1.12.1.tar.gz"
      "-DGTEST_MD5=$(md5sum "$CACHE/googletest-1.12.1.tar.gz" | cut -d' ' -f1)")
    ;;
  cuda)
    # CUDA with Kokkos' OpenMP host back end: the unit tests' kokkos_omp case runs on it.
    lammps_kokkos_cuda13 || return 1
    lammps_tests_ask_a_gpu
    flags+=(-DKokkos_ENABLE_CUDA=yes -DKokkos_ENABLE_OPENMP=yes -DKokkos_ARCH_HOPPER90=yes -DBUILD_OMP=yes
      "-DCMAKE_CXX_COMPILER=$WORK/lib/kokkos/bin/nvcc_wrapper")
    # The unit tests need libyaml (LAMMPS downloads it otherwise): Debian's, or the copy
    # the pack step put in the archive (a GPU machine has none); without it, no tests.
    local yaml=()
    [ -f /usr/include/yaml.h ] || [ ! -f "$SRC_IN/libyaml/yaml.h" ] ||
      yaml=("-DYAML_INCLUDE_DIR=$SRC_IN/libyaml" "-DYAML_LIBRARY=$SRC_IN/libyaml/libyaml.a")
    if { [ -f /usr/include/yaml.h ] || [ ${#yaml[@]} -gt 0 ]; } && lammps_gtest_archive; then
      flags+=(-DENABLE_TESTING=yes "-DGTEST_URL=file://$CACHE/googletest-1.12.1.tar.gz"
        "-DGTEST_MD5=$(md5sum "$CACHE/googletest-1.12.1.tar.gz" | cut -d' ' -f1)" "${yaml[@]}")
    else
      echo "no libyaml-dev: the CUDA tree is configured without LAMMPS' unit tests (cuda-unittests cannot run)"
      flags+=(-DENABLE_TESTING=no)
    fi
    ;;
  esac
  note "configuring $dir"
  cmake -S "$WORK/cmake" -B "$dir" "${flags[@]}" >"$OUT/configure-$backend.log" 2>&1 && return 0
  # LAMMPS itself matters more than its tests: a CUDA tree whose tests do not configure
  # (the machine's libyaml, googletest) is configured without them, and says so.
  if [ "$backend" = cuda ] && [[ " ${flags[*]} " == *" -DENABLE_TESTING=yes "* ]]; then
    grep -m 5 -i "error" "$OUT/configure-$backend.log"
    echo "the CUDA tree did not configure with LAMMPS' unit tests: configuring it without them (cuda-unittests cannot run)"
    rm -rf "$dir"
    local f kept=()
    for f in "${flags[@]}"; do [[ "$f" == -DENABLE_TESTING=* || "$f" == -DGTEST_* || "$f" == -DYAML_* ]] || kept+=("$f"); done
    cmake -S "$WORK/cmake" -B "$dir" "${kept[@]}" -DENABLE_TESTING=no >"$OUT/configure-$backend.log" 2>&1 && return 0
  fi
  {
    tail -30 "$OUT/configure-$backend.log"
    rm -f "$dir/CMakeCache.txt"  # configure again next time
    return 1
  }
}

# Debian's googletest sources (1.12.1, what LAMMPS downloads) as the archive LAMMPS' CMake unpacks.
lammps_gtest_archive() {
  [ -f "$CACHE/googletest-1.12.1.tar.gz" ] && return 0
  # A GPU machine has no Debian googletest: the pack step's archive carries one.
  [ -f "$SRC_IN/googletest-1.12.1.tar.gz" ] && cp "$SRC_IN/googletest-1.12.1.tar.gz" "$CACHE/" && return 0
  [ -f /usr/src/googletest/CMakeLists.txt ] || {
    echo "FAIL: /usr/src/googletest missing (apt-get install googletest)"
    return 1
  }
  tar czf "$CACHE/googletest-1.12.1.tar.gz" -C /usr/src googletest
}

# Kokkos 3.7.02 (LAMMPS' bundled copy) calls three CUDA functions whose signatures
# CUDA 13 changed, and its nvcc_wrapper defaults to sm_70, which CUDA 13 dropped: edit
# them in WORK (scripts/lib/kokkos-cuda13.py; checked: Kokkos 3.7.02 then builds for
# sm_90 with CUDA 13.0's nvcc). The fork's copy lost nvcc_wrapper's execute bit.
lammps_kokkos_cuda13() {
  command -v nvcc >/dev/null || {
    echo "FAIL: no nvcc for the CUDA build"
    return 1
  }
  chmod +x "$WORK/lib/kokkos/bin/"*
  python3 "$ROOT/scripts/lib/kokkos-cuda13.py" "$WORK/lib/kokkos"
}

# PairStyle.kokkos_omp starts LAMMPS with "-k on t 4", and a LAMMPS built for a GPU stops there
# ("Kokkos has been compiled with GPU-enabled backend but no GPUs are requested",
# src/KOKKOS/kokkos.cpp:217-218): stock and switched alike, no pair style is tested. The one edit
# of LAMMPS' tests (in WORK): "g 1" on a build with Kokkos' CUDA back end, "g 0" (what no "g"
# means) elsewhere, so that the kk styles run on the GPU.
lammps_tests_ask_a_gpu() {
  local f=$WORK/unittest/force-styles/test_pair_style.cpp
  grep -q '"g", (Info::has_accelerator_feature' "$f" && return 0
  perl -0pi -e 's/("-k",\s*"on",\s*"t",\s*"4",)(\s*"-sf",\s*"kk"\};)/$1 "g", (Info::has_accelerator_feature("KOKKOS", "api", "cuda") ? "1" : "0"),$2/' "$f"
  grep -q '"g", (Info::has_accelerator_feature' "$f" || echo "note: $f has no \"-k on t 4\" to edit: its kk tests may stop on a GPU build"
}

# Build variant $2 of back end $1 into $CACHE/bin/lmp-$1-$2 unless a valid one is there.
lammps_build() {
  local backend=$1 variant=$2 dir=$CACHE/build-$1 bin=$CACHE/bin/lmp-$1-$2 stamp
  stamp=$([ "$variant" = stock ] && echo stock || lammps_headers_stamp)
  mkdir -p "$CACHE/bin"
  if ! lammps_stale "$backend" "$variant"; then
    echo "$backend $variant: reusing $bin"
    return 0
  fi
  lammps_switch "$variant"
  local t0=$SECONDS targets=(lmp)
  # A tree configured with LAMMPS' tests builds their force-style binary with lmp, from
  # the same objects: the unit tests then need no second switch and rebuild.
  lammps_has_tests "$dir" && targets+=(test_pair_style)
  if ! cmake --build "$dir" -j "$JOBS" --target "${targets[@]}" >"$OUT/build-$backend-$variant.log" 2>&1; then
    grep -m 20 -E "error|Error" "$OUT/build-$backend-$variant.log"
    fail "$backend $variant: LAMMPS did not build (log: $OUT/build-$backend-$variant.log)"
    return 1
  fi
  cp "$dir/lmp" "$bin" && echo "$stamp" >"$bin.stamp"
  if lammps_has_tests "$dir"; then
    cp "$dir/test_pair_style" "$CACHE/bin/test_pair_style-$backend-$variant" &&
      echo "$stamp" >"$CACHE/bin/test_pair_style-$backend-$variant.stamp"
  fi
  echo "- $backend $variant: built in $((SECONDS - t0)) s" >>"$SUMMARY"
  echo "$backend $variant: built in $((SECONDS - t0)) s"
}

# The inputs: name, file, directory to copy from, extra LAMMPS arguments for a CPU
# run (32,000 atoms or the peptide 8 times) and a CUDA run (>= 1M atoms).
lammps_inputs() {
  cat <<'EOF'
lj in.lj bench -v x 1 -v y 1 -v z 1|-v x 4 -v y 4 -v z 4
lj_comm_host in.lj bench -v x 1 -v y 1 -v z 1 -pk kokkos comm host|-v x 4 -v y 4 -v z 4 -pk kokkos comm host
eam in.eam bench -v x 1 -v y 1 -v z 1|-v x 4 -v y 4 -v z 4
chain in.chain.scaled bench -v x 1 -v y 1 -v z 1|-v x 4 -v y 4 -v z 2
peptide in.peptide examples/peptide -v r 2|-v r 8 -pk kokkos newton on neigh half
EOF
}

# Prepare run directory $2 for input $1 (file name): its data files, `run` set to
# NSTEPS steps on the CPU, the peptide replicated r x r x r.
lammps_input_dir() {
  local name=$1 file=$2 from=$3 dir=$4 steps=$5
  mkdir -p "$dir"
  cp "$WORK/$from/$file" "$dir/in.run"
  case $name in
  lj | lj_comm_host | eam) cp "$WORK/bench/Cu_u3.eam" "$dir/" ;;
  chain) cp "$WORK/bench/data.chain" "$dir/" ;;
  peptide)
    cp "$WORK/examples/peptide/data.peptide" "$dir/"
    perl -pi -e 's/^(read_data\s.*)$/$1\nreplicate \${r} \${r} \${r}/; s/^thermo\s+50/thermo 10/' "$dir/in.run"
    ;;
  esac
  perl -pi -e "s/^run\s+\d+/run $steps/" "$dir/in.run"
}

# Kokkos arguments of back end $1.
lammps_kokkos_args() {
  case $1 in
  serial) echo "-k on -sf kk" ;;
  openmp) echo "-k on t 2 -sf kk" ;;
  cuda) echo "-k on g 1 -sf kk" ;;
  esac
}

# One run: back end, variant, input name, run directory, tag, extra arguments. Peak
# RSS (KB) in tag.rss; peak GPU memory (MiB) in tag.gpumem on CUDA.
lammps_run_one() {
  local backend=$1 variant=$2 dir=$4 tag=$5 extra=$6 bin=$CACHE/bin/lmp-$1-$2 mon=""
  (
    cd "$dir" || exit 1
    if [ "$backend" = cuda ] && command -v nvidia-smi >/dev/null; then
      nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$tag.gpumem.trace" 2>/dev/null &
      mon=$!
    fi
    # shellcheck disable=SC2086
    python3 "$ROOT/scripts/lammps-log.py" run "$tag.rss" "$bin" -in in.run $(lammps_kokkos_args "$backend") $extra -log "$tag.log" \
      -screen none >"$tag.out" 2>"$tag.err"
    local rc=$?
    if [ -n "$mon" ]; then
      kill "$mon" 2>/dev/null
      wait "$mon" 2>/dev/null
      sort -n "$tag.gpumem.trace" | tail -1 >"$tag.gpumem"
    fi
    exit $rc
  )
}

# Build and run back end $1: stock, kokkos_type.h switched, fully switched (CUDA:
# stock and fully switched, the runs that are timed).
lammps_backend() {
  local backend=$1 variants="stock switched full"
  [ "$backend" = cuda ] && variants="stock full"
  echo >>"$SUMMARY"
  echo "## $backend" >>"$SUMMARY"
  local v stale=0
  for v in $variants; do lammps_stale "$backend" "$v" && stale=1; done
  [ $stale -eq 0 ] || lammps_configure "$backend" || {
    fail "$backend: LAMMPS did not configure (log: $OUT/configure-$backend.log)"
    return
  }
  for v in $variants; do lammps_build "$backend" "$v" || return; done
  local name file from args cpu gpu steps=$NSTEPS reps=1
  [ "$backend" = cuda ] && reps=$REPEAT
  while read -r name file from args; do
    local inputs="lj eam chain peptide"
    # On a GPU, also LAMMPS' communication through the host: DualView syncs each step.
    [ "$backend" = cuda ] && inputs="lj lj_comm_host eam chain peptide"
    [[ " ${LAMMPS_INPUTS:-$inputs} " == *" $name "* ]] || continue
    cpu=${args%%|*}
    gpu=${args#*|}
    local run=$OUT/runs/$backend/$name extra=$cpu
    [ "$backend" = cuda ] && extra=$gpu && steps=$(lammps_cuda_steps "$name")
    rm -rf "$run"
    lammps_input_dir "$name" "$file" "$from" "$run" "$steps"
    local r logs=()
    # Alternating: stock, switched, full, stock, ... Serial runs are deterministic: stock
    # once. OpenMP and CUDA sum with atomics: stock twice per round, its own spread is
    # the tolerance.
    for r in $(seq 1 "$reps"); do
      for v in stock $variants; do
        [ "$v" = stock ] && [ "$backend" = serial ] && [ "${#logs[@]}" -gt 0 ] && continue
        local tag=$v.$r.$((${#logs[@]}))
        note "$backend $name $v (run $r)"
        lammps_run_one "$backend" "$v" "$name" "$run" "$tag" "$extra" || fail "$backend $name $v: LAMMPS failed (see $run/$tag.log, $tag.err)"
        logs+=("$run/$tag")
      done
    done
    python3 "$ROOT/scripts/lammps-log.py" compare --backend "$backend" --input "$name" "${logs[@]}" >>"$SUMMARY" \
      || fail "$backend $name: thermo of a switched build differs from stock's (table above)"
  done < <(lammps_inputs)
}

# Steps of a CUDA run of each input (>= 1M atoms).
lammps_cuda_steps() {
  case $1 in
  peptide) echo 100 ;;
  *) echo 200 ;;
  esac
}

# Keep the force-style test binary of variant $2 of back end $1 as
# $CACHE/bin/test_pair_style-$1-$2, built unless a valid one is there.
lammps_test_binary() {
  local backend=$1 v=$2 dir=$CACHE/build-$1 bin=$CACHE/bin/test_pair_style-$1-$2
  if ! lammps_stale "$backend" "$v" test_pair_style; then
    echo "unittests $backend $v: reusing $bin"
    return 0
  fi
  if [ -x "$bin" ]; then
    echo "unittests $backend $v: $bin was built for headers $(cat "$bin.stamp" 2>/dev/null || echo '(no stamp)'), these need $([ "$v" = stock ] && echo stock || lammps_headers_stamp): rebuilding"
  fi
  lammps_switch "$v"
  if ! cmake --build "$dir" -j "$JOBS" --target test_pair_style >"$OUT/build-unittests-$backend-$v.log" 2>&1; then
    fail "unittests $backend $v: test_pair_style did not build (log: $OUT/build-unittests-$backend-$v.log)"
    return 1
  fi
  # (a fresh cache has no bin/ yet: on a new GPU machine the copy once failed and 324 tests
  # "failed" to start)
  if ! { mkdir -p "$CACHE/bin" && cp "$dir/test_pair_style" "$bin"; }; then
    fail "unittests $backend $v: test_pair_style built but could not be kept as $bin"
    return 1
  fi
  { [ "$v" = stock ] && echo stock || lammps_headers_stamp; } >"$bin.stamp"
}

# The KOKKOS force-style tests (PairStyle.kokkos_omp, every pair and kspace YAML) on
# the build of back end $1 (openmp; cuda: Kokkos for CUDA and OpenMP), stock and switched.
lammps_unittests() {
  local backend=${1:-openmp} v ut_stock='' ut_full=''
  local dir=$CACHE/build-$backend
  echo >>"$SUMMARY"
  echo "## unit tests: PairStyle.kokkos_omp over every pair and kspace YAML ($backend build)" >>"$SUMMARY"
  echo "| build | YAML files | run | passed | skipped | failed |" >>"$SUMMARY"
  echo "| --- | --- | --- | --- | --- | --- |" >>"$SUMMARY"
  # Test binaries from cuda-build (or an earlier run) need no build tree.
  if lammps_stale "$backend" stock test_pair_style || lammps_stale "$backend" full test_pair_style; then
    lammps_configure "$backend" || {
      fail "unittests: LAMMPS did not configure"
      return
    }
    lammps_has_tests "$dir" || {
      fail "unittests $backend: the tree was configured without LAMMPS' tests (no libyaml or googletest: $OUT/configure-$backend.log)"
      return
    }
  fi
  local order="stock full"
  # The variant the tree holds first: a binary to build for it costs no switch.
  [ "$(lammps_tree_variant)" = full ] && order="full stock"
  for v in $order; do
    local bin=$CACHE/bin/test_pair_style-$backend-$v
    lammps_test_binary "$backend" "$v" || continue
    local y passed=0 skipped=0 failures=0 n=0 rundir=$OUT/unittests/$backend-$v t0=$SECONDS
    rm -rf "$rundir" && mkdir -p "$rundir"
    # One process per YAML file, JOBS at a time, each in a directory of its own (the tests
    # write files), with the environment LAMMPS' own ctest gives them
    # (unittest/force-styles/CMakeLists.txt); its output, LAMMPS' own included (-v), is kept
    # as <name>.out.
    printf '%s\n' "$WORK"/unittest/force-styles/tests/{mol-pair,atomic-pair,manybody-pair,kspace}-*.yaml |
      LAMMPS_POTENTIALS="$WORK/potentials" OMP_PROC_BIND=false OMP_NUM_THREADS=2 xargs -P "$JOBS" -I{} \
        bash -c 'n=$(basename "$1" .yaml); mkdir -p "$2/$n" && cd "$2/$n" && timeout 300 "$3" "$1" -v --gtest_filter=PairStyle.kokkos_omp >"$2/$n.out" 2>&1' \
        _ {} "$rundir" "$bin"
    for y in "$WORK"/unittest/force-styles/tests/{mol-pair,atomic-pair,manybody-pair,kspace}-*.yaml; do
      n=$((n + 1))
      local out=$rundir/$(basename "$y" .yaml).out
      if grep -q "^\[  SKIPPED \] 1 test" "$out" 2>/dev/null; then skipped=$((skipped + 1))
      elif grep -q "^\[  PASSED  \] 1 test" "$out" 2>/dev/null; then passed=$((passed + 1))
      else
        failures=$((failures + 1))
        echo "$(basename "$y"): $(grep -m3 -E "Failure|FAILED|ERROR|error" "$out" 2>/dev/null | tr '\n' ' ')" >>"$rundir/failed.txt"
      fi
    done
    echo "unittests $backend $v: ran in $((SECONDS - t0)) s, $JOBS at a time"
    echo "| $v | $n | $((passed + failures)) | $passed | $skipped | $failures |" >>"$SUMMARY"
    echo "unittests $backend $v: $n YAML files, $passed passed, $skipped skipped, $failures failed"
    eval "ut_$v=\"$passed $skipped $failures\""
  done
  [ -n "$ut_stock" ] && [ "$ut_stock" = "$ut_full" ] || fail "unittests $backend: the switched build's counts differ from stock's ($ut_stock vs $ut_full; $OUT/unittests/*/failed.txt)"
}

# RUN: a fresh run directory for one run of the switched CUDA build ($1 its name under runs/,
# $2 the summary's heading, $3 the steps of in.lj); status 1 (and a FAIL) without that build.
lammps_full_cuda_run() {
  echo >>"$SUMMARY"
  echo "## $2" >>"$SUMMARY"
  RUN=$OUT/runs/$1
  [ -x "$CACHE/bin/lmp-cuda-full" ] || {
    fail "$1: no switched CUDA build (run the cuda step first)"
    return 1
  }
  rm -rf "$RUN"
  lammps_input_dir lj in.lj bench "$RUN" "$3"
}

# Checked mode (DV_CHECK=1) on the switched CUDA build: in.lj at 32,000 atoms, 100 steps.
lammps_checked() {
  local run rc n
  lammps_full_cuda_run checked "checked mode (DV_CHECK=1), CUDA, in.lj 32,000 atoms, 100 steps" 100 || return
  run=$RUN
  DV_CHECK=1 lammps_run_one cuda full lj "$run" checked "-v x 1 -v y 1 -v z 1"
  rc=$?
  n=$(grep -c "dualview" "$run/checked.err" || true)
  echo "- exit $rc; $n dualview reports on stderr ($run/checked.err)" >>"$SUMMARY"
  grep -m 20 "dualview" "$run/checked.err" >>"$SUMMARY" || true
}

# The transfer report (DV_REPORT, docs/GPU.md) of one run of the switched CUDA build:
# in.lj at 2,048,000 atoms, the CUDA step's length; into the summary.
lammps_report() {
  local run steps
  steps=$(lammps_cuda_steps lj)
  lammps_full_cuda_run report "transfer report (DV_REPORT), CUDA, full, in.lj 2,048,000 atoms, $steps steps" "$steps" || return
  run=$RUN
  DV_REPORT=$run/report lammps_run_one cuda full lj "$run" report "-v x 4 -v y 4 -v z 4" || fail "report: LAMMPS failed ($run/report.err)"
  if [ -f "$run/report.0.txt" ]; then
    { echo '```'; cat "$run/report.0.txt"; echo '```'; } >>"$SUMMARY"
  else
    fail "report: no $run/report.0.txt"
  fi
}

# benches/lammps_bench.cu against the Kokkos of the CUDA tree (LAMMPS' 3.7.02): Kokkos'
# DualView and dv::with_kokkos::DualView (LAMMPS_BENCH_WITH_KOKKOS) at LAMMPS_BENCH_ATOMS
# atoms; its rows and the device memory each holds after three grows (issue 43's 7,296 MB).
lammps_bench() {
  echo >>"$SUMMARY"
  echo "## lammps_bench against the CUDA tree's Kokkos" >>"$SUMMARY"
  local dir=$CACHE/build-cuda k=$WORK/lib/kokkos b=$CACHE/build-cuda/lib/kokkos d out=$OUT/bench
  [ -f "$b/core/src/libkokkoscore.a" ] || {
    fail "bench: no Kokkos in $dir (run the cuda step first)"
    return
  }
  mkdir -p "$out"
  local inc=(-I"$k/core/src" -I"$k/containers/src" -I"$k/algorithms/src" -I"$k/tpls/desul/include" -I"$b" -I"$b/core/src" -I"$b/containers/src")
  for d in kokkos with_kokkos; do
    local def=()
    [ "$d" = with_kokkos ] && def=(-I"$ROOT/include" -DLAMMPS_BENCH_WITH_KOKKOS)
    "$k/bin/nvcc_wrapper" -std=c++17 -O2 -arch=sm_90 -expt-extended-lambda --expt-relaxed-constexpr -fopenmp -Xcompiler -pthread \
      "${inc[@]}" "${def[@]}" "$ROOT/benches/lammps_bench.cu" -o "$out/lammps_bench_$d" -L"$b/core/src" -L"$b/containers/src" \
      -lkokkoscontainers -lkokkoscore -L"$LIB" -ldualview -lcuda -ldl >"$out/build-$d.log" 2>&1 || {
      fail "bench: lammps_bench.cu did not build ($d; $out/build-$d.log)"
      return
    }
  done
  "$out/lammps_bench_kokkos" --header | tee -a "$SUMMARY"
  for d in kokkos with_kokkos; do
    "$out/lammps_bench_$d" --mirror default --lammps "${LAMMPS_BENCH_ATOMS:-32000000}" >"$out/$d.txt" 2>&1 || fail "bench: lammps_bench_$d failed ($out/$d.txt)"
    cat "$out/$d.txt" | tee -a "$SUMMARY"
  done
}

# -fsyntax-only of LAMMPS_SYNTAX_FILES with both switches, from a configured Serial tree;
# with $1 = cuda, a compile of each with nvcc (nvcc has no -fsyntax-only) from the CUDA tree.
lammps_syntax() {
  local backend=${1:-syntax} v f n=0 bad=0 how="-fsyntax-only"
  local dir=$CACHE/build-$backend
  [ "$backend" = cuda ] && how="nvcc -c"
  lammps_configure "$backend" || {
    fail "syntax $backend: LAMMPS did not configure (log: $OUT/configure-$backend.log)"
    return
  }
  for v in switched full; do
    local scratch=$CACHE/syntax/$v/KOKKOS
    rm -rf "$CACHE/syntax/$v" && mkdir -p "$scratch"
    cp -p "$SRC_IN"/src/KOKKOS/* "$scratch/"
    lammps_switch "$v" "$scratch" >/dev/null
    for f in $LAMMPS_SYNTAX_FILES; do
      n=$((n + 1))
      local cmd
      cmd=$(python3 "$ROOT/scripts/lammps-log.py" syntax-command "$dir/compile_commands.json" "$WORK/src/KOKKOS/$f" "$scratch" \
        "$([ "$backend" = cuda ] && echo compile)") || {
        fail "syntax: no compile command for $f"
        bad=1
        continue
      }
      if ! (cd "$dir" && eval "$cmd") >"$OUT/syntax-$backend-$v-$f.log" 2>&1; then
        grep -m 5 "error" "$OUT/syntax-$backend-$v-$f.log"
        fail "syntax $backend $v: $f does not compile (log: $OUT/syntax-$backend-$v-$f.log)"
        bad=1
      fi
    done
  done
  [ $bad -eq 0 ] && echo "PASS syntax: $n compilations ($how of $(wc -w <<<"$LAMMPS_SYNTAX_FILES") KOKKOS files, kokkos_type.h switched and fully switched)"
  echo "- syntax ($how): $n compilations, $([ $bad -eq 0 ] && echo all pass || echo FAILURES)" >>"$SUMMARY"
}

# Build the CUDA binaries (stock and full: lmp, and LAMMPS' force-style test binary when
# the tree has its tests) without running them, on a machine with nvcc and no GPU, and
# archive them, stripped: lmp in .lammps/lmp-cuda.tar.xz, the test binaries in
# .lammps/test_pair_style-cuda.tar.xz. On a GPU machine the cuda, checked and
# cuda-unittests steps then run them instead of building.
lammps_cuda_build() {
  echo >>"$SUMMARY"
  echo "## cuda-build" >>"$SUMMARY"
  lammps_configure cuda || {
    fail "cuda-build: LAMMPS did not configure (log: $OUT/configure-cuda.log)"
    return
  }
  local v kinds=(lmp)
  lammps_has_tests "$CACHE/build-cuda" && kinds+=(test_pair_style)
  # The variant the tree holds first: its binaries cost no switch.
  local order="stock full"
  [ "$(lammps_tree_variant)" = full ] && order="full stock"
  for v in $order; do
    lammps_build cuda "$v" || return
    [ ${#kinds[@]} -eq 1 ] || lammps_test_binary cuda "$v" || return
  done
  local kind tmp a
  mkdir -p "$ROOT/.lammps"
  # A tree without LAMMPS' tests: no test binaries of an older build travel.
  [ ${#kinds[@]} -eq 1 ] && rm -f "$ROOT/.lammps/test_pair_style-cuda.tar.xz"
  for kind in "${kinds[@]}"; do
    tmp=$(mktemp -d) a=$ROOT/.lammps/$kind-cuda.tar.xz
    for v in stock full; do
      strip -o "$tmp/$kind-cuda-$v" "$CACHE/bin/$kind-cuda-$v" && cp "$CACHE/bin/$kind-cuda-$v.stamp" "$tmp/" &&
        lammps_bundle_libs "$CACHE/bin/$kind-cuda-$v" "$tmp/lib" || {
        fail "cuda-build: $kind-cuda-$v could not be stripped and archived"
        rm -rf "$tmp"
        return
      }
    done
    # test_pair_style reads its inputs from the directory it was built with (an absolute path).
    [ "$kind" = test_pair_style ] && echo "$WORK/unittest/force-styles/tests" >"$tmp/test_pair_style.inputs"
    tar cJf "$a" -C "$tmp" . || {
      fail "cuda-build: $a could not be written"
      rm -rf "$tmp" "$a"
      return
    }
    rm -rf "$tmp"
    echo "- cuda-build: $a, $(du -h "$a" | cut -f1)" >>"$SUMMARY"
    echo "PASS cuda-build: $a ($(du -h "$a" | cut -f1))"
  done
}

# .lammps/lammps.tar.xz: the parts of LAMMPS_SRC the steps read (the core sources and fmt/, the five
# packages built, Kokkos, the inputs, the unit tests and the potentials their pair and
# kspace YAML files name), googletest's sources for the unit tests' configure, and
# Debian's libyaml (yaml.h, libyaml.a) for a machine without it.
lammps_pack() {
  local dest=$ROOT/.lammps list f
  mkdir -p "$dest"
  list=$(mktemp)
  (
    cd "$SRC_IN" || exit 1
    ls -d cmake src/*.cpp src/*.h src/[a-z]*/ src/KOKKOS src/MOLECULE src/MANYBODY src/KSPACE src/RIGID src/STUBS src/Makefile* \
      fortran lib/kokkos bench/in.lj bench/in.eam bench/in.chain.scaled bench/data.chain bench/Cu_u3.eam examples/peptide unittest 2>/dev/null
    cat unittest/force-styles/tests/{mol-pair,atomic-pair,manybody-pair,kspace}-*.yaml >"$list.yaml"
    for f in potentials/*; do grep -qF "$(basename "$f")" "$list.yaml" && echo "$f"; done
  ) >"$list"
  lammps_gtest_archive || return
  [ -f /usr/include/yaml.h ] && [ -f /usr/lib/x86_64-linux-gnu/libyaml.a ] || {
    fail "pack: libyaml-dev missing (the unit tests on a GPU machine link its yaml.h and libyaml.a)"
    return
  }
  tar cJf "$dest/lammps.tar.xz" -C "$SRC_IN" -T "$list" -C "$CACHE" googletest-1.12.1.tar.gz \
    --transform 's,^yaml\.h$,libyaml/yaml.h,;s,^libyaml\.a$,libyaml/libyaml.a,' \
    -C /usr/include yaml.h -C /usr/lib/x86_64-linux-gnu libyaml.a || {
    fail "pack: tar failed"
    return
  }
  rm -f "$list" "$list.yaml"
  echo "- pack: $dest/lammps.tar.xz, $(du -h "$dest/lammps.tar.xz" | cut -f1)" >>"$SUMMARY"
  echo "PASS pack: $dest/lammps.tar.xz ($(du -h "$dest/lammps.tar.xz" | cut -f1))"
}
