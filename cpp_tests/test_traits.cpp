// Typedefs and traits of dv::View and dv::DualView (reference sections 1.2 and 2.5), checked at compile time.
#include "common.hpp"

using DV = dv::DualView<double**, dv::LayoutLeft, TestDev>;
using std::is_same_v;

// Data-type syntax.
static_assert(dv::View<double>::rank == 0);
static_assert(dv::View<double*>::rank == 1 && dv::View<double*>::rank_dynamic == 1);
static_assert(dv::View<double********>::rank == 8);
static_assert(dv::View<double*[3]>::rank == 2 && dv::View<double*[3]>::rank_dynamic == 1);
static_assert(dv::View<double[2][3]>::rank == 2 && dv::View<double[2][3]>::rank_dynamic == 0);
static_assert(dv::ViewTraits<double*[3]>::analysis::static_extent(1) == 3);
static_assert(dv::ViewTraits<double[2][3]>::analysis::static_extent(0) == 2);
static_assert(is_same_v<dv::View<const int**>::value_type, const int>);
static_assert(is_same_v<dv::View<const int*[5]>::non_const_data_type, int*[5]>);
static_assert(is_same_v<dv::View<int*[5]>::const_data_type, const int*[5]>);

// Defaults follow the execution space (Serial: LayoutRight, HostSpace).
static_assert(is_same_v<dv::View<double*>::array_layout, dv::LayoutRight>);
static_assert(is_same_v<dv::View<double*>::memory_space, dv::HostSpace>);
static_assert(is_same_v<dv::View<double*, dv::Cuda>::array_layout, dv::LayoutLeft>);
static_assert(is_same_v<dv::View<double*, dv::CudaUVMSpace>::execution_space, dv::Cuda>);
static_assert(is_same_v<dv::View<double*, dv::Device<dv::Cuda, dv::CudaHostPinnedSpace>>::memory_space, dv::CudaHostPinnedSpace>);

// DualView typedefs.
static_assert(is_same_v<DV::t_dev, dv::View<double**, dv::LayoutLeft, TestDev>>);
static_assert(is_same_v<DV::t_host, dv::View<double**, dv::LayoutLeft, dv::Device<dv::Serial, dv::HostSpace>>>);
static_assert(is_same_v<DV::t_dev_const, dv::View<const double**, dv::LayoutLeft, TestDev>>);
static_assert(is_same_v<DV::t_host_const::value_type, double>);  // HostMirror drops const, as Kokkos
static_assert(is_same_v<DV::t_dev_const_randomread::value_type, const double>);
static_assert(DV::t_dev_const_randomread::is_random_access);
static_assert(!DV::t_dev_um::is_managed && !DV::t_host_um::is_managed);
static_assert(is_same_v<DV::t_dev_const_um::value_type, const double>);
static_assert(is_same_v<DV::t_dev_const_randomread_um::memory_space, dv::HostSpace>);  // Kokkos quirk kept
static_assert(is_same_v<DV::host_mirror_space, dv::HostSpace>);
static_assert(is_same_v<DV::execution_space, dv::TestDevice>);
static_assert(is_same_v<DV::memory_space, dv::TestDeviceSpace>);
static_assert(is_same_v<DV::device_type, TestDev>);
static_assert(!DV::impl_dualview_is_single_device);
static_assert(dv::DualView<double*>::impl_dualview_is_single_device);
static_assert(dv::is_dual_view_v<DV> && dv::is_dual_view_v<const DV> && !dv::is_dual_view_v<DV::t_dev>);

// Side matching (reference 2.5): memory space, execution space, Device, View type; UVM is ambiguous.
static_assert(DV::get_device_side<dv::TestDeviceSpace>() == 1);
static_assert(DV::get_device_side<dv::HostSpace>() == 0);
static_assert(DV::get_device_side<dv::TestDevice>() == 1);
static_assert(DV::get_device_side<dv::Serial>() == 0);
static_assert(DV::get_device_side<TestDev>() == 1);
static_assert(DV::get_device_side<dv::Device<dv::Serial, dv::HostSpace>>() == 0);
static_assert(DV::get_device_side<DV::t_dev>() == 1);
static_assert(DV::get_device_side<DV::t_host>() == 0);
using UVM = dv::DualView<double*, dv::Device<dv::Cuda, dv::CudaUVMSpace>>;
static_assert(UVM::get_device_side<dv::CudaUVMSpace>() == -1);
static_assert(UVM::get_device_side<dv::Cuda>() == 1);
static_assert(UVM::get_device_side<dv::Device<dv::Cuda, dv::CudaUVMSpace>>() == 1);
static_assert(UVM::get_device_side<dv::Device<dv::Serial, dv::CudaUVMSpace>>() == 0);
using HostOnly = dv::DualView<double*, dv::HostSpace>;
static_assert(HostOnly::get_device_side<dv::HostSpace>() == -1);

// view<Space>() picks the side by type.
static_assert(is_same_v<decltype(std::declval<DV>().view<dv::TestDeviceSpace>()), DV::t_dev>);
static_assert(is_same_v<decltype(std::declval<DV>().view<dv::HostSpace>()), DV::t_host>);
static_assert(is_same_v<decltype(std::declval<DV>().view<dv::Serial>()), DV::t_host>);
static_assert(is_same_v<decltype(std::declval<DV>().view<TestDev>()), DV::t_dev>);

// The C-shared structs are standard layout.
static_assert(std::is_standard_layout_v<dv_desc_t> && std::is_standard_layout_v<dv_view_info_t>);

template <class DT, class... P>
constexpr bool takes_dual_view(const dv::DualView<DT, P...>&) {
  return true;
}

TEST(Traits, DualViewDeducesInAParameterPack) {
  dv::DualView<int*> a;
  EXPECT_TRUE(takes_dual_view(a));
  EXPECT_FALSE(a.is_allocated());
  EXPECT_FALSE(a.need_sync_host());
  a.modify_host();  // no-op on a default-constructed DualView
  a.sync_device();
  EXPECT_FALSE(a.need_sync_device());
}

TEST(Traits, ViewsCopyIntoKernelsByValue) {
  // Trivially destructible on the device is not required by CUDA; what matters is
  // that copies made on the host count references and device copies do not.
  dv::View<double*> v("v", 4);
  EXPECT_EQ(v.use_count(), 1);
  {
    auto w = v;
    EXPECT_EQ(v.use_count(), 2);
  }
  EXPECT_EQ(v.use_count(), 1);
}
