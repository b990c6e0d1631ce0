/* The header compiles as C99 with -Wall -Wextra -Wpedantic -Werror, and an
 * ignored status warns (checked by the build with -Werror=unused-result off). */
#include "dualview.h"

int main(void) {
    dv_extents_t e;
    uint64_t v[2] = {2, 3};
    if (dv_extents_make(v, 2, &e) != DV_OK) return 1;
    uint64_t n = 0;
    if (dv_extents_size(&e, &n) != DV_OK || n != 6) return 1;
    return DV_MAX_RANK == 8 && DV_VERSION_MAJOR == 0 ? 0 : 1;
}
