#!/usr/bin/env python3
"""clrie-il refuses bad input cleanly: truncated and garbled copies of a small assembly,
given to every subcommand, end with exit status 0 or 1 (never a crash, a signal or a
sanitizer report), and a non-zero status comes with a message (one "clrie-il: ..." line
per error on stderr, or check's failure list). Usage errors exit 2; a missing file exits
1 naming the file. A body made invalid (an ldarg.0 turned into nop) is reported by
check with the method and the stack underflow. Run in the ASan+UBSan build as well."""
import argparse
import os
import random
import re
import sys
import tempfile

import tool_run

SUBCOMMANDS = [["dis"], ["dis", "--canonical"], ["check"], ["bench", "--repeat", "1"]]
SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                   "runtime error:")


def run(tool, args):
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "halt_on_error=1:abort_on_error=1")
    env.setdefault("UBSAN_OPTIONS", "halt_on_error=1:abort_on_error=1:print_stacktrace=1")
    return tool_run.run(tool + args, errors="replace", env=env, timeout=60)


def problem(r, expect=(0, 1)):
    """Why the run is not acceptable, or None."""
    if r.returncode < 0 or r.returncode not in expect:
        return f"exit status {r.returncode}"
    if any(mark in r.stderr for mark in SANITIZER_MARKS):
        return "sanitizer report"
    lines = [line for line in r.stderr.splitlines() if line]
    if r.returncode == 0:
        return "messages on stderr with exit 0" if lines else None
    if r.returncode == 2:
        return None if any(line.startswith("usage:") for line in lines) else "no usage text"
    if any(not line.startswith("clrie-il: ") for line in lines):
        return "stderr line not of the form 'clrie-il: ...'"
    if not lines and "failures:" not in r.stdout:
        return "exit 1 without saying why"
    return None


def variants(data, count, seed):
    """Truncations at spread-out lengths, then garbled copies (1 to 8 bytes changed)."""
    rng = random.Random(seed)
    lengths = sorted(set([0, 1, 2, 63, 64, 127, 128, 129, 255, 256, 511, 512, len(data) - 1] +
                         [rng.randrange(len(data)) for _ in range(count // 3)]))
    for n in lengths:
        yield f"truncated to {n} bytes", data[:n]
    for _ in range(count - len(lengths)):
        copy = bytearray(data)
        changes = []
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(len(copy))
            copy[at] = rng.choice([0x00, 0xFF, 0x7F, 0x80, rng.randrange(256)])
            changes.append(f"0x{at:X}")
        yield f"garbled at {', '.join(changes)}", bytes(copy)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--clrie-il", required=True)
    p.add_argument("--assembly", required=True)
    p.add_argument("--count", type=int, default=400)
    p.add_argument("--seed", type=int, default=4)
    tool_run.add_arguments(p)
    args = p.parse_args()
    tool = tool_run.command(args, args.clrie_il)
    failures = []
    runs = 0
    rejected = 0

    def expect(label, cmd, statuses):
        nonlocal runs, rejected
        runs += 1
        r = run(tool, cmd)
        rejected += r.returncode == 1
        why = problem(r, statuses)
        if why:
            failures.append(f"{label}: clrie-il {' '.join(cmd)}: {why}\n"
                            f"    stderr: {r.stderr.strip()[:600]}")

    # Usage.
    for cmd in ([], ["frobnicate"], ["dis"], ["check"], ["bench"], ["dis", "--bogus", "x.dll"],
                ["check", "--bogus", "x.dll"], ["bench", "--repeat", "0", "x.dll"],
                ["dis", args.assembly, "--method"]):
        expect("usage", cmd, (2,))
    # Missing file, a selection that matches nothing.
    expect("missing file", ["dis", "/nonexistent/clrie-il-test.dll"], (1,))
    expect("missing file", ["check", "/nonexistent/clrie-il-test.dll"], (1,))
    expect("no match", ["dis", args.assembly, "--method", "NoSuchMethodAnywhere"], (1,))
    # The original is fine.
    for sub in SUBCOMMANDS:
        expect("original", sub + [args.assembly], (0,))

    with open(args.assembly, "rb") as f:
        data = f.read()
    with tempfile.TemporaryDirectory() as tmp:
        # Well-formed bytes, invalid IL: the first ldarg.0 of a fat body becomes nop, so
        # the next instruction underflows. check names the method and the problem.
        runs += 1
        r = run(tool, ["dis", args.assembly])
        m = re.search(r"\.method (0x[0-9A-F]{8}) (\S+)\n  // fat header, body \d+ bytes at "
                      r"file offset (0x[0-9A-F]+), code \d+ bytes\n(?:  [^\n]*\n)*?"
                      r"  IL_0000: ldarg\.0\n", r.stdout)
        if not m:
            failures.append("verifier findings: no fat body starting with ldarg.0 in the listing")
        else:
            code_at = int(m.group(3), 16) + 12
            bad = bytearray(data)
            bad[code_at] = 0x00
            path = os.path.join(tmp, "underflow.dll")
            with open(path, "wb") as f:
                f.write(bad)
            runs += 1
            r = run(tool, ["check", path])
            if (r.returncode != 1 or "original verify failures: 1;" not in r.stdout
                    or "stack underflow" not in r.stdout or m.group(2) not in r.stdout):
                failures.append(f"verifier findings: {m.group(2)} with ldarg.0 -> nop: "
                                f"exit {r.returncode}\n{r.stdout}")

        path = os.path.join(tmp, "bad.dll")
        for label, content in variants(data, args.count, args.seed):
            with open(path, "wb") as f:
                f.write(content)
            for sub in SUBCOMMANDS:
                expect(label, sub + [path], (0, 1))

    for f in failures[:20]:
        print(f)
    print(f"{runs} runs ({rejected} rejected the input with exit 1), {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
