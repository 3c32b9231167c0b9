#!/usr/bin/env python3
"""Every method body of every assembly of the installed .NET shared framework survives
`clrie-il check`: byte-exact decode/encode round trip, and single return + fat header
(and a try/finally wrap + fat header) gives a body that verifies. Prints the figures
(methods, round trips, original verifies, max stack agreement, transformed verifies); original-verify findings and max-stack
disagreements are reported, not failed on.

The framework is the newest Microsoft.NETCore.App that `dotnet --list-runtimes` names, or
else the newest /usr/share/dotnet/shared/Microsoft.NETCore.App/*/; exit 77 (skipped) when
there is none."""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

SKIP = 77


def version_key(v):
    return tuple(int(p) if p.isdigit() else 0 for p in re.split(r"[.-]", v))


def framework_dir(dotnet):
    found = []
    if dotnet:
        env = dict(os.environ, DOTNET_CLI_TELEMETRY_OPTOUT="1", DOTNET_NOLOGO="1")
        out = subprocess.run([dotnet, "--list-runtimes"], env=env, capture_output=True,
                             text=True)
        for line in out.stdout.splitlines():
            m = re.match(r"Microsoft\.NETCore\.App (\S+) \[(.*)\]", line)
            if m:
                found.append((version_key(m.group(1)), os.path.join(m.group(2), m.group(1))))
    if not found:
        for d in glob.glob("/usr/share/dotnet/shared/Microsoft.NETCore.App/*/"):
            found.append((version_key(os.path.basename(d.rstrip("/"))), d))
    found = [f for f in found if os.path.isdir(f[1])]
    return max(found)[1] if found else None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dotnet", default="dotnet")
    p.add_argument("--clrie-il", required=True)
    p.add_argument("--framework", help="folder of assemblies; default: newest installed")
    args = p.parse_args()

    framework = args.framework or framework_dir(shutil.which(args.dotnet or "dotnet"))
    if not framework:
        print("skipped: no Microsoft.NETCore.App shared framework")
        return SKIP
    dlls = sorted(glob.glob(os.path.join(framework, "*.dll")))
    if not dlls:
        print(f"skipped: no assemblies in {framework}")
        return SKIP
    print(f"clrie-il check on {len(dlls)} assemblies of {framework}", flush=True)
    r = subprocess.run([args.clrie_il, "check"] + dlls)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
