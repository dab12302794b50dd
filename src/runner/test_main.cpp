// main() of test binaries that link heddle::main.
#include "heddle/test.hpp"

int main(int argc, char** argv) { return heddle::run_all_tests(argc, argv); }
