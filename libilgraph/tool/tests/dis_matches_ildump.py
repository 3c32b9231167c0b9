#!/usr/bin/env python3
"""`clrie-il dis --canonical` prints exactly what `ildump` (System.Reflection.Metadata)
prints for every assembly of the installed shared framework, the five named below
included: same methods, instructions, operands, branch targets and EH clauses.

The same holds for copies of the --also assemblies with garbled IL code (unknown opcodes,
cut operands, branches into the middle of instructions): where libilgraph refuses a body,
clrie-il lists its raw bytes as ildump does (and exits 1), so only the listings are
compared there.

Builds test/ildump offline into the Meson build folder (as assembly-listing-matches-srm
does) and exits 77 (skipped) when there is no dotnet or no framework."""
import argparse
import difflib
import os
import random
import re
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from listing_matches_srm import prepare, run  # noqa: E402



def garbled_code(clrie_il, path, count, seed=7):
    """Copies of path with 1 to 3 bytes of some method's IL code replaced."""
    _, listing, _ = run([clrie_il, "dis", path])
    ranges = []
    for m in re.finditer(r"// (fat|tiny) header, body \d+ bytes at file offset (0x[0-9A-F]+), "
                         r"code (\d+) bytes", listing):
        start = int(m.group(2), 16) + (12 if m.group(1) == "fat" else 1)
        ranges.append((start, int(m.group(3))))
    with open(path, "rb") as f:
        data = f.read()
    rng = random.Random(seed)
    for _ in range(count if ranges else 0):
        copy = bytearray(data)
        start, size = rng.choice(ranges)
        changed = []
        for _ in range(rng.randint(1, 3)):
            at = start + rng.randrange(size)
            copy[at] = rng.choice([0xFE, 0xA6, 0x24, 0x45, 0x2B, 0x38, 0xFF, rng.randrange(256)])
            changed.append(f"0x{at:X}")
        yield "garbled at " + ", ".join(changed), bytes(copy)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dotnet", default="dotnet")
    p.add_argument("--ildump-source", required=True)
    p.add_argument("--build-dir", required=True)
    p.add_argument("--clrie-il", required=True)
    p.add_argument("--framework", help="folder of assemblies; default: newest installed")
    p.add_argument("--only", action="append", default=[],
                   help="compare only these assemblies (file names without .dll)")
    p.add_argument("--also", action="append", default=[], help="another assembly to compare")
    args = p.parse_args()
    args.build_dir = os.path.abspath(args.build_dir)

    ildump, framework, dlls = prepare(args)
    if args.only:
        dlls = [d for d in dlls if d[:-4] in args.only]
    failures = methods = lines = 0
    for path in [os.path.join(framework, dll) for dll in dlls] + args.also:
        dll = os.path.basename(path)
        c_rc, c_out, c_err = run([args.clrie_il, "dis", "--canonical", path])
        s_rc, s_out, s_err = run(ildump + [path])
        if c_rc != 0 or s_rc != 0 or c_out != s_out:
            failures += 1
            print(f"DIFFERS {dll}: clrie-il rc {c_rc}, ildump rc {s_rc}")
            sys.stdout.write(c_err[:2000] + s_err[:2000])
            diff = difflib.unified_diff(c_out.splitlines(), s_out.splitlines(),
                                        "clrie-il dis --canonical", "ildump", lineterm="", n=1)
            for i, line in enumerate(diff):
                if i >= 30:
                    break
                print(line)
            continue
        out_lines = c_out.splitlines()
        lines += len(out_lines)
        methods += sum(1 for line in out_lines if line.startswith("method "))

    garbled = refused = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in args.also:
            for label, data in garbled_code(args.clrie_il, path, 40):
                copy = os.path.join(tmp, "garbled.dll")
                with open(copy, "wb") as f:
                    f.write(data)
                garbled += 1
                c_rc, c_out, c_err = run([args.clrie_il, "dis", "--canonical", copy])
                s_rc, s_out, _ = run(ildump + [copy])
                refused += c_rc == 1
                if c_rc not in (0, 1) or s_rc != 0 or c_out != s_out:
                    failures += 1
                    print(f"DIFFERS {os.path.basename(path)} {label}: clrie-il rc {c_rc}, "
                          f"ildump rc {s_rc}\n{c_err[:1000]}")
                    diff = difflib.unified_diff(c_out.splitlines(), s_out.splitlines(),
                                                "clrie-il", "ildump", lineterm="", n=1)
                    for i, line in enumerate(diff):
                        if i >= 20:
                            break
                        print(line)

    print(f"{len(dlls)} assemblies in {framework} and {len(args.also)} more: {methods} methods, "
          f"{lines} lines identical; {garbled} copies with garbled IL code ({refused} with a body "
          f"libilgraph refuses, listed raw); "
          f"{failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
