"""Rewriting every method changes nothing (proof on real programs): C# apps run
without a profiler and then with the engine and the stress plugin (examples/stress)
rewriting every method of the app's own modules, then every method of every module ('*',
the framework's jitted code included); stdout, stderr and exit code must equal the run
without a profiler, with no InvalidProgramException, and the plugin's report must show
methods instrumented and no failures.

Each scope runs in each mode: plain (single return, fat header, probes), Nops=true (a nop
before every instruction: short branches widened), Rejit=true (the same through ReJIT);
CLRIE_TEST_STRESS_MODES or --modes chooses fewer (stress_runs.chosen_modes).
The '*' runs set DOTNET_ReadyToRun=0, in their baseline too, so that the framework's code
is jitted (R2R code never is) and only the engine differs between the two runs.

Apps: rewrite (with tailcalls.dll, written by the tailgen app at test time), ilshapes, hello.

Usage: test_rewrite.py --engine SO --stress SO [--stress-guid GUID] --apps-out DIR
                       [--apps rewrite,ilshapes] [--scopes own,all] [--modes plain,nops,rejit]
                       [--keep] [--verbose]
Exit: 0 all passed, 1 a check failed, 77 no dotnet on this machine."""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402
import stress_runs  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--engine", required=True, help="the built libInstrumentationEngine.so")
parser.add_argument("--stress", required=True, help="the stress plugin (examples/stress)")
parser.add_argument("--stress-guid", default=stress_runs.STRESS_GUID,
                    help="the stress plugin's ClassGuid")
parser.add_argument("--apps-out", required=True, help="where the C# apps are built")
parser.add_argument("--apps", default="rewrite,ilshapes,hello")
parser.add_argument("--scopes", default="own,all", help="own: the app's modules; all: '*'")
parser.add_argument("--modes", help="comma-separated: plain, nops, rejit (default: "
                    "CLRIE_TEST_STRESS_MODES, else all three)")
parser.add_argument("--keep", action="store_true", help="keep each run's directory")
parser.add_argument("--verbose", action="store_true", help="print every run's report")
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, ("engine", "stress"), folders=("apps_out",))
modes = stress_runs.chosen_modes(args.modes)

NO_R2R = {"DOTNET_ReadyToRun": "0"}

# What a run of each app without a profiler must show, or comparing with it proves little:
# its exit code, and lines saying that every part ran (the tail calls and the jmp included).
BASELINE = {
    "rewrite": (37, ["SumTo(5000000) = 12500002500000", "Fault(1): System.ArgumentException",
                     "ShortJump = 66, -5", "Jump(4, 2) = 502, Jump(4, -1) = -1",
                     "stack trace lines = Level3:"],
                ["stderr: all sections ran"], ["failed:", "skipped"]),
    "ilshapes": (42, ["async = "], ["stderr: done"], []),
}
# Methods the engine must log as instrumented at first JIT (modes plain and nops; through
# ReJIT a method is rewritten only if it runs again after its rejit): IL that C# does not
# produce (tail. calls, a fault clause, a br.s at the edge of its range, a jmp) and the largest
# bodies.
MUST_BE_REWRITTEN = {
    "rewrite": ["TailCalls.SumTo", "TailCalls.IsEven", "TailCalls.Few", "TailCalls.Many",
                "Counter.Step", "TailCalls.ThrowAfter", "TailCalls.Fault", "TailCalls.ShortJump",
                "TailCalls.Jump",
                "Large.BigSwitch", "Large.NearTheLimit", "Large.LongLoopInTry",
                "Exceptions.Nested", "Values.Cursors", "Flow.TypedRef"],
}


def prepare(name):
    """Builds the app; returns (assembly, arguments, the module names of its own code)."""
    assembly = dotnet_apps.build_app(dotnet, name, args.apps_out)
    if name != "rewrite":
        return assembly, [], [name + ".dll"]
    generator = dotnet_apps.build_app(dotnet, "tailgen", args.apps_out, tool=True)
    tailcalls = os.path.join(args.apps_out, "tailcalls", "tailcalls.dll")
    os.makedirs(os.path.dirname(tailcalls), exist_ok=True)
    result = stress_runs.run([dotnet, generator, tailcalls])
    if result.returncode != 0 or not os.path.isfile(tailcalls):
        sys.exit("tailgen failed (exit %d):\n%s%s" % (result.returncode, result.stdout,
                                                      result.stderr))
    return assembly, [tailcalls], ["rewrite.dll", "tailcalls.dll"]


def check_report(what, mode, run_dir, minimum=1):
    report = stress_runs.parse_report(run_dir.report)
    errors = stress_runs.log_errors(run_dir.log)
    if not checks.expect(report is not None,
                         "%s: the stress plugin wrote its report %s" % (what, run_dir.report),
                         seen={"engine log errors": errors}):
        return None
    if args.verbose:
        print("   report: %s" % report["line"])
    for problem, expected, seen in stress_runs.report_problems(report, mode, minimum):
        checks.expect(False, "%s: %s\n    expected %s\n    seen     %r" % (
            what, problem, expected, seen),
            seen={"report": report["line"], "engine log errors": errors})
    return report


own_instrumented = {}  # app -> mode -> methods instrumented with Modules = its own dlls
for name in [a for a in args.apps.split(",") if a]:
    assembly, app_args, own_modules = prepare(name)
    command = [dotnet, assembly, *app_args]
    for scope in [s for s in args.scopes.split(",") if s]:
        scope_env = NO_R2R if scope == "all" else {}
        modules = "*" if scope == "all" else ";".join(own_modules)
        started = time.monotonic()
        base = stress_runs.run(command, scope_env)
        print("== %s, Modules=%s%s: without a profiler exit %d in %.1f s" % (
            name, modules, ", DOTNET_ReadyToRun=0" if scope_env else "", base.returncode,
            time.monotonic() - started), flush=True)
        if not checks.expect("InvalidProgramException" not in base.stdout + base.stderr,
                             "%s: the baseline run is clean" % name, base):
            continue
        if name in BASELINE:
            code, out_lines, err_lines, absent = BASELINE[name]
            ok = checks.expect(base.returncode == code,
                               "%s without a profiler: exit code\n    expected %d\n    seen     %d"
                               % (name, code, base.returncode), base)
            for needle in out_lines:
                ok &= checks.expect_in(needle, base.stdout, "%s without a profiler" % name)
            for needle in err_lines:
                ok &= checks.expect_in(needle, base.stderr, "%s without a profiler" % name)
            for needle in absent:
                ok &= checks.expect(needle not in base.stdout,
                                    "%s without a profiler: no %r in stdout" % (name, needle),
                                    base)
            if not ok:
                continue
        instrumented = {}
        for mode in modes:
            what = "%s, Modules=%s, %s" % (name, modules, mode)
            defect = stress_runs.runtime_defect(mode, modules)
            if defect:
                print("   %-6s left out: %s" % (mode, defect), flush=True)
                continue
            settings = dict(stress_runs.MODES[mode], Modules=modules)
            run_dir = stress_runs.Profiled(args.engine, args.stress, args.stress_guid, settings)
            before = len(checks.failures)
            try:
                started = time.monotonic()
                result = stress_runs.run(command, dict(scope_env, **run_dir.env))
                elapsed = time.monotonic() - started
                checks.same_as_baseline(what, result, base)
                # A ReJIT takes effect at a later call; hello calls its few methods once,
                # within milliseconds, so whether any rejit lands before it exits is a race.
                racy = mode == "rejit" and name == "hello" and modules != "*"
                report = check_report(what, mode, run_dir, minimum=0 if racy else 1)
                if report and "instrumented" in report:
                    instrumented[mode] = report["instrumented"]
                times = stress_runs.instrumentation_times(run_dir.log)
                if mode in ("plain", "nops"):
                    rewritten = {t[0] for t in times}
                    missing = [m for m in MUST_BE_REWRITTEN.get(name, []) if m not in rewritten]
                    checks.expect(not missing, "%s: the engine logged these methods as "
                                  "instrumented\n    expected %s\n    missing  %s" % (
                                      what, MUST_BE_REWRITTEN[name] if missing else "", missing))
                print("   %-6s exit %d in %.1f s; report: %s; %d engine lines 'instrumented'"
                      % (mode, result.returncode, elapsed,
                         report["line"] if report else "none", len(times)), flush=True)
            finally:
                run_dir.close(keep=args.keep or len(checks.failures) > before)
        if scope == "all":
            own = own_instrumented.get(name, {})
            for mode, count in instrumented.items():
                if mode in own:
                    checks.expect(count > own[mode],
                                  "%s, %s: Modules=* instruments more methods than the app's "
                                  "own modules\n    expected > %d\n    seen     %d" % (
                                      name, mode, own[mode], count))
        else:
            own_instrumented[name] = instrumented

sys.exit(checks.finish("every app ran unchanged with every method rewritten"))
