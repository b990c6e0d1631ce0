// dualview.hpp under -std=c++14 must stop with the header's own message
// ("need C++17"), checked by ctest (cpp.header_needs_cxx17.<compiler>).
#include "dualview.hpp"

int main() { return 0; }
