"""The example IL-rewriting plugins inside the real CoreCLR, through the engine:

  settings  a config entry's <Settings> reach the plugin (the stress plugin reports what it
            was told through the engine's log)
  tracer    examples/tracer on test/dotnet/sample: the exact enter/exit lines around the app's
            own output, exit code unchanged
  tracer-all  the tracer on every method of ilshapes: its own lines unchanged in between
  timer     examples/timer on sample, its helper loaded with DOTNET_STARTUP_HOOKS: one timer
            line per call of each selected method (also one left by an exception), output and
            exit code unchanged; on every method of ilshapes, the app unchanged; without the
            startup hook it times nothing and says why
  stress    examples/stress on every method of hello and ilshapes: stdout, stderr and exit
            code equal the run without a profiler, no InvalidProgramException, the report
            shows methods instrumented, none failed, the JIT took all the rewritten IL
  nops      the same with Nops=true
  rejit     the same with Rejit=true on ilshapes (instrumented through ReJIT only)
  all       the stress plugin on every jitted method of the process (Modules=*, with nops),
            at first JIT and through ReJIT, also with ReadyToRun off (all of CoreLib jitted)

Usage: test_plugins.py --engine SO --stress SO --tracer SO --timer SO --apps-out DIR
                       [--only settings,tracer,...] [--keep] [--verbose]
Exit: 0 all passed, 1 a check failed, 77 no dotnet on this machine."""
import argparse
import os
import re
import sys
from xml.sax.saxutils import quoteattr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

CONFIG_VAR = dotnet_apps.CONFIG_VAR
STRESS_GUID = "{5E5E5E5E-0000-4000-8000-000000000001}"
TRACER_GUID = "{7A7A7A7A-0000-4000-8000-000000000002}"
TIMER_GUID = "{71717171-0000-4000-8000-000000000003}"
HELPER_PROJECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                              "examples", "timer", "helper", "Clrie.Timer.csproj")

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--engine", required=True, help="the built libInstrumentationEngine.so")
parser.add_argument("--stress", required=True, help="examples/stress, built")
parser.add_argument("--tracer", required=True, help="examples/tracer, built")
parser.add_argument("--timer", required=True, help="examples/timer, built")
parser.add_argument("--apps-out", required=True, help="where the C# apps are built")
parser.add_argument("--only", default="settings,tracer,tracer-all,timer,stress,nops,rejit,all",
                    help="comma-separated scenarios")
parser.add_argument("--keep", action="store_true", help="keep the temporary directories")
parser.add_argument("--verbose", action="store_true", help="print every run's stderr")
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, ("engine", "stress", "tracer", "timer"),
                                   folders=("apps_out",))


class Sandbox(dotnet_apps.Sandbox):
    """A temporary directory with one scenario's config file, plugin copy and outputs."""

    def __init__(self, name):
        super().__init__("clrie-plugins", name, keep=args.keep)

    def config(self, name, module, guid, settings):
        """One plugin: its module copied in, its config entry with these settings."""
        self.copy(module, "plugins/" + os.path.basename(module))
        lines = "\n".join("      <Setting Name=%s Value=%s/>" % (quoteattr(k), quoteattr(v))
                          for k, v in settings.items())
        text = ("<InstrumentationEngineConfiguration>\n"
                "  <InstrumentationMethod>\n"
                "    <Name>%s</Name>\n"
                "    <Description>example plugin %s</Description>\n"
                "    <Module>plugins/%s</Module>\n"
                "    <ClassGuid>%s</ClassGuid>\n"
                "    <Priority>50</Priority>\n"
                "    <Settings>\n%s\n    </Settings>\n"
                "  </InstrumentationMethod>\n"
                "</InstrumentationEngineConfiguration>\n" % (
                    name, name, os.path.basename(module), guid, lines))
        self.env[CONFIG_VAR + name] = self.write(name + ".config", text)


apps = dotnet_apps.Apps(dotnet, args.apps_out, verbose=args.verbose)
app = apps.app
baseline = apps.baseline


def run(sandbox, name, extra_env=None):
    return apps.run(name, args.engine, dict(sandbox.env, **(extra_env or {})), sandbox.name)


def expect_same_as_baseline(name, result, what, stderr_too=True):
    checks.same_as_baseline(what, result, baseline(name),
                            stderr="equal" if stderr_too else "ignored")


# ---- settings ---------------------------------------------------------------------------------

def scenario_settings():
    sb = Sandbox("settings")
    try:
        sb.config("Stress", args.stress, STRESS_GUID,
                  {"Modules": "none-such.dll", "Nops": "true", "Report": sb.path("report.txt")})
        result = run(sb, "hello", {"MicrosoftInstrumentationEngine_LogLevel": "Messages"})
        what = "settings"
        expect_same_as_baseline("hello", result, what, stderr_too=False)
        checks.expect_in("stress: modules none-such.dll, nops on, at first JIT, report " +
                         sb.path("report.txt"), result.stderr,
                         "%s: the plugin read its <Settings> through the engine" % what, result)
        report = dotnet_apps.read_lines(sb.path("report.txt"))
        checks.expect(report == ["stress seen=0 instrumented=0 failed=0 rejit_requested=0 "
                                 "rejit_failed=0 jit_compiled=0 jit_failed=0"],
                      "%s: the report setting names the report file; nothing selected, "
                      "nothing done" % what, seen=report)
    finally:
        sb.close()


# ---- tracer -----------------------------------------------------------------------------------

TRACED_SAMPLE = """enter Sample.Program::Main
sample start
enter Sample.Program::Sum
exit Sample.Program::Sum
sum 10
enter Sample.Program::Classify
exit Sample.Program::Classify
enter Sample.Program::Classify
exit Sample.Program::Classify
enter Sample.Program::Classify
exit Sample.Program::Classify
negative zero positive
enter Sample.Program::Fail
caught boom
enter Sample.Point::.ctor
exit Sample.Point::.ctor
enter Sample.Point::.ctor
exit Sample.Point::.ctor
enter Sample.Shapes::Mid
enter Sample.Point::.ctor
exit Sample.Point::.ctor
exit Sample.Shapes::Mid
enter Sample.Point::ToString
exit Sample.Point::ToString
point (3, 5)
exit Sample.Program::Main
"""


def scenario_tracer():
    sb = Sandbox("tracer")
    what = "tracer"
    try:
        sb.config("Tracer", args.tracer, TRACER_GUID, {"Pattern": "Sample.*"})
        result = run(sb, "sample")
        base = baseline("sample")
        checks.expect(result.returncode == base.returncode,
                      "%s: exit code %d as without a profiler" % (what, base.returncode), result)
        checks.expect(result.stdout == TRACED_SAMPLE,
                      "%s: the enter and exit lines around the app's own output\n"
                      "    expected: %r" % (what, TRACED_SAMPLE), result)
        checks.expect(result.stderr == base.stderr,
                      "%s: stderr as without a profiler" % what, result)
    finally:
        sb.close()


def scenario_tracer_everything():
    """Every method of ilshapes traced: the app's own lines are unchanged between the traces
    (the framework, through which Console.WriteLine runs, is never traced)."""
    sb = Sandbox("tracer-all")
    what = "tracer on every method of ilshapes"
    try:
        sb.config("Tracer", args.tracer, TRACER_GUID, {"Pattern": "*"})
        result = run(sb, "ilshapes")
        base = baseline("ilshapes")
        lines = result.stdout.splitlines(keepends=True)
        own = "".join(line for line in lines if not line.startswith(("enter ", "exit ")))
        enters = [line for line in lines if line.startswith("enter ")]
        checks.expect(result.returncode == base.returncode,
                      "%s: exit code %d as without a profiler" % (what, base.returncode), result)
        checks.expect(own == base.stdout, "%s: the app's own stdout lines unchanged" % what,
                      result)
        checks.expect(result.stderr == base.stderr, "%s: stderr as without a profiler" % what,
                      result)
        checks.expect(len(enters) > 100 and "enter Program::Main\n" in enters,
                      "%s: over 100 methods entered, Program::Main among them" % what,
                      seen=enters[:5])
        print("   %s: %d enter lines" % (what, len(enters)))
    finally:
        sb.close()


# ---- timer ------------------------------------------------------------------------------------

def build_helper():
    """The timer's helper library, built for the runtime the apps run on (CLRIE_TEST_RUNTIME)."""
    return dotnet_apps.build_library(dotnet, os.path.abspath(HELPER_PROJECT), "Clrie.Timer",
                                     args.apps_out)


TIMED_SAMPLE = ["Sample.Program::Sum", "Sample.Program::Classify", "Sample.Program::Classify",
                "Sample.Program::Classify", "Sample.Program::Fail", "Sample.Shapes::Mid",
                "Sample.Program::Main"]


def scenario_timer():
    sb = Sandbox("timer")
    what = "timer"
    try:
        helper = build_helper()
        output = sb.path("timer.txt")
        sb.config("Timer", args.timer, TIMER_GUID,
                  {"Pattern": "Sample.Program::*;Sample.Shapes::*", "Output": output})
        result = run(sb, "sample", {"DOTNET_STARTUP_HOOKS": helper})
        expect_same_as_baseline("sample", result, what)
        lines = dotnet_apps.read_lines(output)
        timed = []
        for line in lines:
            match = re.fullmatch(r"timer (\S+) (\d+)us", line)
            checks.expect(match, "%s: a line 'timer <name> <n>us'" % what, seen=line)
            if match:
                timed.append(match.group(1))
        checks.expect(timed == TIMED_SAMPLE,
                      "%s: one line per call of each selected method, in the order they "
                      "return (Fail by its exception)" % what, seen=lines)
    finally:
        sb.close()

    # Every method of ilshapes timed (exceptions, filters, iterators, async): the app runs
    # exactly as without a profiler, and its Main is timed once. (Not necessarily last: an
    # async continuation on a pool thread may still be in its finally when Main returns.)
    sb = Sandbox("timer-all")
    what = "timer on every method of ilshapes"
    try:
        output = sb.path("timer.txt")
        sb.config("Timer", args.timer, TIMER_GUID, {"Pattern": "*", "Output": output})
        result = run(sb, "ilshapes", {"DOTNET_STARTUP_HOOKS": helper})
        expect_same_as_baseline("ilshapes", result, what)
        lines = dotnet_apps.read_lines(output)
        mains = [line for line in lines if line.startswith("timer Program::Main ")]
        checks.expect(len(lines) > 100 and len(mains) == 1,
                      "%s: over 100 timer lines, one of them Program::Main" % what,
                      seen=(len(lines), mains))
        print("   %s: %d timer lines" % (what, len(lines)))
    finally:
        sb.close()

    # Without the startup hook the helper cannot load: the timer times nothing and says why,
    # rather than make every timed method throw FileNotFoundException.
    sb = Sandbox("timer-no-helper")
    what = "timer without DOTNET_STARTUP_HOOKS"
    try:
        output = sb.path("timer.txt")
        sb.config("Timer", args.timer, TIMER_GUID, {"Pattern": "Sample.*", "Output": output})
        result = run(sb, "sample")
        expect_same_as_baseline("sample", result, what, stderr_too=False)
        checks.expect_in("DOTNET_STARTUP_HOOKS does not name Clrie.Timer.dll", result.stderr,
                         what + ": the reason on stderr", result)
        checks.expect(not os.path.exists(output), "%s: nothing timed" % what,
                      seen=dotnet_apps.read_lines(output))
    finally:
        sb.close()


# ---- stress -----------------------------------------------------------------------------------

REPORT = re.compile(r"stress seen=(\d+) instrumented=(\d+) failed=(\d+) "
                    r"rejit_requested=(\d+) rejit_failed=(\d+) "
                    r"jit_compiled=(\d+) jit_failed=(\d+)")


def stress_run(app_name, settings, what, env=None):
    sb = Sandbox("stress")
    try:
        report_path = sb.path("report.txt")
        settings = dict({"Modules": app_name + ".dll"}, **settings, Report=report_path)
        sb.config("Stress", args.stress, STRESS_GUID, settings)
        result = run(sb, app_name, env)
        expect_same_as_baseline(app_name, result, what)
        report = dotnet_apps.read_lines(report_path)
        match = REPORT.fullmatch(report[0]) if len(report) == 1 else None
        if not checks.expect(match, "%s: a one-line report" % what, result, report):
            return None
        seen, instrumented, failed, requested, rejit_failed, compiled, jit_failed = \
            map(int, match.groups())
        print("   %s: %s" % (what, report[0]))
        checks.expect(seen > 0, "%s: methods of %s.dll were jitted" % (what, app_name),
                      seen=report)
        checks.expect(instrumented > 0, "%s: methods were instrumented" % what, seen=report)
        checks.expect(failed == 0, "%s: no method failed" % what, result, report)
        checks.expect(rejit_failed == 0, "%s: no ReJIT request failed" % what, result, report)
        checks.expect(compiled > 0, "%s: the JIT compiled rewritten IL" % what, seen=report)
        checks.expect(jit_failed == 0, "%s: the JIT took all rewritten IL" % what, result,
                      report)
        return seen, instrumented, failed, requested, rejit_failed
    finally:
        sb.close()


def scenario_stress():
    for name in ("hello", "ilshapes"):
        counts = stress_run(name, {}, "stress %s" % name)
        if counts:
            seen, instrumented, _, requested, _ = counts
            checks.expect(instrumented == seen and requested == 0,
                          "stress %s: every jitted method instrumented at its first JIT" % name,
                          seen=counts)


def scenario_nops():
    for name in ("hello", "ilshapes"):
        counts = stress_run(name, {"Nops": "true"}, "stress %s, Nops" % name)
        if counts:
            checks.expect(counts[1] == counts[0],
                          "stress %s, Nops: every jitted method instrumented" % name,
                          seen=counts)


def scenario_rejit():
    # Not hello: it calls its few methods once, within milliseconds, so whether a rejit lands
    # before it exits is a race (test_rewrite covers hello's ReJIT requests).
    for name in ("ilshapes",):
        counts = stress_run(name, {"Rejit": "true"}, "stress %s, Rejit" % name)
        if counts:
            seen, instrumented, _, requested, _ = counts
            checks.expect(requested > 0, "stress %s, Rejit: rejits were requested" % name,
                          seen=counts)
            checks.expect(instrumented <= requested,
                          "stress %s, Rejit: only rejitted methods are instrumented" % name,
                          seen=counts)


def scenario_all():
    """Every jitted method of the process (the app's and the runtime's), with nops."""
    counts = stress_run("ilshapes", {"Modules": "*", "Nops": "true"}, "stress ilshapes, Modules=*")
    if counts:
        checks.expect(counts[1] == counts[0],
                      "stress ilshapes, Modules=*: every jitted method instrumented", seen=counts)
    counts = stress_run("ilshapes", {"Modules": "*", "Nops": "true", "Rejit": "true"},
                        "stress ilshapes, Modules=*, Rejit")
    if counts:
        checks.expect(counts[3] > 0, "stress ilshapes, Modules=*, Rejit: rejits were requested",
                      seen=counts)
    # ReadyToRun code is not jitted: without it the runtime jits (and the plugin rewrites)
    # all of System.Private.CoreLib the app uses.
    no_r2r = {"DOTNET_ReadyToRun": "0"}
    counts = stress_run("ilshapes", {"Modules": "*", "Nops": "true"},
                        "stress ilshapes, Modules=*, ReadyToRun off", no_r2r)
    if counts:
        checks.expect(counts[0] > 1000 and counts[1] == counts[0],
                      "stress ilshapes, Modules=*, ReadyToRun off: over 1000 methods, every "
                      "one instrumented", seen=counts)
    counts = stress_run("ilshapes", {"Modules": "*", "Nops": "true", "Rejit": "true"},
                        "stress ilshapes, Modules=*, ReadyToRun off, Rejit", no_r2r)
    if counts:
        checks.expect(counts[3] > 1000,
                      "stress ilshapes, Modules=*, ReadyToRun off, Rejit: over 1000 rejits",
                      seen=counts)


SCENARIOS = [("settings", scenario_settings), ("tracer", scenario_tracer),
             ("tracer-all", scenario_tracer_everything),
             ("timer", scenario_timer), ("stress", scenario_stress), ("nops", scenario_nops),
             ("rejit", scenario_rejit), ("all", scenario_all)]

dotnet_apps.run_scenarios(checks, [(name, name, scenario) for name, scenario in SCENARIOS],
                          args.only.split(","))

sys.exit(checks.finish("the example plugins rewrote real programs without changing them"))
