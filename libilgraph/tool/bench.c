#include "tool.h"
int tool_bench(int argc, char **argv) { return 0; }
