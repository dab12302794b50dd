// A plain GoogleTest binary (gtest_main, no heddle): `heddle test` must refuse
// it without running it. Its one test leaves a file behind when it runs.
#include <gtest/gtest.h>

#include <fstream>

TEST(plain, leaves_a_file_when_run) { std::ofstream("plain_gtest_ran") << "ran\n"; }
