// The behaviours of reference/kokkos_dualview.md section 5 that the C++ wrapper
// expresses (kNN = case NN), on a two-space DualView without a GPU.
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "common.hpp"

using DV = dv::DualView<double**, dv::LayoutLeft, TestDev>;
using Host = dv::HostSpace;
using DevSpace = dv::TestDeviceSpace;

TEST(DualView, K01_DefaultConstructed) {
  DV a;
  EXPECT_FALSE(a.is_allocated());
  a.modify<TestDev>();
  a.modify_host();
  a.modify_device();
  EXPECT_FALSE(a.need_sync_host() || a.need_sync_device());
  a.sync_host();
  a.sync<Host>();
}

TEST(DualView, K02_LabelledConstruction) {
  DV a("A", 10, 3);
  EXPECT_TRUE(a.is_allocated());
  EXPECT_EQ(a.extent(0), 10u);
  EXPECT_EQ(a.extent_int(1), 3);
  EXPECT_EQ(a.span(), 30u);
  EXPECT_EQ(a.view_host().label(), "A_mirror");
  EXPECT_EQ(a.view_device().label(), "A");
  EXPECT_EQ(host_sum(a) + device_sum(a), 0.0);
  EXPECT_FALSE(a.need_sync_host() || a.need_sync_device());
  std::size_t s[3];
  a.stride(s);
  EXPECT_EQ(s[0], 1u);
  EXPECT_EQ(s[1], 10u);
  EXPECT_EQ(s[2], 30u);
}

TEST(DualView, ViewAllocWithoutInitializing) {
  DV a(dv::view_alloc(dv::WithoutInitializing, "raw"), 6, 2);
  EXPECT_EQ(a.d_view.label(), "raw");
  EXPECT_EQ(a.span(), 12u);
  dv::deep_copy(a.h_view, 1.0);  // written before it is read
  a.modify_host();
  a.sync_device();
  EXPECT_EQ(device_sum(a), 12.0);
  dv::View<int*> v(dv::view_alloc("v", dv::WithoutInitializing), 3);
  EXPECT_EQ(v.extent(0), 3u);
}

TEST(DualView, K03_CopiesShareDataAndFlags) {
  dv::DualView<int**, dv::LayoutLeft, TestDev> a("A", 4, 5);
  dv::DualView<const int**, dv::LayoutLeft, TestDev> b(a);
  auto c = a;
  EXPECT_EQ(b.view_host().data(), a.view_host().data());
  EXPECT_EQ(c.view_device().data(), a.view_device().data());
  a.clear_sync_state();
  a.modify_host();
  EXPECT_TRUE(a.need_sync_device() && b.need_sync_device() && c.need_sync_device());
}

TEST(DualView, K03b_ConvertingCopyToStaticExtents) {
  dv::DualView<int**, dv::LayoutLeft, TestDev> a("A", 4, 5);
  dv::DualView<const int* [5], dv::LayoutLeft, TestDev> b(a);
  EXPECT_EQ(b.extent(1), 5u);
  EXPECT_THROW((dv::DualView<const int* [4], dv::LayoutLeft, TestDev>(a)), dv::static_mismatch);
}

TEST(DualView, K04_K05_DeviceToHostSync) {
  DV a("A", 10, 3);
  dv::deep_copy(a.d_view, 1.0);
  a.modify<DV::execution_space>();
  a.sync<DV::host_mirror_space>();
  EXPECT_EQ(host_sum(a), 30.0);
  EXPECT_FALSE(a.need_sync_host());
  a.modify_device();
  a.sync_host();
  a.sync_host(dv::Serial{});
  EXPECT_EQ(a.stats().to_host_count, 2u);
}

TEST(DualView, K06_HostToDevice) {
  DV a("A", 3, 2);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) a.h_view(i, j) = i + 10 * j;
  a.modify_host();
  a.sync_device();
  EXPECT_EQ(a.d_view(2, 1), 12.0);
}

TEST(DualView, K07_K08_K09_NoCopyWithoutModify) {
  DV a("A", 3, 2);
  dv::deep_copy(a.d_view, 1.0);
  a.sync_host();
  EXPECT_EQ(host_sum(a), 0.0);
  a.modify_device();
  a.sync_device();  // towards the modified side: nothing
  EXPECT_TRUE(a.need_sync_host());
  a.modify_device();
  a.modify_device();
  EXPECT_TRUE(a.need_sync_host());
}

TEST(DualView, K10_ConcurrentModificationThrows) {
  DV a("A", 3, 2);
  a.modify_host();
  try {
    a.modify_device();
    FAIL() << "expected dv::concurrent_modification";
  } catch (const dv::concurrent_modification& e) {
    EXPECT_EQ(e.status(), DV_ERROR_CONCURRENT_MODIFICATION);
    EXPECT_NE(std::strstr(e.what(), "\"A\""), nullptr) << e.what();
    // The advice in C++ terms (issue 35).
    EXPECT_NE(std::strstr(e.what(), "Call a.sync_device() before writing the device side"), nullptr) << e.what();
    EXPECT_NE(std::strstr(e.what(), "or a.clear_sync_state() to drop that change"), nullptr) << e.what();
  }
  EXPECT_TRUE(a.need_sync_device());  // unchanged
}

TEST(DualView, MessagesAdviseTheFiveCallsInCppTerms) {
  EXPECT_EQ(dv::detail::cpp_terms("dv_modify_host: Call dv_sync_host() or dv_clear_sync_state(); dv_destroy() stays"),
            "dv::DualView::modify_host: Call a.sync_host() or a.clear_sync_state(); dv_destroy() stays");
}

// Messages name the C++ call, never the C function behind it (issue 46, item 3): each
// C function a C++ call reaches, and a message of each kind thrown through the API.
TEST(DualView, MessagesNameTheCppCallNotTheCFunction) {
  const char* const pairs[][2] = {{"dv_sync_device", "dv::DualView::sync_device"},
                                  {"dv_sync_host_async", "dv::DualView::sync_host_async"},
                                  {"dv_resized", "dv::DualView::resize"},
                                  {"dv_realloc_without_initializing", "dv::DualView::realloc"},
                                  {"dv_host_access", "dv::DualView::host_access"},
                                  {"dv_create", "dv::DualView"},
                                  {"dv_view_fill", "dv::deep_copy"},
                                  {"dv_initialize", "dv::initialize"},
                                  {"dv_fence", "dv::fence"}};
  for (const auto& p : pairs)
    EXPECT_EQ(dv::detail::cpp_terms(std::string(p[0]) + ": bad"), std::string(p[1]) + ": bad");
  EXPECT_EQ(dv::detail::cpp_terms("dv_create: bad", "dv::View"), "dv::View: bad");
  EXPECT_EQ(dv::detail::cpp_terms("argument `x`: dv_foo: kept"), "argument `x`: dv_foo: kept") << "only a leading name";
  auto what = [](auto f) -> std::string {
    try {
      f();
    } catch (const dv::error& e) {
      return e.what();
    }
    return "(no exception)";
  };
  DV a("A", 4, 3);
  a.modify_host();
  const std::string m1 = what([&] { a.modify_device(); });
  EXPECT_EQ(m1.rfind("dv::DualView::modify_device: ", 0), 0u) << m1;
  const std::string m2 = what([&] { a.resize(4, 3, 2); });
  EXPECT_EQ(m2.find("dv_"), std::string::npos) << m2;
  int argc = 2;
  char prog[] = "p", opt[] = "--kokkos-device-id=9999";
  char* argv[] = {prog, opt, nullptr};
  const std::string m3 = what([&] { dv::initialize(argc, argv); });
  EXPECT_EQ(m3.rfind("dv::initialize: ", 0), 0u) << m3;
  // A deep copy between shapes that differ, a View too large, a const DualView that would copy.
  DV b("B", 5, 3);
  const std::string m4 = what([&] { dv::deep_copy(b, a); });
  EXPECT_EQ(m4.rfind("dv::deep_copy: ", 0), 0u) << m4;
  const std::string m5 = what([&] { dv::View<double**> v("big", size_t{1} << 62, 8); });
  EXPECT_EQ(m5.rfind("dv::", 0), 0u) << m5;
  a.sync_device();
  a.modify_device();
  dv::DualView<const double**, dv::LayoutLeft, TestDev> c(a);
  const std::string m6 = what([&] { c.sync_host(); });
  EXPECT_EQ(m6.rfind("dv::DualView::sync_host: ", 0), 0u) << m6;
  for (const std::string& m : {m1, m2, m3, m4, m5, m6}) EXPECT_EQ(m.find("dv_"), std::string::npos) << "no C name: " << m;
}

// Every C function the C++ headers call (each status a C++ call can throw) gets a
// C++ name that the headers declare (issue 46, item 3): the whole table, not samples.
TEST(DualView, EveryCFunctionTheHeadersCallHasADeclaredCppName) {
  namespace fs = std::filesystem;
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  // Each identifier starting with `prefix` at a word start in `text` (not after `::`).
  auto words = [&](const std::string& text, const std::string& prefix) {
    std::vector<std::pair<std::string, std::size_t>> out;
    for (std::size_t p = text.find(prefix); p != std::string::npos; p = text.find(prefix, p + 1)) {
      if (p > 0 && (ident(text[p - 1]) || text[p - 1] == ':')) continue;
      std::size_t e = p;
      while (e < text.size() && ident(text[e])) ++e;
      out.emplace_back(text.substr(p, e - p), e);
    }
    return out;
  };
  auto next_char = [](const std::string& t, std::size_t e) {
    while (e < t.size() && (t[e] == ' ' || t[e] == '\n')) ++e;
    return e < t.size() ? t[e] : '\0';
  };
  const fs::path c_header(DUALVIEW_C_HEADER);
  const std::string c_text = slurp(c_header);
  ASSERT_FALSE(c_text.empty()) << c_header;
  std::set<std::string> c_functions;
  for (std::size_t p = c_text.find("dv_status_t "); p != std::string::npos; p = c_text.find("dv_status_t ", p + 1)) {
    std::size_t a = p + 12;
    while (a < c_text.size() && c_text[a] == ' ') ++a;
    std::size_t e = a;
    while (e < c_text.size() && ident(c_text[e])) ++e;
    if (c_text.compare(a, 3, "dv_") == 0 && next_char(c_text, e) == '(') c_functions.insert(c_text.substr(a, e - a));
  }
  ASSERT_GT(c_functions.size(), 80u);
  std::string cpp_text;
  for (const auto& f : fs::recursive_directory_iterator(c_header.parent_path() / "dualview"))
    if (f.path().extension() == ".hpp") cpp_text += slurp(f.path());
  // The C functions whose status a C++ call throws: on a line that checks it.
  std::set<std::string> called;
  std::istringstream lines(cpp_text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("check(") == std::string::npos && line.find("call(dv_") == std::string::npos &&
        line.find("query(dv_") == std::string::npos)
      continue;
    for (const auto& w : words(line, "dv_"))
      if (c_functions.count(w.first)) called.insert(w.first);
  }
  EXPECT_GT(called.size(), 50u);
  // Declared: `name(` (a function or a constructor) or `class|struct|using name`.
  auto declared = [&](const std::string& name) {
    for (const auto& w : words(cpp_text, name)) {
      if (w.first != name) continue;
      if (next_char(cpp_text, w.second) == '(') return true;
      const std::size_t at = w.second - name.size();
      for (const char* kw : {"class ", "struct ", "using "})
        if (at >= std::strlen(kw) && cpp_text.compare(at - std::strlen(kw), std::strlen(kw), kw) == 0) return true;
    }
    return false;
  };
  for (const std::string& c : called) {
    const std::string cpp = dv::detail::cpp_name(c);
    ASSERT_TRUE(cpp.rfind("dv::", 0) == 0 || cpp.rfind("Kokkos::", 0) == 0) << c << " -> " << cpp;
    const std::string last = cpp.substr(cpp.rfind("::") + 2);
    EXPECT_TRUE(declared(last)) << c << " is named " << cpp << " in C++ messages, which the headers do not declare";
  }
}

TEST(DualView, K11_ClearSyncState) {
  DV a("A", 3, 2);
  a.modify_host();
  a.clear_sync_state();
  a.modify_device();
  EXPECT_TRUE(a.need_sync_host());
  EXPECT_FALSE(a.need_sync_device());
}

TEST(DualView, K12_K13_TemplateForms) {
  DV a("A", 3, 2);
  a.modify<Host>();
  EXPECT_TRUE(a.need_sync<TestDev>());
  EXPECT_FALSE(a.need_sync<Host>());
  EXPECT_TRUE(a.need_sync_device());
  a.sync<DV::t_dev>();
  a.modify<dv::TestDevice>();
  a.sync<dv::Device<dv::Serial, dv::HostSpace>>();
  EXPECT_FALSE(a.need_sync_host());
  auto d = a.view<dv::TestDevice>();
  auto h = a.view<dv::Serial>();
  EXPECT_EQ(d.data(), a.d_view.data());
  EXPECT_EQ(h.data(), a.h_view.data());
}

TEST(DualView, K17_K18_ConstDualView) {
  DV a("A", 4, 2);
  dv::DualView<const double**, dv::LayoutLeft, TestDev> c = a;
  EXPECT_EQ(c.view<dv::Serial>().data(), a.view<dv::Serial>().data());
  c.sync<Host>();  // clean: fine
  a.modify_device();
  try {
    c.sync<Host>();
    FAIL() << "expected dv::error";
  } catch (const dv::error& e) {
    EXPECT_EQ(e.status(), DV_ERROR_CONST_SYNC);
  }
  EXPECT_TRUE(a.need_sync_host());
}

TEST(DualView, K19_Combination) {
  const int n = 10, m = 3;
  DV a("A", n, m);
  dv::deep_copy(a.d_view, 1.0);
  a.modify<DV::execution_space>();
  a.sync<DV::host_mirror_space>();
  a.h_view(5, 1) = 3;
  a.h_view(6, 1) = 4;
  a.h_view(7, 2) = 5;
  a.modify<DV::host_mirror_space>();
  auto b = dv::subview(a, std::make_pair(6, 9), std::make_pair(0, 1));
  a.sync<DV::execution_space>();
  b.modify<DV::execution_space>();
  dv::deep_copy(b.d_view, 2.0);
  a.sync<DV::host_mirror_space>();
  EXPECT_EQ(host_sum(a), n * m + 12.0);
}

TEST(DualView, K20_SubviewsShareFlags) {
  DV a("A", 4, 4);
  auto col = dv::subview(a, dv::ALL, 2);
  static_assert(decltype(col)::rank == 1);
  col.modify_device();
  EXPECT_TRUE(a.need_sync_host());
  a.sync_host();
  EXPECT_FALSE(col.need_sync_host());
  DV b(a, dv::ALL, std::make_pair(1, 3));  // subview constructor
  EXPECT_EQ(b.extent(1), 2u);
}

TEST(DualView, K22_K23_DeepCopyBetweenDualViews) {
  DV a("A", 5, 4), b("B", 5, 4), c("C", 5, 4);
  dv::deep_copy(a.d_view, 1.0);
  a.modify_device();
  a.sync_host();
  dv::deep_copy(b, a);  // clean source: device copy, b's device marked
  EXPECT_TRUE(b.need_sync_host());
  b.sync_host();
  EXPECT_EQ(host_sum(b), 20.0);
  dv::deep_copy(a.h_view, 2.0);
  a.modify_host();
  dv::deep_copy(c, a);  // host newer: host copy
  EXPECT_TRUE(c.need_sync_device());
  EXPECT_EQ(host_sum(c), 40.0);
}

TEST(DualView, K24_DeepCopyEdgeCases) {
  DV a("A", 0, 3), b("B", 0, 3), none;
  dv::deep_copy(b, a);
  dv::deep_copy(none, none);
  DV c("C", 2, 3);
  EXPECT_THROW(dv::deep_copy(c, a), dv::error);
}

TEST(DualView, K25_K26_ResizeKeepsEachElementsNewestValue) {
  DV a("A", 4, 3);
  dv::deep_copy(a.d_view, 1.0);
  a.modify_device();
  dv::resize(a, 8, 6);
  EXPECT_EQ(a.extent(0), 8u);
  EXPECT_TRUE(a.need_sync_host());  // flags kept
  EXPECT_EQ(device_sum(a), 12.0);
  a.sync_host();
  EXPECT_EQ(host_sum(a), 12.0);
  a.h_view(7, 5) = 2;
  a.modify_host();
  a.resize(2, 2);
  a.sync_device();
  EXPECT_EQ(device_sum(a), 4.0);
}

TEST(DualView, K27_K28_ResizeOfACleanDualViewMarksNothing) {
  DV a("A", 3, 3);
  a.resize(6, 3);
  EXPECT_FALSE(a.need_sync_host() || a.need_sync_device());
  a.modify_host();  // Kokkos would abort (Albany #1036)
  EXPECT_TRUE(a.need_sync_device());
  dv::DualView<double**> one("S", 3, 3);
  one.resize(5, 5);
  EXPECT_FALSE(one.need_sync_host());  // Kokkos #8277
}

TEST(DualView, K29_SameSizeResizeKeepsTheAllocation) {
  DV a("A", 3, 3);
  double* d = a.d_view.data();
  a.resize(3, 3);
  EXPECT_EQ(a.d_view.data(), d);
  EXPECT_EQ(a.d_view.label(), "A");
}

TEST(DualView, K30_K31_Realloc) {
  DV a("bla", 3, 3);
  dv::deep_copy(a.h_view, 3.0);
  a.modify_host();
  dv::realloc(a, 5, 2);
  EXPECT_EQ(a.extent(0), 5u);
  EXPECT_EQ(host_sum(a) + device_sum(a), 0.0);
  EXPECT_FALSE(a.need_sync_host() || a.need_sync_device());
  EXPECT_EQ(a.d_view.label(), "bla");
  dv::deep_copy(a.h_view, 7.0);
  a.realloc(5, 2);  // same size: both sides zero
  EXPECT_EQ(host_sum(a) + device_sum(a), 0.0);
  a.realloc(dv::WithoutInitializing, 4, 4);
  EXPECT_EQ(a.span(), 16u);
}

TEST(DualView, ViewsTakenBeforeResizeStayValid) {
  DV a("A", 3, 3);
  dv::deep_copy(a.h_view, 5.0);
  auto old = a.h_view;
  DV copy = a;
  a.resize(30, 30);
  EXPECT_EQ(old(2, 2), 5.0);  // Kokkos semantics: the old allocation lives on
  EXPECT_EQ(copy.extent(0), 3u);
  EXPECT_EQ(a.h_view(2, 2), 5.0);
}

TEST(DualView, K36_FromTwoViews) {
  DV src("src", 3, 2);
  DV::t_host h = src.h_view;
  DV::t_dev d = src.d_view;
  DV both(d, h);
  dv::deep_copy(both.h_view, 4.0);
  both.modify_host();
  both.sync_device();
  EXPECT_EQ(src.d_view(1, 1), 4.0);  // the same memory
  dv::DualView<double**, dv::LayoutLeft, TestDev>::t_host other("other", 4, 2);
  EXPECT_THROW(DV(d, other), dv::error);
}

TEST(DualView, LammpsRowPointersRebuiltAfterResize) {
  using tdual = dv::DualView<double**, dv::LayoutRight, TestDev>;
  tdual x("x", 4, 3);
  std::vector<double*> rows(4);
  for (int i = 0; i < 4; ++i) rows[i] = &x.h_view(i, 0);
  rows[2][1] = 7.0;
  x.modify_host();
  x.resize(8, 3);
  rows.resize(8);
  for (int i = 0; i < 8; ++i) rows[i] = &x.h_view(i, 0);
  EXPECT_EQ(rows[2][1], 7.0);
  x.sync_device();
  EXPECT_EQ(x.d_view(2, 1), 7.0);
}

TEST(DualView, ErrorsThrowWithStatus) {
  EXPECT_THROW(DV("bad", 1, 2, 3), dv::rank_mismatch);
  try {
    DV huge("huge", std::size_t(1) << 31, std::size_t(1) << 31);
    FAIL();
  } catch (const dv::error& e) {
    EXPECT_EQ(e.status(), DV_ERROR_OVERFLOW);
    EXPECT_GT(std::strlen(e.what()), 0u);
  }
  DV a("A", 2, 2);
  EXPECT_THROW(dv::subview(a, 5, dv::ALL), dv::out_of_range);
}

// -1 converted to size_t is Kokkos' "not given" (KOKKOS_INVALID_INDEX): the refusal says so,
// and the DualView is unchanged.
TEST(DualView, AResizeToMinusOneSaysItIsNotGiven) {
  dv::DualView<double*, dv::LayoutLeft, TestDev> a("a", 4);
  try {
    a.resize(-1);
    FAIL() << "expected dv::rank_mismatch";
  } catch (const dv::rank_mismatch& e) {
    EXPECT_NE(std::string(e.what()).find("SIZE_MAX, such as -1 converted to size_t, is Kokkos' \"not given\""), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(a.extent(0), 4u);
}

TEST(DualView, CudaSpaceOnThisMachine) {
  if (cuda_present()) GTEST_SKIP() << "a GPU is present: the no-device error does not apply";
  try {
    dv::DualView<double*, dv::CudaSpace> g("g", 4);
    FAIL() << "expected DV_ERROR_NO_DEVICE";
  } catch (const dv::error& e) {
    EXPECT_EQ(e.status(), DV_ERROR_NO_DEVICE);
  }
}

TEST(DualView, OnTheGpu) {
  SKIP_WITHOUT_GPU();
  dv::DualView<double**, dv::LayoutLeft, dv::Cuda> a("gpu", 16, 4);
  dv::deep_copy(a.h_view, 3.0);
  a.modify_host();
  a.sync_device();
  dv::deep_copy(a.h_view, 0.0);
  a.clear_sync_state();
  a.modify_device();
  a.sync_host();
  EXPECT_EQ(host_sum(a), 16 * 4 * 3.0);
}

TEST(DualView, OnTheGpuStridedSubviewsAndPinnedMirror) {
  SKIP_WITHOUT_GPU();
  using G = dv::DualView<double**, dv::LayoutRight, dv::Cuda>;
  G a("gpu2", 40, 12);
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 12; ++j) a.h_view(i, j) = i * 100 + j;
  a.modify_host();
  auto block = dv::subview(a, std::make_pair(5, 25), std::make_pair(2, 9));  // strided: 2D copies
  block.sync_device();
  dv::deep_copy(a.h_view, -1.0);
  a.clear_sync_state();
  block.modify_device();  // records the block only
  block.sync_host();      // so only the block comes back
  EXPECT_EQ(a.h_view(5, 2), 502.0);
  EXPECT_EQ(a.h_view(24, 8), 2408.0);
  EXPECT_EQ(a.h_view(4, 2), -1.0);
  EXPECT_EQ(a.h_view(5, 9), -1.0);
  dv::DualView<float*, dv::Device<dv::Cuda, dv::CudaSpace>> p(dv::view_alloc("pinned", dv::PinnedHostMirror), 1000);
  dv_view_info_t hv;
  ASSERT_EQ(dv_host_view(p.impl_handle(), &hv), DV_OK);
  EXPECT_EQ(hv.space, DV_SPACE_HOST_PINNED);
  dv::deep_copy(p.d_view, 2.5f);
  p.modify_device();
  p.sync_host();
  EXPECT_EQ(p.h_view(999), 2.5f);
}

TEST(DualView, OnTheGpuManagedMemoryIsAmbiguousForItsSpace) {
  SKIP_WITHOUT_GPU();
  using U = dv::DualView<double*, dv::Device<dv::Cuda, dv::CudaUVMSpace>>;
  U u("uvm", 64);
  EXPECT_EQ(u.h_view.data(), u.d_view.data());  // one allocation
  u.modify<dv::CudaUVMSpace>();  // names both sides: nothing happens
  EXPECT_FALSE(u.need_sync_host() || u.need_sync_device());
  u.modify<dv::Cuda>();
  EXPECT_TRUE(u.need_sync_host());
  u.sync<dv::Serial>();  // prefetch to the host
  EXPECT_FALSE(u.need_sync_host());
  u.h_view(3) = 4.0;
  EXPECT_EQ(u.d_view.data()[3], 4.0);
}

TEST(View, StandaloneAllocationAndAccess) {
  dv::View<double**> v("v", 3, 4);
  EXPECT_EQ(v.label(), "v");
  EXPECT_EQ(v.size(), 12u);
  v(2, 3) = 1.5;
  EXPECT_EQ(v.data()[2 * 4 + 3], 1.5);  // LayoutRight on the host
  dv::View<int[2][3]> s("s");
  EXPECT_EQ(s.extent(0), 2u);
  EXPECT_EQ(s.extent(1), 3u);
  dv::View<double> scalar("x");
  scalar() = 2.0;
  EXPECT_EQ(scalar(), 2.0);
  auto m = dv::create_mirror_view(v);
  EXPECT_EQ(m.data(), v.data());
  dv::View<double*, TestDev> dev("dev", 5);
  dv::deep_copy(dev, 4.0);
  auto hm = dv::create_mirror_view(dev);
  EXPECT_NE(hm.data(), dev.data());
  dv::deep_copy(hm, dev);
  EXPECT_EQ(hm(4), 4.0);
  auto sub = dv::subview(v, 2, dv::ALL);
  EXPECT_EQ(sub(3), 1.5);
}

TEST(DualView, OnTheSecondGpu) {
  SKIP_WITHOUT_GPU();
  std::size_t n = 0;
  ASSERT_EQ(dv_space_device_count(DV_SPACE_CUDA, &n), DV_OK);
  if (n < 2) GTEST_SKIP() << "one CUDA device on this machine: no second device to choose";
  struct Reset {
    ~Reset() { dv::set_device_id(0); }
  } reset;
  dv::set_device_id(1);
  dv::DualView<double*, dv::LayoutLeft, dv::Cuda> a("second", 1000);
  dv_info_t info{};
  ASSERT_EQ(dv_info(a.impl_handle(), &info), DV_OK);
  EXPECT_EQ(info.ordinal, 1u);
  dv::deep_copy(a.h_view, 2.0);
  a.modify_host();
  a.sync_device();
  dv::deep_copy(a.h_view, 0.0);
  a.clear_sync_state();
  a.modify_device();
  a.sync_host();  // back from device 1
  EXPECT_EQ(host_sum(a), 2000.0);
  dv::fence();  // the default execution space's fence, on device 1
}
