#include "cli/cli.h"

int main(int argc, char** argv) { return dagu::cli::Main(argc, argv); }
