# Sourced by test scripts that link programs against libdualview.so outside CMake.
# dvlib_links LIB OUT: check that LIB holds libdualview.so, make OUT/lib with links to it
# under its own name and its SONAME (cargo's target/ holds only libdualview.so), make
# OUT absolute, and set LIB to OUT/lib (absolute: programs' RPATH may point at it).
dvlib_links() {
  LIB=$1
  OUT=$2
  [ -f "$LIB/libdualview.so" ] || { echo "no libdualview.so in $LIB (cargo rustc --release --lib --crate-type cdylib,staticlib)" >&2; exit 2; }
  LIB=$(cd "$LIB" && pwd)
  mkdir -p "$OUT/lib" && OUT=$(cd "$OUT" && pwd)
  ln -sf "$LIB/libdualview.so" "$OUT/lib/libdualview.so"
  local soname
  soname=$(readelf -d "$LIB/libdualview.so" 2>/dev/null | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
  [ -n "$soname" ] && ln -sf "$LIB/libdualview.so" "$OUT/lib/$soname"
  LIB=$OUT/lib
}
