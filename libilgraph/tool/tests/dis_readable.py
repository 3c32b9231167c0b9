#!/usr/bin/env python3
"""`clrie-il dis` (the readable format) shows what a person debugging a method needs:
declared and computed max stack, offsets, operands with the names their tokens refer to,
branch targets as offsets, and the EH clauses; --method selects by name or by token."""
import argparse
import sys

import tool_run

EXPECTED = [
    ".method 0x06000001 Tiny.Samples::Guarded",
    "  .maxstack 2  // computed 2",
    "  IL_0005: leave.s IL_0030",
    "  IL_0007: isinst 0x01000016  // System.OverflowException",
    "  IL_001b: endfilter",
    "  eh filter try IL_0000 length 7 handler IL_001d length 6 filter IL_0007",
    "  eh catch try IL_0000 length 7 handler IL_0023 length 7 type 0x01000011  // System.Exception",
    "  eh finally try IL_0000 length 42 handler IL_002a length 6",
    ".end",
]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("clrie_il")
    p.add_argument("assembly")
    tool_run.add_arguments(p)
    args = p.parse_args()
    tool, assembly = tool_run.command(args, args.clrie_il), args.assembly
    failures = 0
    for selector in ("Samples::Guarded", "0x06000001"):
        r = tool_run.run(tool + ["dis", assembly, "--method", selector])
        lines = r.stdout.splitlines()
        missing = [e for e in EXPECTED if e not in lines]
        others = [line for line in lines if line.startswith(".method")][1:]
        if r.returncode != 0 or missing or others or r.stderr:
            failures += 1
            print(f"--method {selector}: exit {r.returncode}, missing {missing}, "
                  f"also listed {others}, stderr {r.stderr!r}\n{r.stdout}")
    r = tool_run.run(tool + ["dis", assembly, "--method", "CallArgs"])
    if '  IL_000a: ldstr 0x70000001  // "s"' not in r.stdout.splitlines():
        failures += 1
        print(f"ldstr without its string:\n{r.stdout}")
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
