#!/usr/bin/env python3
"""clrie-il reads and names files whose paths are not ASCII, on every system: on Windows its
arguments come from the UTF-16 command line (main's are in the ANSI code page) and files are
opened through UTF-16 paths, and what it prints is UTF-8. A copy of a small assembly in a
folder and under a name outside ASCII is checked, listed and measured; a missing one and one
cut short are refused with the path as given and the reason. With --windows the copy is also
named with '\\' between its folders, which bench must cut at too."""
import argparse
import os
import shutil
import sys
import tempfile

import tool_run

FOLDER = "clrie-il \u00fc-\u4e2d"  # ü, and a CJK letter no ANSI code page of Europe has
NAME = "Tiny-\u00e9.dll"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("clrie_il")
    p.add_argument("assembly")
    tool_run.add_arguments(p)
    p.add_argument("--windows", action="store_true", help="the program is a Windows one")
    args = p.parse_args()
    tool = tool_run.command(args, args.clrie_il)
    problems = []

    def run(cmd, cwd=None):
        try:
            r = tool_run.run(tool + cmd, cwd=cwd, timeout=120)
        except UnicodeDecodeError as e:
            problems.append(f"clrie-il {' '.join(cmd)}: output is not UTF-8 ({e})")
            return -1, "", ""
        return r.returncode, r.stdout, r.stderr

    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, FOLDER)
        os.mkdir(folder)
        path = os.path.join(folder, NAME)
        shutil.copyfile(args.assembly, path)

        status, out, err = run(["check", path])
        if status != 0 or err:
            problems.append(f"check {path!r}: exit {status}, stderr {err!r}")

        status, out, err = run(["dis", path, "--method", "Samples::Guarded"])
        if status != 0 or ".method 0x06000001 Tiny.Samples::Guarded" not in out.splitlines():
            problems.append(f"dis {path!r}: exit {status}, stderr {err!r}\n{out}")

        # bench names the slowest method's file by its name alone.
        named = [(path, None)]
        if args.windows:
            named.append((FOLDER + "\\" + NAME, tmp))
        for given, cwd in named:
            status, out, err = run(["bench", "--repeat", "1", given], cwd=cwd)
            spread = [line for line in out.splitlines() if " worst " in line]
            if status != 0 or not spread or any(f"({NAME} 0x" not in line for line in spread):
                problems.append(f"bench {given!r}: exit {status}, stderr {err!r}, "
                                f"per-method lines {spread!r}")

        missing = os.path.join(folder, "missing-\u00df.dll")
        status, out, err = run(["check", missing])
        if status != 1 or not err.startswith(f"clrie-il: {missing}: ") or \
                "No such file" not in err:
            problems.append(f"check {missing!r}: exit {status}, stderr {err!r}")

        cut = os.path.join(folder, "cut-\u4e2d.dll")
        with open(args.assembly, "rb") as f:
            data = f.read()
        with open(cut, "wb") as f:
            f.write(data[:200])
        status, out, err = run(["dis", cut])
        if status != 1 or not err.startswith(f"clrie-il: {cut}: not a valid .NET assembly: "):
            problems.append(f"dis {cut!r}: exit {status}, stderr {err!r}")

    for problem in problems:
        print("FAIL:", problem)
    print(f"{len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
