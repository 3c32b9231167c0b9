#include "tool.h"
int tool_check(int argc, char **argv) { return 0; }
