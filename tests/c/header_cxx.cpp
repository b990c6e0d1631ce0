// The header compiles as C++ (extern "C") with -Wall -Wextra -Wpedantic -Werror,
// and its C-shared structs are standard layout.
#include <type_traits>

#include "dualview.h"

static_assert(std::is_standard_layout<dv_extents_t>::value, "dv_extents_t");
static_assert(std::is_standard_layout<dv_desc_t>::value, "dv_desc_t");
static_assert(std::is_standard_layout<dv_view_info_t>::value, "dv_view_info_t");
static_assert(sizeof(dv_extents_t) == 72, "dv_extents_t is 72 bytes");

int main() {
    bool cuda = true;
    if (dv_cuda_available(&cuda) != DV_OK) return 1;
    const char *v = dv_version();
    return v != nullptr && v[0] == '0' ? 0 : 1;
}
