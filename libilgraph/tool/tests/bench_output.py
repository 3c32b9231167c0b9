#!/usr/bin/env python3
"""`clrie-il bench` reports every step it measures: one throughput row per step (methods/s,
MB/s of code and of bodies with wall time in brackets, the ratio to the opcode walk), a
row for one graph reused under each step that builds a graph, the targets, and the
per-method spread; `--only STEP` runs each step alone and prints the hash of what it
encoded or reported, the same for two runs."""
import argparse
import re
import sys

import tool_run

NUMBER = r"[0-9.]+"
ROW = r"^  %s\s+\d+\s+" + NUMBER + r" \[\s*" + NUMBER + r"\]\s+" + NUMBER + r" \[\s*" + NUMBER + \
    r"\]\s+" + NUMBER + r"x$"
STEPS = ["opcode walk (the bound)", "decode", "decode + encode (preserve)",
         "decode + encode (shortest branches)", "decode + edit + encode (preserve)",
         "decode + edit + encode (shortest)", "decode + single-ret + fat + encode",
         "decode + verify"]
SPREADS = ["decode", "encode (preserve)", "decode + encode", "single-ret+fat+encode", "verify"]
ONLY = {"walk": "encoded", "decode": "encoded", "preserve": "encoded", "shortest": "encoded",
        "edited": "encoded", "edited-shortest": "encoded", "transform": "encoded",
        "verify": "reported"}


def run(tool, args):
    return tool_run.run([*tool, "bench", *args])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("clrie_il")
    p.add_argument("assembly")
    tool_run.add_arguments(p)
    args = p.parse_args()
    tool, assembly = tool_run.command(args, args.clrie_il), args.assembly
    problems = []
    r = run(tool, ["--repeat", "1", assembly])
    if r.returncode != 0 or r.stderr:
        problems.append("bench exited %d: %s" % (r.returncode, r.stderr.strip()))
    out = r.stdout
    for step in STEPS:
        if not re.search(ROW % re.escape(step), out, re.MULTILINE):
            problems.append("no throughput row for '%s'" % step)
    reused = len(re.findall(ROW % re.escape("  reusing one graph"), out, re.MULTILINE))
    if reused != len(STEPS) - 1:
        problems.append("%d 'reusing one graph' rows, not %d" % (reused, len(STEPS) - 1))
    for spread in SPREADS:
        if not re.search(r"^  %s\s+median\s+%s us\s+worst\s+%s us \(" % (re.escape(spread),
                                                                       NUMBER, NUMBER),
                         out, re.MULTILINE):
            problems.append("no per-method line for '%s'" % spread)
    for step, what in ONLY.items():
        hashes = set()
        for _ in range(2):
            r = run(tool, ["--only", step, "--repeat", "1", assembly])
            m = re.search(r"^\d+ method bodies, %s MB of IL code: %s, 1 passes; what it %s "
                          r"hashes to ([0-9a-f]{16})$" % (NUMBER, step, what), r.stdout,
                          re.MULTILINE)
            if r.returncode != 0 or not m:
                problems.append("--only %s: exit %d, printed %r" % (step, r.returncode,
                                                                     r.stdout + r.stderr))
                break
            hashes.add(m.group(1))
        if len(hashes) > 1:
            problems.append("--only %s: two runs hash differently: %s" % (step, sorted(hashes)))
    r = run(tool, ["--only", "frobnicate", assembly])
    if r.returncode != 2 or "verify" not in r.stderr:
        problems.append("--only frobnicate: exit %d, %r" % (r.returncode, r.stderr))
    for p in problems:
        print("FAIL:", p)
    if problems:
        print(out)
        return 1
    print("bench reports %d steps, %d per-method spreads and --only for each step" %
          (len(STEPS), len(SPREADS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
