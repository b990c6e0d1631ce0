// Issue 21: Kokkos names that third-party programs compiled unchanged against
// dualview's headers use (tests/kokkos_programs/run.sh): FLCL's
// flcl-util-cxx.cpp calls Kokkos::print_configuration(ofstream, true).
#include <Kokkos_Core.hpp>

#include <sstream>
#include <string>

#include "common.hpp"

TEST(ProgramsNames, PrintConfiguration) {
  std::ostringstream brief, verbose;
  Kokkos::print_configuration(brief);
  Kokkos::print_configuration(verbose, true);
  EXPECT_NE(brief.str().find("Kokkos Version: 4.6.0"), std::string::npos) << brief.str();
  EXPECT_NE(brief.str().find(std::string("Default execution space: ") + Kokkos::DefaultExecutionSpace::name()), std::string::npos);
  EXPECT_NE(brief.str().find("Default host execution space: Serial"), std::string::npos);
  // verbose adds lines to the same report
  EXPECT_EQ(verbose.str().rfind(brief.str(), 0), 0u);
  EXPECT_GT(verbose.str().size(), brief.str().size());
}
