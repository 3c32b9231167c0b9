/* clrie-il: reads .NET assemblies and runs their method bodies through libilgraph.
 *
 *     clrie-il dis ASSEMBLY [--method NAME|TOKEN] [--canonical]
 *     clrie-il check [--strict] ASSEMBLY...
 *     clrie-il bench [--repeat N] [--only STEP] ASSEMBLY...
 *
 * Exit status: 0 ok, 1 failures found or bad input, 2 usage. */
#include <stdio.h>
#include <string.h>

#include "clrie/os/process.h"
#include "tool.h"

static const char usage[] =
    "usage: clrie-il dis ASSEMBLY [--method NAME|TOKEN] [--canonical]\n"
    "       clrie-il check [--strict] ASSEMBLY...\n"
    "       clrie-il bench [--repeat N] [--only STEP] ASSEMBLY...\n"
    "\n"
    "  dis    disassemble method bodies: offsets, operands, EH clauses, max stack;\n"
    "         --canonical prints test/ildump's canonical format (diffable with ildump),\n"
    "         --method selects methods whose full name contains NAME, or one token\n"
    "  check  for every method body: byte-exact decode/encode round trip, verify,\n"
    "         computed vs declared max stack, single-return + fat header then verify,\n"
    "         try/finally wrap + fat header then verify; exit 1 on unreadable bodies,\n"
    "         round-trip failures or transformed bodies that do not verify\n"
    "         (--strict: also original-verify failures and too small declared max stack)\n"
    "  bench  decode, encode, transform and verify throughput over every method body\n"
    "         (methods/s, MB/s of IL, each step against the bare opcode walk, median and\n"
    "         worst per-method time; --repeat N passes; --only walk|decode|preserve|\n"
    "         shortest|edited|edited-shortest|transform|verify: that step alone, for a\n"
    "         profiler, with a hash of its output)\n"
    "\n"
    "exit status: 0 ok, 1 failures found or bad input, 2 usage\n";

static int run(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return TOOL_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return TOOL_EXIT_OK;
    }
    int status;
    if (strcmp(cmd, "dis") == 0)
        status = tool_dis(argc - 1, argv + 1);
    else if (strcmp(cmd, "check") == 0)
        status = tool_check(argc - 1, argv + 1);
    else if (strcmp(cmd, "bench") == 0)
        status = tool_bench(argc - 1, argv + 1);
    else {
        tool_error("unknown command '%s'", cmd);
        fputs(usage, stderr);
        return TOOL_EXIT_USAGE;
    }
    if (status == TOOL_EXIT_USAGE)
        fputs(usage, stderr);
    if (fflush(stdout) != 0) {
        tool_error("writing the output failed");
        return TOOL_EXIT_FAIL;
    }
    return status;
}

int main(int argc, char **argv)
{
    return clrie_os_process_main(argc, argv, run);
}
