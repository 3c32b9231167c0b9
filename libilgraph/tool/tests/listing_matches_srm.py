#!/usr/bin/env python3
"""The C reader and System.Reflection.Metadata agree on every method body of the installed
shared framework: asm-list and `ildump --list` print identical listings (token, name, RVA,
body length, code size, max stack) for every assembly, including the five named below.

Builds test/ildump offline into the Meson build folder (restore may use only an empty
local package source) and exits 77 (skipped) when there is no dotnet or no framework."""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys

REQUIRED = ["System.Private.CoreLib", "System.Linq", "System.Collections",
            "System.Text.RegularExpressions", "System.Runtime"]
SKIP = 77


def skip(why):
    print(f"skipped: {why}")
    sys.exit(SKIP)


def framework_dir(dotnet, env):
    out = subprocess.run([dotnet, "--list-runtimes"], env=env, capture_output=True, text=True)
    best = None
    for line in out.stdout.splitlines():
        m = re.match(r"Microsoft\.NETCore\.App (\S+) \[(.*)\]", line)
        if not m:
            continue
        version = tuple(int(p) if p.isdigit() else 0 for p in re.split(r"[.-]", m.group(1)))
        if best is None or version > best[0]:
            best = (version, os.path.join(m.group(2), m.group(1)))
    return best[1] if best else None


def build_ildump(dotnet, env, source, build):
    src = os.path.join(build, "src")
    out = os.path.join(build, "out")
    empty_source = os.path.join(build, "no-packages")
    os.makedirs(src, exist_ok=True)
    os.makedirs(empty_source, exist_ok=True)
    for name in ("ildump.csproj", "Program.cs"):
        shutil.copy2(os.path.join(source, name), os.path.join(src, name))
    cmd = [dotnet, "build", "-c", "Release", "-o", out, "--source", empty_source,
           "--disable-build-servers", "-nodeReuse:false", "-v:q", "-nologo"]
    r = subprocess.run(cmd, cwd=src, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr, sep="\n")
        sys.exit(f"dotnet build of ildump failed ({r.returncode})")
    return [dotnet, os.path.join(out, "ildump.dll")]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8")
    return r.returncode, r.stdout, r.stderr


def prepare(args):
    """What both differential tests start from: the dotnet host (or a skip), the shared
    framework folder, ildump built offline into args.build_dir, and the framework's DLLs."""
    dotnet = shutil.which(args.dotnet) if args.dotnet else None
    if not dotnet:
        skip(f"no dotnet ({args.dotnet!r})")
    env = dict(os.environ, DOTNET_CLI_TELEMETRY_OPTOUT="1", DOTNET_NOLOGO="1",
               DOTNET_SKIP_FIRST_TIME_EXPERIENCE="1",
               NUGET_PACKAGES=os.path.join(args.build_dir, "nuget-packages"))
    framework = args.framework or framework_dir(dotnet, env)
    if not framework or not os.path.isdir(framework):
        skip("no Microsoft.NETCore.App shared framework")
    ildump = build_ildump(dotnet, env, args.ildump_source, args.build_dir)
    dlls = sorted(f for f in os.listdir(framework) if f.endswith(".dll"))
    missing = [r for r in REQUIRED if r + ".dll" not in dlls]
    if missing:
        sys.exit(f"{framework} lacks {', '.join(missing)}")
    return ildump, framework, dlls


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dotnet", default="dotnet")
    p.add_argument("--ildump-source", required=True)
    p.add_argument("--build-dir", required=True)
    p.add_argument("--asm-list", required=True)
    p.add_argument("--framework", help="folder of assemblies; default: newest installed")
    p.add_argument("--also", action="append", default=[], help="another assembly to compare")
    args = p.parse_args()

    ildump, framework, dlls = prepare(args)
    failures = methods = bodies = 0
    for path in [os.path.join(framework, dll) for dll in dlls] + args.also:
        dll = os.path.basename(path)
        c_rc, c_out, c_err = run([args.asm_list, path])
        s_rc, s_out, s_err = run(ildump + ["--list", path])
        if c_rc != 0 or s_rc != 0 or c_out != s_out:
            failures += 1
            print(f"DIFFERS {dll}: asm-list rc {c_rc}, ildump rc {s_rc}")
            sys.stdout.write(c_err + s_err)
            diff = difflib.unified_diff(c_out.splitlines(), s_out.splitlines(),
                                        "asm-list", "ildump --list", lineterm="", n=0)
            for i, line in enumerate(diff):
                if i >= 20:
                    break
                print(line)
            continue
        lines = c_out.splitlines()
        methods += len(lines)
        bodies += sum(1 for line in lines if not line.endswith(" 0 0 0"))

    # The canonical disassembly runs over a whole assembly and prints one method per body.
    linq = os.path.join(framework, "System.Linq.dll")
    rc, out, err = run(ildump + [linq])
    _, listing, _ = run([args.asm_list, linq])
    expected = sum(1 for line in listing.splitlines() if not line.endswith(" 0 0 0"))
    printed = sum(1 for line in out.splitlines() if line.startswith("method "))
    if rc != 0 or printed != expected:
        failures += 1
        print(f"ildump disassembly of System.Linq: rc {rc}, {printed} methods, expected "
              f"{expected}\n{err}")

    print(f"{len(dlls)} assemblies in {framework} and {len(args.also)} more: {methods} methods, "
          f"{bodies} bodies, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
