// Compiled with nothing but <Kokkos_Core.hpp>, under -std=c++17, c++20 and
// c++23 (ctests cpp.kokkos_umbrella.cxx17/20/23): every standard header that
// Kokkos 4.6.01's Kokkos_Core.hpp brings in (docs/CPP.md) is used once
// without being included, and the Kokkos-named DualView, View, subview,
// deep_copy and pair compile and run in each language mode.
#include <Kokkos_Core.hpp>

namespace {
int failures = 0;
void check(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}
}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  {
    // One use per standard header of the list.
    std::vector<int> v{3, 1, 2};                                // <vector>, <initializer_list>
    std::sort(v.begin(), v.end());                              // <algorithm>
    std::array<int, 2> a{{1, 2}};                               // <array>
    assert(a[0] == 1);                                          // <cassert>
    check(a[1] == 2, "array");
    check(FLT_MAX > 1.0f && INT_MAX > 0, "cfloat, climits");    // <cfloat>, <climits>
    auto t0 = std::chrono::steady_clock::now();                 // <chrono>
    char buf[64];
    std::snprintf(buf, sizeof buf, "%" PRIu64, std::uint64_t{42});  // <cinttypes>, <cstdio>, <cstdint>
    check(std::strcmp(buf, "42") == 0, "PRIu64");               // <cstring>
    check(std::sqrt(4.0) == 2.0, "cmath");                      // <cmath>
    std::complex<double> z(1.0, 2.0);                           // <complex>
    std::size_t n = std::abs(-3);                               // <cstddef>, <cstdlib>
    std::function<int(int)> twice = [](int x) { return 2 * x; };  // <functional>
    std::ostream* no_stream = nullptr;                          // <iosfwd>
    check(std::numeric_limits<int>::max() == INT_MAX, "limits");  // <limits>
    std::map<int, int> m{{1, 2}};                               // <map>
    auto p = std::make_unique<int>(5);                          // <memory>
    std::mutex mu;                                              // <mutex>
    std::lock_guard<std::mutex> lock(mu);
    std::optional<int> o = 4;                                   // <optional>
    std::ostringstream os;                                      // <sstream>
    os << v[0];
    std::string s = os.str();                                   // <string>
    std::string_view sv = s;                                    // <string_view>
    auto tup = std::make_tuple(1, 2.0);                         // <tuple>
    static_assert(std::is_same_v<decltype(std::get<0>(tup)), int&>, "type_traits");  // <type_traits>
    check(typeid(int) == typeid(int), "typeinfo");              // <typeinfo>
    std::unordered_map<int, int> um{{1, 1}};                    // <unordered_map>
    auto sp = std::make_pair(1, 2);                             // <utility>
    check(v[0] == 1 && z.imag() == 2.0 && n == 3 && twice(2) == 4 && !no_stream && m[1] == 2 && *p == 5 && *o == 4 &&
              sv == "1" && um[1] == 1 && sp.second == 2 && std::chrono::steady_clock::now() >= t0,
          "the standard names");
#if __cplusplus > 201703L
    std::span<int> span(v);                                     // <span>
    check(span.size() == 3 && std::integral<int>, "span, concepts");  // <concepts>
#endif

    // Kokkos::pair as Kokkos_Pair.hpp has it.
    Kokkos::pair<int, double> kp(1, 2.5);
    Kokkos::pair<long, float> converted(kp);
    auto [first, second] = kp;                                  // structured bindings
    int count = 0;
    bool ok = false;
    Kokkos::tie(count, ok) = Kokkos::make_pair(7, true);
    check(converted.first == 1 && second == 2.5 && first == 1 && count == 7 && ok, "pair");
    check(kp.to_std_pair() == std::make_pair(1, 2.5) && Kokkos::pair<int, double>(std::make_pair(1, 2.5)) == kp, "std::pair");
    check(Kokkos::make_pair(1, 2) < Kokkos::make_pair(1, 3) && Kokkos::make_pair(2, 0) > Kokkos::make_pair(1, 9), "pair order");

    // The first hour's names (docs/CPP.md).
    Kokkos::Array<double, 2> arr = {{1.5, -2.0}};
    check(Kokkos::max(arr[0], Kokkos::fabs(arr[1])) == 2.0 && Kokkos::clamp(Kokkos::sqrt(16.0), 0.0, 3.0) == 3.0, "Array, max, clamp, math");
    KOKKOS_ASSERT(arr.size() == 2);
    Kokkos::Timer timer;
    check(timer.seconds() >= 0.0, "Timer");

    // DualView, subview with a pair, deep_copy.
    using DV = Kokkos::DualView<double**, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace>;
    DV d("d", 6, 4);
    auto h = d.view_host();
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 4; ++j) h(i, j) = 10 * i + j;
    d.modify_host();
    d.sync_device();
    auto rows = Kokkos::subview(d, Kokkos::make_pair(2, 4), Kokkos::ALL);
    check(rows.extent(0) == 2 && rows.view_host()(0, 1) == 21, "subview by pair");
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> copy("copy", 6, 4);
    Kokkos::deep_copy(copy, h);
    double sum = 0;
    for (int i = 0; i < 6; ++i) sum += copy(i, 3);  // dispatch is the program's (DECISIONS K4)
    check(sum == 6 * 3 + 10 * 15, "deep_copy");
    // A registered mirror (the test device's, as CUDA's) of a size made again is kept for reuse.
    for (int round = 0; round < 2; ++round) {
      Kokkos::DualView<double*, Kokkos::LayoutRight, dv::Device<dv::TestDevice, dv::TestDeviceSpace>> m("m", (2u << 20) / 8);
      m.modify_host();
      m.sync_device();
    }
  }
  Kokkos::finalize();  // gives the kept block back
  check(dv::pool_release() == 0, "Kokkos::finalize releases the pool of registered blocks");
  if (failures == 0) std::printf("umbrella: every check passed (C++ %ld)\n", static_cast<long>(__cplusplus));
  return failures == 0 ? 0 : 1;
}
