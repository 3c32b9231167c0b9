"""The SDK's C# compiler, rewritten, compiles byte-identical output (proof on real
programs): csc.dll compiles test/dotnet/csc-input/*.cs deterministically (-deterministic,
fixed -pathmap, portable PDB) once without a profiler and then with the engine and the
stress plugin rewriting every method of the compiler's Microsoft.CodeAnalysis*.dll
assemblies, in each mode (plain, Nops=true, Rejit=true; CLRIE_TEST_STRESS_MODES or --modes
chooses fewer). The DLL and the PDB must be
byte-identical to the uninstrumented build, the compiler's stdout, stderr and exit code
the same, and the plugin's report must show thousands of methods instrumented and no
failures.

With CLRIE_TEST_RUNTIME (.NET 8, 9), whose runtime cannot load the SDK's csc.dll (it is built
against the SDK's .NET), the compiler is test/dotnet/cschost instead: Roslyn from NuGet, built
for that runtime, compiling the same command line through csc's own argument parser.

The compiler's assemblies are ReadyToRun and R2R code is never jitted, so every run, the
baseline included, sets DOTNET_ReadyToRun=0: only the engine differs between them.

Usage: test_csc.py --engine SO --stress SO [--stress-guid GUID] --out DIR
                   [--modes plain,nops,rejit] [--keep] [--verbose]
Exit: 0 all passed, 1 a check failed, 77 no dotnet, no SDK or no csc.dll on this machine."""
import argparse
import glob
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402
import stress_runs  # noqa: E402

# "Thousands of methods": the compiler's own methods a compile of csc-input runs through.
MINIMUM_INSTRUMENTED = 2000

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--engine", required=True, help="the built libInstrumentationEngine.so")
parser.add_argument("--stress", required=True, help="the stress plugin (examples/stress)")
parser.add_argument("--stress-guid", default=stress_runs.STRESS_GUID,
                    help="the stress plugin's ClassGuid")
parser.add_argument("--out", required=True, help="a folder for the compiled outputs")
parser.add_argument("--modes", help="comma-separated: plain, nops, rejit (default: "
                    "CLRIE_TEST_STRESS_MODES, else all three)")
parser.add_argument("--keep", action="store_true", help="keep each run's directory")
parser.add_argument("--verbose", action="store_true", help="print every run's report")
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, ("engine", "stress"), folders=("out",))
modes = stress_runs.chosen_modes(args.modes)
references = stress_runs.reference_assemblies(dotnet)
if dotnet_apps.test_runtime():
    # The SDK's csc.dll is built against its own .NET's assemblies, which an older runtime
    # cannot load: the same compiler (Roslyn, from NuGet) in test/dotnet/cschost, built for the
    # runtime under test, compiles the same command line.
    csc = dotnet_apps.build_app(dotnet, "cschost", args.out)
else:
    csc = stress_runs.find_csc(dotnet)
    dotnet_apps.announce_runtime(dotnet, os.path.dirname(csc))
if not csc or not references:
    print("no SDK with Roslyn/bincore/csc.dll and reference packs for %s: skipped" % dotnet)
    sys.exit(dotnet_apps.SKIP)

NO_R2R = {"DOTNET_ReadyToRun": "0"}
OUTPUTS = ("cscinput.dll", "cscinput.pdb")
modules = ";".join(sorted(os.path.basename(p) for p in
                          glob.glob(os.path.join(os.path.dirname(csc),
                                                 "Microsoft.CodeAnalysis*.dll"))))
print("csc: %s\nModules=%s\n%d reference assemblies from %s" % (
    csc, modules, len(references), os.path.dirname(references[0])), flush=True)


def compile_into(folder, env):
    """Compiles csc-input into folder (emptied first; every run writes to the same path, so
    the PDB path inside the DLL is the same) and returns (result, seconds)."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    started = time.monotonic()
    result = stress_runs.run(stress_runs.csc_command(dotnet, csc, folder, references), env,
                             cwd=stress_runs.CSC_INPUT)
    return result, time.monotonic() - started


def read_outputs(folder):
    contents = {}
    for name in OUTPUTS:
        try:
            with open(os.path.join(folder, name), "rb") as f:
                contents[name] = f.read()
        except FileNotFoundError:
            contents[name] = None
    return contents


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


build = os.path.join(args.out, "build")
base, seconds = compile_into(build, NO_R2R)
print("== without a profiler: exit %d in %.1f s" % (base.returncode, seconds), flush=True)
expected = read_outputs(build)
checks.expect(base.returncode == 0 and all(expected.values()),
              "the uninstrumented compile succeeds and writes %s" % ", ".join(OUTPUTS), base)
if checks.failures:
    sys.exit(checks.finish(""))
# Two uninstrumented compiles agree, or byte equality would prove nothing.
again, _ = compile_into(build, NO_R2R)
checks.expect(read_outputs(build) == expected and again.stdout == base.stdout,
              "two compiles without a profiler are byte-identical (-deterministic)", again)

for mode in modes:
    what = "csc, Modules=Microsoft.CodeAnalysis*.dll, %s" % mode
    settings = dict(stress_runs.MODES[mode], Modules=modules)
    run_dir = stress_runs.Profiled(args.engine, args.stress, args.stress_guid, settings,
                                   prefix="clrie-csc-")
    before = len(checks.failures)
    try:
        result, seconds = compile_into(build, dict(NO_R2R, **run_dir.env))
        checks.same_as_baseline(what, result, base)
        written = read_outputs(build)
        for name in OUTPUTS:
            a, b = expected[name], written[name]
            if b is None:
                checks.expect(False, "%s: %s written" % (what, name), result)
                continue
            checks.expect(a == b, "%s: %s byte-identical to the uninstrumented build\n"
                          "    expected %d bytes\n    seen     %d bytes, first difference at "
                          "offset %d" % (what, name, len(a), len(b), first_difference(a, b)))
        report = stress_runs.parse_report(run_dir.report)
        errors = stress_runs.log_errors(run_dir.log)
        if checks.expect(report is not None, "%s: the stress plugin wrote its report" % what,
                         seen={"engine log errors": errors}):
            for problem, wanted, got in stress_runs.report_problems(
                    report, mode, MINIMUM_INSTRUMENTED):
                checks.expect(False, "%s: %s\n    expected %s\n    seen     %r" % (
                    what, problem, wanted, got),
                    seen={"report": report["line"], "engine log errors": errors})
        times = stress_runs.instrumentation_times(run_dir.log)
        print("   %-6s exit %d in %.1f s; report: %s; %d engine lines 'instrumented'" % (
            mode, result.returncode, seconds, report["line"] if report else "none",
            len(times)), flush=True)
    finally:
        run_dir.close(keep=args.keep or len(checks.failures) > before)

sys.exit(checks.finish("the rewritten compiler wrote byte-identical output in every mode"))
