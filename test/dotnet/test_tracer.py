"""The tracer plugin (plugins/tracer) in the real runtime, installed as clrie installs it (the
plugin, Clrie.Tracing.dll and Tracer.config in one folder), on test/dotnet/traced with the
tracer factory of test/dotnet/recorder:

  traced        every traced call gives exactly the expected enter and finish events (static,
                instance, struct return, void, a throw, a generic method at two
                instantiations, an out parameter, several returns, nested traced calls, a
                method of a generic type, methods of value types, an async method (the tracer
                gets its Task), an iterator, a framework method precompiled with ReadyToRun);
                methods with by-ref-like parameters are left alone with a line (Span<T>, a
                ref struct of the app, and one of a second assembly of the app,
                test/dotnet/tracedlib, that no list names, and a generic method whose type
                parameter `allows ref struct`), and so is a method with a byref return; the
                app's
                stdout and exit code are as without a profiler; a malformed points file beside
                the good one is reported as file:line:col and the good one still applies; a
                factory whose library is missing is reported once and traces nothing; a
                method named by two points is traced by the first (in the file, and across
                files in the order of their names), the other one reported
  throw-entry   the factory throws in GetTracer: enter events only, the app unchanged; the
                engine's log has each method's first exception and, at exit, their count
  throw-finish  every tracer throws in Finish: all events, the app unchanged; logged so too
  null          the factory returns no tracer: enter events only, the app unchanged
  block         the factory blocks 100 ms at every call: all events, the app unchanged
  no-hook       without DOTNET_STARTUP_HOOKS the plugin traces nothing and says why; the app
                runs unchanged
  old-library   DOTNET_STARTUP_HOOKS names a Clrie.Tracing.dll of an older clrie
                (test/dotnet/oldtracing, without Shim.Needs): nothing traced, said with its
                path; the app runs unchanged
  http          test/dotnet/httpget, an HTTP client calling a server on 127.0.0.1, with the
                framework's System.Net.Http.HttpClient.SendAsync traced: one enter (with the
                request) and one finish (with the task) per request, the app unchanged
  tail          test/dotnet/rewrite with tailcalls.dll (tailgen): methods with `tail.` calls
                and one with a `jmp` are named by points but left alone with a line; the app
                unchanged (a wrapper that broke the tail calls would overflow the stack), the
                jmp method's result among its output
  spans         examples/activity-tracer on test/dotnet/spans: one Activity per traced call,
                nested as the calls are, status Error where an exception left the method;
                async methods (Task<T>, ValueTask<T>) end when their task completes, their
                awaited calls their children, their caller's calls meanwhile not; the app's
                stdout and exit code unchanged
  timings       examples/timings-tracer (the docs' complete tracer project) on
                test/dotnet/spans: its report at exit counts each method's calls and failures,
                an async method's time until its tasks complete
  allocation    test/dotnet/tracebench: a million calls of a method traced with a no-op tracer
                (its factory reading nothing), and of one whose factory gives no tracer,
                allocate no byte; each call was traced
  watch         test/dotnet/refreshed runs on while its points file changes on disk: a point
                added, its factory changed, a point removed; the events follow within 10 s,
                exactly one enter and one finish per traced call, none for a removed point
  attach        test/dotnet/refreshed started without a profiler, then clrie-attach loads the
                engine and the plugin: the methods already compiled are traced from the next
                call (needs --clrie-attach)
  refresh-call  the same with the folder not watched (Watch=false) and the app calling
                Clrie.Tracing.Tracing.Refresh(): the next call already follows the points
  unmatched     points that name no method of test/dotnet/traced (another parameter list,
                a name or a type that is not there) each give one error line with the nearest
                candidates, a point of an assembly that never loads one line at shutdown
                (LogLevel=Messages), the point that matches none; the app unchanged
  unmatched-refresh  test/dotnet/refreshed with a point naming no method of it: its error line
                at the module load and again at each Tracing.Refresh(), once each time
  check         clrie-tracer-check (--tracer-check) on the built traced app: what each point
                matches, the same candidates as the plugin's lines, an assembly not given, a
                broken points file, and its exit status

Usage: test_tracer.py --engine SO --plugin SO --library DLL --apps-out DIR
                      [--clrie-attach EXE] [--tracer-check EXE] [--only traced,...] [--keep]
                      [--verbose]
Exit: 0 all passed, 1 a check failed, 77 no dotnet on this machine."""
import argparse
import functools
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402
from refreshed_points import (FOLDER_VARIABLE, REFRESH_BOUND, STEPS,  # noqa: E402
                              WATCH_VARIABLE, Session, expected_events, follow_steps,
                              refresh_points)
import traced_points  # noqa: E402
from traced_points import ALL_EVENTS, ENTER_EVENTS  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--engine", required=True, help="the built libInstrumentationEngine.so")
parser.add_argument("--plugin", required=True, help="the built libclrie-tracer.so")
parser.add_argument("--library", required=True, help="the built Clrie.Tracing.dll")
parser.add_argument("--config", required=True,
                    help="the built Tracer.config (naming the plugin beside it)")
parser.add_argument("--apps-out", required=True, help="where the C# apps are built")
parser.add_argument("--clrie-attach", help="the built clrie-attach (scenario attach)")
parser.add_argument("--tracer-check", help="the built clrie-tracer-check (scenario check)")
parser.add_argument("--only", help="comma-separated scenarios (default: every one)")
parser.add_argument("--keep", action="store_true", help="keep the temporary directories")
parser.add_argument("--verbose", action="store_true", help="print every run's stderr")
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, ("engine", "plugin", "library"), folders=("apps_out",))
if os.environ.get(dotnet_apps.RID_VARIABLE):
    print("%s=%s: the tracer test runs on this machine's architecture only: skipped" % (
        dotnet_apps.RID_VARIABLE, os.environ[dotnet_apps.RID_VARIABLE]))
    sys.exit(dotnet_apps.SKIP)
args.library = dotnet_apps.tracing_library(dotnet, args.library, args.apps_out)

apps = dotnet_apps.Apps(dotnet, args.apps_out, verbose=args.verbose)


def build_factory(project, name):
    """Builds a tracer factory project against the built Clrie.Tracing.dll: its assembly."""
    return dotnet_apps.build_library(dotnet, project, name, args.apps_out,
                                     ["ClrieTracing=" + args.library])


@functools.lru_cache(maxsize=None)
def build_recorder():
    """The recorder factory, built once: every scenario uses it, and even a build with nothing
    to do costs seconds."""
    return build_factory(os.path.join(HERE, "recorder", "Recorder.csproj"), "Recorder")


class Sandbox(dotnet_apps.Sandbox):
    """The plugin's install folder (Tracer/), a points folder and the recorder's output."""

    def __init__(self, name, recorder):
        super().__init__("clrie-tracer", name, keep=args.keep)
        self.copy(args.plugin, "Tracer/libclrie-tracer.so")
        self.library = self.copy(args.library, "Tracer/Clrie.Tracing.dll", mode=0o644)
        config = self.copy(args.config, "Tracer/Tracer.config", mode=0o644)
        self.copy(recorder, traced_points.RECORDER_FILE, mode=0o644)
        traced_points.write_points(self)
        self.output = self.path("trace.txt")
        self.env = {
            dotnet_apps.CONFIG_VAR + "Tracer": config,
            FOLDER_VARIABLE: self.path("points"),
            "DOTNET_STARTUP_HOOKS": self.library,
            "CLRIE_TEST_TRACE_OUTPUT": self.output,
        }


def run(sandbox, extra_env=None):
    return apps.run("traced", args.engine, dict(sandbox.env, **(extra_env or {})), sandbox.name)


def expect_app_unchanged(what, result):
    checks.same_as_baseline(what, result, apps.baseline("traced"), stderr="contained")
    checks.expect("Unhandled exception" not in result.stderr,
                  "%s: no unhandled exception" % what, result)


def expect_events(what, sandbox, expected):
    seen = dotnet_apps.read_lines(sandbox.output)
    checks.expect(seen == expected, "%s: exactly the expected tracer events\n    expected: %r" % (
        what, expected), seen=seen)


# What a tracer's failures look like in the log: the first one of each method, then the count
# at exit.
THREW = {"throw-entry": "GetTracer threw System.InvalidOperationException: the tracer factory "
                        "failed; the app goes on as if untraced",
         "throw-finish": "Finish threw System.InvalidOperationException: the tracer failed; the "
                         "app goes on as if untraced"}


def expect_failures_logged(mode, result, events, log):
    """Each traced method whose factory or tracer threw has one line in the engine's log (the
    text `log`) for its first exception, with the exception's type and message, and one line
    at exit with how many there were."""
    calls = {}
    for event in events:
        if event.startswith("enter "):
            method = event.split(" ")[1]
            calls[method] = calls.get(method, 0) + 1
    lines = [line.split("]tracer: ", 1)[1] for line in log.splitlines()
             if line.startswith("LogError[") and "]tracer: " in line]
    first = sorted(line.split(" (factory ")[0] for line in lines if THREW[mode] in line)
    checks.expect(first == sorted(calls), "%s: the first exception of each traced method is "
                  "logged once, with its type and message" % mode, result, seen=first)
    counted = {}
    for line in lines:
        if line.endswith(" in all") and ": its factory or tracer threw " in line:
            times = int(line.rsplit(" threw ", 1)[1].split()[0])
            counted[line.split(" (factory ")[0]] = times
    checks.expect(counted == calls, "%s: at exit, how many exceptions each method's tracer "
                  "threw\n    expected: %r" % (mode, calls), result, seen=counted)


def scenario(mode, expected=None):
    def run_scenario():
        recorder = build_recorder()
        sb = Sandbox(mode, recorder)
        try:
            extra = {"CLRIE_TEST_TRACER_MODE": mode} if mode != "traced" else {}
            if mode == "traced":
                traced_points.write_problems(sb)
            log_file = sb.path("engine.log")
            if mode == "throw-entry":
                # the engine's log in a file: the app's stderr is then its own, as bare
                extra["MicrosoftInstrumentationEngine_FileLogPath"] = log_file
            result = run(sb, extra)
            expect_app_unchanged(mode, result)
            if mode == "throw-entry":
                checks.expect(result.stderr == apps.baseline("traced").stderr,
                              "%s: with the engine's log in a file, the app's stderr is as "
                              "without a profiler" % mode, result)
            if mode == "traced":
                traced_points.check_traced(checks, mode, result,
                                           dotnet_apps.read_lines(sb.output), sb.path,
                                           int(dotnet_apps.test_runtime() or 10))
                # Main takes no parameters; its point says System.String[]: never silent
                main = [i + 1 for i, line in enumerate(traced_points.POINTS.splitlines())
                        if 'name="Main"' in line][0]
                checks.expect_in("tracer: %s:%d: Traced.Program::Main(System.String[]) matches "
                                 "no method of traced: Traced.Program::Main takes "
                                 "parameters=\"\"\n" % (sb.path(traced_points.POINTS_FILE), main),
                                 result.stderr, "traced: the point of Main, whose parameters "
                                 "are wrong, is an error line with the right ones", result)
            else:
                expect_events(mode, sb, expected)
            if mode in THREW:
                log = result.stderr
                if mode == "throw-entry":
                    with open(log_file, encoding="utf-8", errors="replace") as f:
                        log = f.read()
                expect_failures_logged(mode, result, dotnet_apps.read_lines(sb.output), log)
        finally:
            sb.close()
    return run_scenario


def scenario_old_library():
    """The startup hook names a Clrie.Tracing.dll without what the plugin calls."""
    old = dotnet_apps.build_library(dotnet, os.path.join(HERE, "oldtracing", "oldtracing.csproj"),
                                    "Clrie.Tracing", os.path.join(args.apps_out, "oldtracing"))
    sb = Sandbox("old-library", build_recorder())
    try:
        library = sb.copy(old, "old/Clrie.Tracing.dll", mode=0o644)
        result = run(sb, {"DOTNET_STARTUP_HOOKS": library})
        expect_app_unchanged("old-library", result)
        checks.expect_in("%s is not the Clrie.Tracing this plugin calls "
                         "(Clrie.Tracing.Shim.Needs(int, string) is missing: a copy from an older "
                         "clrie?): nothing is traced" % library, result.stderr, "old-library: a library without what "
                         "the plugin calls is said, with its path", result)
        expect_events("old-library", sb, [])
    finally:
        sb.close()


def scenario_no_hook():
    sb = Sandbox("no-hook", build_recorder())
    try:
        env = dict(sb.env)
        del env["DOTNET_STARTUP_HOOKS"]
        result = apps.run("traced", args.engine, env, sb.name)
        expect_app_unchanged("no-hook", result)
        expect_events("no-hook", sb, [])
        checks.expect_in("DOTNET_STARTUP_HOOKS does not name Clrie.Tracing.dll", result.stderr,
                         "no-hook: the plugin says why it traces nothing", result)
    finally:
        sb.close()


# ---- http ------------------------------------------------------------------------------------

SEND_ASYNC = ("System.Net.Http.HttpClient::SendAsync(System.Net.Http.HttpRequestMessage,"
              "System.Net.Http.HttpCompletionOption,System.Threading.CancellationToken)")
HTTP_POINTS = """<Tracing>
  <Tracer factory="Recorder.Factory" library="recorder/Recorder.dll">
    <Method assembly="System.Net.Http" type="System.Net.Http.HttpClient" name="SendAsync"
            parameters="System.Net.Http.HttpRequestMessage, System.Net.Http.HttpCompletionOption,
                        System.Threading.CancellationToken"/>
  </Tracer>
</Tracing>
"""


def scenario_http():
    sb = Sandbox("http", build_recorder())
    try:
        os.unlink(sb.path("points/traced.xml"))
        sb.write("points/http.xml", HTTP_POINTS)
        result = apps.run("httpget", args.engine, sb.env, sb.name)
        checks.same_as_baseline("http", result, apps.baseline("httpget"), stderr="contained")
        checks.expect(result.stdout == "200 hello 1\n200 hello 2\n",
                      "http: the client got both answers", result)
        events = dotnet_apps.read_lines(sb.output)
        checks.expect(len(events) == 4, "http: four events, enter and finish per request",
                      seen=events)
        for i, line in enumerate(events[:4]):
            if i % 2 == 0:
                checks.expect(line.startswith("enter %s this=System.Net.Http.HttpClient args=["
                                              % SEND_ASYNC) and "/item/%d'" % (i // 2) in line,
                              "http: the enter event of request %d, with the request" % (i // 2),
                              seen=line)
            else:
                checks.expect(line == "finish System.Net.Http.HttpClient::SendAsync result=task",
                              "http: the finish event of request %d, with the task" % (i // 2),
                              seen=line)
    finally:
        sb.close()


# ---- tail calls ------------------------------------------------------------------------------

TAIL_POINTS = """<Tracing>
  <Tracer factory="Recorder.Factory" library="recorder/Recorder.dll">
    <Method assembly="tailcalls" type="TailCalls" name="SumTo"/>
    <Method assembly="tailcalls" type="TailCalls" name="IsEven"/>
    <Method assembly="tailcalls" type="TailCalls" name="Jump"/>
  </Tracer>
</Tracing>
"""


def scenario_tail():
    generator = dotnet_apps.build_app(dotnet, "tailgen", args.apps_out, tool=True)
    tailcalls = os.path.join(args.apps_out, "tailcalls", "tailcalls.dll")
    os.makedirs(os.path.dirname(tailcalls), exist_ok=True)
    made = subprocess.run([dotnet, generator, tailcalls],
                          env=dotnet_apps.quiet_environment(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if made.returncode != 0:
        sys.exit("tailgen failed:\n" + made.stdout)
    rewrite_apps = dotnet_apps.Apps(dotnet, args.apps_out, app_args=lambda name: [tailcalls],
                                    verbose=args.verbose)
    sb = Sandbox("tail", build_recorder())
    try:
        os.unlink(sb.path("points/traced.xml"))
        sb.write("points/tail.xml", TAIL_POINTS)
        result = rewrite_apps.run("rewrite", args.engine, sb.env, sb.name)
        checks.same_as_baseline("tail", result, rewrite_apps.baseline("rewrite"),
                                stderr="contained")
        for method in ("TailCalls.SumTo", "TailCalls.IsEven"):
            checks.expect_in("%s: not traced: it has a tail call" % method, result.stderr,
                             "tail: %s is left alone, with a line" % method, result)
        checks.expect_in("TailCalls.Jump: not traced: it has a jmp", result.stderr,
                         "tail: the jmp method is left alone, with a line", result)
        # Its original code ran: the argument it changed before the jmp reached the target.
        checks.expect_in("Jump(4, 2) = 502, Jump(4, -1) = -1", result.stdout,
                         "tail: the jmp method's results", result)
        checks.expect(dotnet_apps.read_lines(sb.output) == [],
                      "tail: no events", seen=dotnet_apps.read_lines(sb.output))
    finally:
        sb.close()


# ---- spans -----------------------------------------------------------------------------------

SPANS_POINTS = """<Tracing>
  <Tracer factory="Clrie.ActivityTracer.ActivityFactory"
          library="activity-tracer/Clrie.ActivityTracer.dll">
    <Method assembly="spans" type="Spans.Orders" name="Process"/>
    <Method assembly="spans" type="Spans.Orders" name="Validate"/>
    <Method assembly="spans" type="Spans.Orders" name="Charge"/>
    <Method assembly="spans" type="Spans.Shipping" name="Ship"/>
    <Method assembly="spans" type="Spans.Shipping" name="Quote"/>
    <Method assembly="spans" type="Spans.Shipping" name="Notify"/>
    <Method assembly="spans" type="Spans.Shipping" name="Cancelled"/>
  </Tracer>
</Tracing>
"""
SPANS = [
    "span Spans.Orders.Validate parent=Spans.Orders.Process status=Unset",
    "span Spans.Orders.Charge parent=Spans.Orders.Process status=Unset",
    "span Spans.Orders.Process parent=- status=Unset",
    "span Spans.Orders.Validate parent=Spans.Orders.Process status=Unset",
    "span Spans.Orders.Charge parent=Spans.Orders.Process status=Error",
    "span Spans.Orders.Process parent=- status=Error",
    # async: each span ends when its task completes; the caller's calls made meanwhile are not
    # its children, the awaited Quote is
    "span Spans.Orders.Validate parent=- status=Unset",
    "span Spans.Shipping.Quote parent=Spans.Shipping.Ship status=Unset",
    "span Spans.Shipping.Ship parent=- status=Unset",
    "span Spans.Shipping.Quote parent=Spans.Shipping.Ship status=Unset",
    "span Spans.Shipping.Ship parent=- status=Unset",
    "span Spans.Shipping.Notify parent=- status=Unset",
    "span Spans.Shipping.Cancelled parent=- status=Error",
    "span Spans.Shipping.Quote parent=Spans.Shipping.Ship status=Unset",
    "span Spans.Shipping.Ship parent=- status=Error",
]
# the shortest time each async span must last (ms): Ship(id) waits 100 * id ms, then Quote 100
SPAN_AT_LEAST = [("Spans.Shipping.Quote", 90), ("Spans.Shipping.Ship", 190),
                 ("Spans.Shipping.Quote", 90), ("Spans.Shipping.Ship", 390),
                 ("Spans.Shipping.Notify", 45), ("Spans.Shipping.Cancelled", 0),
                 ("Spans.Shipping.Quote", 90), ("Spans.Shipping.Ship", 290)]


def scenario_spans():
    factory = build_factory(os.path.join(HERE, "..", "..", "examples", "activity-tracer",
                                         "ActivityTracer.csproj"), "Clrie.ActivityTracer")
    sb = Sandbox("spans", build_recorder())
    try:
        os.unlink(sb.path("points/traced.xml"))
        sb.copy(factory, "points/activity-tracer/Clrie.ActivityTracer.dll", mode=0o644)
        sb.write("points/spans.xml", SPANS_POINTS)
        result = apps.run("spans", args.engine, sb.env, sb.name)
        checks.same_as_baseline("spans", result, apps.baseline("spans"), stderr="ignored")
        spans = [line for line in result.stderr.splitlines() if line.startswith("span ")]
        checks.expect(spans == SPANS, "spans: one activity per traced call, nested, with the "
                      "error status where an exception left the method\n    expected: %r"
                      % SPANS, seen=spans)
        took = [line.split()[1:] for line in result.stderr.splitlines()
                if line.startswith("took Spans.Shipping.")]
        checks.expect(len(took) == len(SPAN_AT_LEAST) and all(
            name == want and int(ms) >= least
            for (name, ms), (want, least) in zip(took, SPAN_AT_LEAST)),
            "spans: an async method's span lasts until its task completes (at least %r ms)"
            % SPAN_AT_LEAST, seen=took)
        checks.expect(not [line for line in apps.baseline("spans").stderr.splitlines()
                           if line.startswith("span ")],
                      "spans: no activity without the plugin", apps.baseline("spans"))
    finally:
        sb.close()


# ---- timings ---------------------------------------------------------------------------------

TIMINGS_POINTS = """<Tracing>
  <Tracer factory="Shop.Tracing.Timings" library="tracers/Shop.Tracing.dll">
    <Method assembly="spans" type="Spans.Orders" name="Process"/>
    <Method assembly="spans" type="Spans.Orders" name="Charge"/>
    <Method assembly="spans" type="Spans.Shipping" name="Ship"/>
  </Tracer>
</Tracing>
"""


def scenario_timings():
    """The docs' complete tracer project, examples/timings-tracer, built against the build's
    library as the docs build it against the installed one."""
    factory = dotnet_apps.build_library(
        dotnet, os.path.join(HERE, "..", "..", "examples", "timings-tracer", "Timings.csproj"),
        "Shop.Tracing", args.apps_out,
        ["ClrieTracer=" + os.path.dirname(os.path.abspath(args.library))])
    sb = Sandbox("timings", build_recorder())
    try:
        os.unlink(sb.path("points/traced.xml"))
        sb.copy(factory, "points/tracers/Shop.Tracing.dll", mode=0o644)
        sb.write("points/timings.xml", TIMINGS_POINTS)
        result = apps.run("spans", args.engine, sb.env, sb.name)
        checks.same_as_baseline("timings", result, apps.baseline("spans"), stderr="ignored")
        report = {}
        for line in result.stderr.splitlines():
            if line.startswith("timings: "):
                method, figures = line[len("timings: "):].rsplit(": ", 1)
                calls, failed, ms = figures.split(", ")
                report[method] = (calls, failed, float(ms.split()[0]))
        want = {"Spans.Orders::Charge(System.Int32)": ("2 calls", "1 failed"),
                "Spans.Orders::Process(System.Int32)": ("2 calls", "1 failed"),
                "Spans.Shipping::Ship(System.Int32)": ("3 calls", "1 failed")}
        checks.expect({m: r[:2] for m, r in report.items()} == want,
                      "timings: the report at exit counts each traced method's calls and "
                      "failures\n    expected: %r" % want, result, seen=report)
        ship = report.get("Spans.Shipping::Ship(System.Int32)", (0, 0, 0.0))[2]
        checks.expect(ship >= 850, "timings: the async Ship counts until its tasks complete "
                      "(at least 850 ms in all)", result, seen=ship)
    finally:
        sb.close()


# ---- allocation ------------------------------------------------------------------------------

BENCH_POINTS = """<Tracing>
  <Tracer factory="Bench.NoopFactory, tracebench">
    <Method assembly="tracebench" type="Bench.Program" name="Traced"/>
  </Tracer>
  <Tracer factory="Bench.NullFactory, tracebench">
    <Method assembly="tracebench" type="Bench.Program" name="TracedNull"/>
  </Tracer>
  <Tracer factory="Bench.BoxedFactory, tracebench">
    <Method assembly="tracebench" type="Bench.Program" name="TracedBoxed"/>
  </Tracer>
</Tracing>
"""


def scenario_allocation():
    # an app: self-contained for another .NET (the runtime matrix), as the others
    bench = dotnet_apps.build_app(dotnet, "tracebench", args.apps_out,
                                  properties=["ClrieTracing=" + os.path.abspath(args.library)])
    sb = Sandbox("allocation", build_recorder())
    try:
        os.unlink(sb.path("points/traced.xml"))
        sb.write("points/bench.xml", BENCH_POINTS)
        calls = 1000000
        result = dotnet_apps.run_app(dotnet, bench, args.engine, sb.env, ["alloc", str(calls)])
        figures = dict(line.rsplit(" ", 1) for line in result.stdout.splitlines()
                       if line.startswith(("alloc ", "finished ")))
        checks.expect(result.returncode == 0, "allocation: tracebench exits with 0", result)
        # the forms were traced: every call finished its tracer (or asked its factory)
        for form in ("traced", "null", "boxed"):
            checks.expect(int(figures.get("finished " + form, -1)) == 2 * calls,
                          "allocation: every call of the %s form went to its tracer" % form,
                          result, seen=figures)
        for form in ("traced", "null"):
            checks.expect(figures.get("alloc " + form) == "0", "allocation: %d calls traced by "
                          "the %s form allocate nothing" % (calls, form), result, seen=figures)
        # what the check would see if something were boxed
        checks.expect(int(figures.get("alloc boxed", 0)) >= 24 * calls,
                      "allocation: a factory reading the argument and the result gets them "
                      "boxed, which the count sees", result, seen=figures)
    finally:
        sb.close()


# ---- refresh ---------------------------------------------------------------------------------

def start_refreshed(sandbox, env, profiler=True):
    """test/dotnet/refreshed under the engine (or with no profiler), driven line by line."""
    full = dotnet_apps.quiet_environment()
    if profiler:
        full.update(CORECLR_ENABLE_PROFILING="1", CORECLR_PROFILER=dotnet_apps.PROFILER_CLSID,
                    CORECLR_PROFILER_PATH=args.engine)
    full.update(env)
    process = subprocess.Popen(
        dotnet_apps.app_command(dotnet, apps.app("refreshed")), env=full,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return Session(process, sandbox.output, dotnet_apps.read_lines)


def replace_points(sandbox, text):
    """Replaces the points file at once (a rename), as a deployment would."""
    temporary = sandbox.write("points/.refreshed.tmp", text)
    os.rename(temporary, sandbox.path("points/refreshed.xml"))


def scenario_refresh(watch):
    what = "watch" if watch else "refresh-call"
    sb = Sandbox(what, build_recorder())
    os.unlink(sb.path("points/traced.xml"))
    session = None
    try:
        replace_points(sb, refresh_points(STEPS[0]))
        env = dict(sb.env)
        if not watch:
            env[WATCH_VARIABLE] = "false"
        session = start_refreshed(sb, env)
        follow_steps(checks, what, session,
                     lambda methods: replace_points(sb, refresh_points(methods)), watch)
        session = None
    finally:
        if session:
            session.kill()
        sb.close()


def scenario_attach():
    if not args.clrie_attach:
        print("   no --clrie-attach: not run")
        return
    sb = Sandbox("attach", build_recorder())
    os.unlink(sb.path("points/traced.xml"))
    methods = [("Alpha", "Factory")]
    session = None
    try:
        replace_points(sb, refresh_points(methods))
        env = {"DOTNET_STARTUP_HOOKS": sb.library, "CLRIE_TEST_TRACE_OUTPUT": sb.output}
        session = start_refreshed(sb, env, profiler=False)
        answer, events = session.call()
        checks.expect(answer == "called 1 2 3" and events == [],
                      "attach: before the attach, the app runs untraced",
                      seen=(answer, events))
        attached = subprocess.run(
            [args.clrie_attach, str(session.process.pid), "--config",
             sb.env[dotnet_apps.CONFIG_VAR + "Tracer"], "--engine", args.engine,
             "--setting", "Folder=" + sb.path("points"), "--timeout", "20"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        if not checks.expect(attached.returncode == 0, "attach: clrie-attach attaches",
                             attached):
            return
        # The engine hands the plugin every module already loaded; their ReJIT requests are
        # made on the plugin's thread, so the first calls after the attach may still run the
        # old code: wait for the events, a bounded time.
        started = time.monotonic()
        want = expected_events(methods, session.calls + 1)
        answer, events = session.call()
        while events != want and time.monotonic() - started < REFRESH_BOUND:
            time.sleep(0.1)
            want = expected_events(methods, session.calls + 1)
            answer, events = session.call()
        checks.expect(events == want, "attach: the method compiled before the attach is traced "
                      "within %g s\n    expected: %r" % (REFRESH_BOUND, want), seen=events)
        answer, events = session.call()
        want = expected_events(methods, session.calls)
        checks.expect(events == want, "attach: and at the next call\n    expected: %r" % want,
                      seen=events)
        print("   traced %.2f s after the attach" % (time.monotonic() - started))
        code, err = session.finish()
        session = None
        checks.expect(code == 0, "attach: the app exits with 0", seen=err)
    finally:
        if session:
            session.kill()
        sb.close()


# ---- points that match nothing ---------------------------------------------------------------

UNMATCHED_POINTS = """<Tracing>
  <Tracer factory="Recorder.Factory" library="recorder/Recorder.dll">
    <Method assembly="traced" type="Traced.Calculator" name="Add"/>
    <Method assembly="traced" type="Traced.Calculator" name="Add" parameters="System.Int64"/>
    <Method assembly="traced" type="Traced.Calculator" name="Ad"/>
    <Method assembly="traced" type="Traced.Calculatr" name="Add"/>
    <Method assembly="Nowhere" type="Nowhere.Thing" name="Run" parameters=""/>
    <Method assembly="Clrie.Tracing" type="Clrie.Tracing.Shim" name="Enter"/>
  </Tracer>
</Tracing>
"""
# What the plugin and clrie-tracer-check say of each point after "<file>:<line>: ".
UNMATCHED_LINES = {
    4: "Traced.Calculator::Add(System.Int64) matches no method of traced: Traced.Calculator::Add "
       "takes parameters=\"System.Int32,System.Int32\"",
    5: "Traced.Calculator::Ad matches no method of traced: Traced.Calculator has no method Ad; "
       "nearest: Add",
    6: "Traced.Calculatr::Add matches no method of traced: no type Traced.Calculatr in assembly "
       "traced; nearest: Traced.Calculator, Traced.Pair",
}
NEVER_LOADED = "Nowhere.Thing::Run() was never traced: the assembly Nowhere never loaded"


def scenario_unmatched():
    sb = Sandbox("unmatched", build_recorder())
    try:
        os.unlink(sb.path("points/traced.xml"))
        points = sb.write("points/unmatched.xml", UNMATCHED_POINTS)
        result = apps.run("traced", args.engine,
                          dict(sb.env, MicrosoftInstrumentationEngine_LogLevel="Messages"),
                          sb.name)
        expect_app_unchanged("unmatched", result)
        lines = result.stderr.splitlines()
        for line, text in UNMATCHED_LINES.items():
            said = [x for x in lines if x.endswith("tracer: %s:%d: %s" % (points, line, text))]
            checks.expect(len(said) == 1 and "LogError" in said[0],
                          "unmatched: the point at line %d is an error line, once: %s"
                          % (line, text), result)
        checks.expect(not [x for x in lines if "%s:3: " % points in x and "matches no" in x],
                      "unmatched: the point that matches gives no such line", result)
        never = [x for x in lines if x.endswith("tracer: %s:7: %s" % (points, NEVER_LOADED))]
        checks.expect(len(never) == 1 and "LogMessage" in never[0],
                      "unmatched: the point of an assembly that never loaded is listed once at "
                      "shutdown, a message", result)
        library = [x for x in lines if x.endswith(
            "tracer: %s:8: Clrie.Tracing.Shim::Enter is never traced: Clrie.Tracing is the tracer "
            "library" % points)]
        checks.expect(len(library) == 1 and "LogError" in library[0],
                      "unmatched: a point naming the tracer library itself is an error line",
                      result)
        events = dotnet_apps.read_lines(sb.output)
        checks.expect(any(e.startswith("enter Traced.Calculator::Add") for e in events),
                      "unmatched: the point that matches traces", seen=events)
    finally:
        sb.close()


# Factories that cannot be made, each naming a method the app calls (a library that is missing
# is in the main scenario's points): the class missing, a class that is no ITracerFactory, a
# constructor that throws, a static constructor that throws; and one that works.
FACTORY_POINTS = """<Tracing>
  <Tracer factory="Recorder.Absent" library="recorder/Recorder.dll">
    <Method assembly="traced" type="Traced.Program" name="Log"/>
  </Tracer>
  <Tracer factory="Recorder.NotAFactory" library="recorder/Recorder.dll">
    <Method assembly="traced" type="Traced.Program" name="TryDouble"/>
  </Tracer>
  <Tracer factory="Recorder.Refusing" library="recorder/Recorder.dll">
    <Method assembly="traced" type="Traced.Program" name="Early"/>
  </Tracer>
  <Tracer factory="Recorder.BrokenStatics" library="recorder/Recorder.dll">
    <Method assembly="traced" type="Traced.Program" name="Mid"/>
  </Tracer>
  <Tracer factory="Recorder.Factory" library="recorder/Recorder.dll">
    <Method assembly="traced" type="Traced.Calculator" name="Add"/>
  </Tracer>
</Tracing>
"""
# What the engine's log says of each factory of FACTORY_POINTS that cannot be made (a regular
# expression): the exception's type and message, a constructor's own, not the reflection's
# wrapper. The runtime says "Could not load type" before .NET 10, "Could not resolve type" on it.
FACTORY_FAILURES = {
    "Recorder.Absent": r"System\.TypeLoadException: Could not (load|resolve) type "
                       r"'Recorder\.Absent' (from|in) assembly 'Recorder, [^;]*",
    "Recorder.NotAFactory": r"System\.InvalidCastException: Recorder\.NotAFactory does not "
                            r"implement Clrie\.Tracing\.ITracerFactory",
    "Recorder.Refusing": r"System\.InvalidOperationException: the refusing factory refuses",
    "Recorder.BrokenStatics": r"System\.ArgumentException: the static setting is missing",
}


def scenario_factories():
    sb = Sandbox("factories", build_recorder())
    try:
        os.unlink(sb.path("points/traced.xml"))
        points = sb.write("points/factories.xml", FACTORY_POINTS)
        log_file = sb.path("engine.log")
        result = run(sb, {"MicrosoftInstrumentationEngine_FileLogPath": log_file})
        expect_app_unchanged("factories", result)
        checks.expect(result.stderr == apps.baseline("traced").stderr,
                      "factories: the app's stderr is as without a profiler (the lines are in "
                      "the engine's log file)", result)
        with open(log_file, encoding="utf-8", errors="replace") as f:
            log = f.read().splitlines()
        library = os.path.join(sb.path("points"), "recorder/Recorder.dll")
        lines = FACTORY_POINTS.splitlines()
        for factory, said in FACTORY_FAILURES.items():
            method_line = [i + 1 for i, line in enumerate(lines) if factory + '"' in line][0] + 1
            line_re = re.compile(r"LogError\[[^]]*\]:\[IM:[^]]*\]tracer: cannot make the tracer "
                                 r"factory '%s' of %s \(%s:%d\): %s; its methods run without "
                                 r"tracers$" % (re.escape(factory), re.escape(library),
                                                re.escape(points), method_line, said))
            found = [line for line in log if line_re.match(line)]
            checks.expect(len(found) == 1,
                          "factories: %s is one error line in the engine's log with the "
                          "exception that stopped it" % factory,
                          seen=found or [line for line in log if factory in line])
        events = dotnet_apps.read_lines(sb.output)
        checks.expect(events == ["enter " + traced_points.CALLS[0][0],
                                 "finish " + traced_points.CALLS[0][1]],
                      "factories: the factory that works traces its method, the others' "
                      "methods run untraced", seen=events)
    finally:
        sb.close()


WRONG_POINTS = """<Tracing>
  <Tracer factory="Recorder.Factory" library="recorder/Recorder.dll">
    <Method assembly="refreshed" type="Refreshed.Work" name="Gamma"/>
  </Tracer>
</Tracing>
"""


def scenario_unmatched_refresh():
    sb = Sandbox("unmatched-refresh", build_recorder())
    os.unlink(sb.path("points/traced.xml"))
    session = None
    try:
        replace_points(sb, refresh_points(STEPS[0]))
        wrong = sb.write("points/wrong.xml", WRONG_POINTS)
        session = start_refreshed(sb, dict(sb.env, **{WATCH_VARIABLE: "false"}))
        answer, events = session.call()
        checks.expect(events == expected_events(STEPS[0], 1),
                      "unmatched-refresh: the point that matches traces", seen=events)
        for _ in range(2):
            answer = session.ask("refresh")
            checks.expect(answer == "refreshed True", "unmatched-refresh: Refresh() returns true",
                          seen=answer)
        code, err = session.finish()
        session = None
        checks.expect(code == 0, "unmatched-refresh: the app exits with 0", seen=err)
        said = [line for line in err.splitlines() if "tracer: %s:3: Refreshed.Work::Gamma matches "
                "no method of refreshed: Refreshed.Work has no method Gamma; nearest: " % wrong
                in line]
        print("   " + (said[0].split("tracer: ")[-1] if said else "no line"))
        checks.expect(len(said) == 3, "unmatched-refresh: the point's line at the load and at "
                      "each of the two refreshes, no more", seen=err)
    finally:
        if session:
            session.kill()
        sb.close()


def scenario_check():
    if not args.tracer_check:
        print("   no --tracer-check: not run")
        return
    app_folder = os.path.dirname(apps.app("traced"))
    sb = Sandbox("check", build_recorder())
    try:
        os.unlink(sb.path("points/traced.xml"))
        points = sb.write("points/unmatched.xml", UNMATCHED_POINTS)

        def check(*arguments):
            return subprocess.run([args.tracer_check, *arguments], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, timeout=120)

        done = check(sb.path("points"), app_folder)
        lines = done.stdout.splitlines()
        expected = ["%s:3: Traced.Calculator::Add -> 1 method: "
                    "Traced.Calculator::Add(System.Int32,System.Int32)" % points]
        expected += ["%s:%d: %s" % (points, line, text) for line, text in UNMATCHED_LINES.items()]
        expected += ["%s:7: Nowhere.Thing::Run(): assembly Nowhere not given" % points,
                     "%s:8: Clrie.Tracing.Shim::Enter is never traced: Clrie.Tracing is the "
                     "tracer library" % points,
                     "6 points: 1 matched, 4 matched nothing, 1 of assemblies not given; "
                     "0 problems reading files"]
        # the plugin's line of a point is the tool's
        got = [x for x in lines if not x.startswith(app_folder)]
        checks.expect(got == expected, "check: one line per point, as the plugin says it\n"
                      "    expected: %r" % expected, seen=done.stdout)
        checks.expect(done.returncode == 1, "check: exit 1 when a point matched nothing", done)

        # points that all match, and one of an assembly not given: 0 with --allow-missing
        only_good = """<Tracing>
  <Tracer factory="Recorder.Factory" library="recorder/Recorder.dll">
    <Method assembly="traced" type="Traced.Calculator" name="Add"/>
    <Method assembly="traced" type="Traced.Program" name="First" parameters="!!0[]"/>
    <Method assembly="Nowhere" type="Nowhere.Thing" name="Run"/>
  </Tracer>
</Tracing>
"""
        sb.write("points/unmatched.xml", only_good)
        done = check("--allow-missing", sb.path("points"), app_folder)
        checks.expect(done.returncode == 0 and "%s:4: Traced.Program::First(!!0[]) -> 1 method: "
                      "Traced.Program::First(!!0[])" % points in done.stdout,
                      "check: exit 0 when every point matched, the missing assembly allowed",
                      done)
        done = check(sb.path("points"), app_folder)
        checks.expect(done.returncode == 1, "check: exit 1 for a missing assembly without "
                      "--allow-missing", done)

        # a broken points file: its problem as the plugin reports it, and exit 1
        sb.write("points/broken.xml", traced_points.BAD_POINTS)
        done = check("--allow-missing", sb.path("points"), app_folder)
        checks.expect(done.returncode == 1 and "%s:3:5: <Method> needs a non-empty 'type' "
                      "attribute" % sb.path("points/broken.xml") in done.stdout,
                      "check: a broken file is reported at file:line:col, exit 1", done)

        # a file that is not an assembly, given by name: a clear line, exit 1
        os.unlink(sb.path("points/broken.xml"))
        junk = sb.write("junk.dll", "MZ not really\n")
        done = check("--allow-missing", sb.path("points"), junk)
        checks.expect(done.returncode == 1 and
                      done.stdout.startswith(junk + ": not an assembly: "),
                      "check: a file that is not an assembly is said so, exit 1", done)
        # the built app's assembly damaged (bytes changed, cut short): a line, never a crash
        with open(os.path.join(app_folder, "traced.dll"), "rb") as f:
            original = f.read()
        state, crashed = 12345, []
        for i in range(200):
            data = bytearray(original)
            for _ in range(1 + i % 4):
                state = (state * 1103515245 + 12345) % 2 ** 31
                data[state % len(data)] ^= 1 + state % 255
            if i % 10 == 9:
                data = data[:state % len(data)]
            mutant = sb.path("mutant.dll")
            with open(mutant, "wb") as f:
                f.write(data)
            done = check("--allow-missing", sb.path("points"), mutant)
            if done.returncode not in (0, 1) or not done.stdout.endswith("reading files\n"):
                crashed.append((i, done.returncode, done.stderr[-300:]))
        checks.expect(not crashed, "check: 200 damaged copies of traced.dll each end with a "
                      "summary, exit 0 or 1", seen=crashed[:3])
        done = check(sb.path("points"))
        checks.expect(done.returncode == 2 and "usage:" in done.stderr,
                      "check: a usage error exits 2", done)
    finally:
        sb.close()


dotnet_apps.run_scenarios(checks, [
    ("traced", "traced: the expected events, a bad file reported", scenario("traced")),
    ("throw-entry", "throw-entry: a factory that throws", scenario("throw-entry", ENTER_EVENTS)),
    ("throw-finish", "throw-finish: tracers that throw", scenario("throw-finish", ALL_EVENTS)),
    ("null", "null: a factory without tracers", scenario("null", ENTER_EVENTS)),
    ("block", "block: a factory that blocks", scenario("block", ALL_EVENTS)),
    ("no-hook", "no-hook: without the startup hook", scenario_no_hook),
    ("old-library", "old-library: the startup hook names an older Clrie.Tracing.dll",
     scenario_old_library),
    ("http", "http: HttpClient.SendAsync of the framework traced", scenario_http),
    ("tail", "tail: methods with tail calls left alone", scenario_tail),
    ("spans", "spans: examples/activity-tracer", scenario_spans),
    ("timings", "timings: examples/timings-tracer, the docs' tracer project", scenario_timings),
    ("allocation", "allocation: a traced call with a no-op tracer allocates nothing",
     scenario_allocation),
    ("watch", "watch: points changed on disk while the app runs",
     lambda: scenario_refresh(watch=True)),
    ("refresh-call", "refresh-call: points changed, then Tracing.Refresh()",
     lambda: scenario_refresh(watch=False)),
    ("attach", "attach: the engine and the plugin attached to a running app", scenario_attach),
    ("factories", "factories: factories that cannot be made, each said in the engine's log",
     scenario_factories),
    ("unmatched", "unmatched: points that name no method, each said once", scenario_unmatched),
    ("unmatched-refresh", "unmatched-refresh: said again at each refresh",
     scenario_unmatched_refresh),
    ("check", "check: clrie-tracer-check on the built app", scenario_check),
], set(args.only.split(",")) if args.only else None)
sys.exit(checks.finish("the tracer plugin traced test/dotnet/traced as expected"))
