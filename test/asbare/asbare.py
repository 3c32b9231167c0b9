"""As bare: the runtime's own behaviours, run without a profiler and under the engine, compared.

Each case of the corpus (test/asbare/cases: a hardware fault turned into an exception, a
stack overflow, FailFast, an unhandled exception, Environment.Exit from a finalizer, signals
sent by this script, child processes, the GC, stack traces, dynamic code, ...) runs as its
own process once without a profiler, then under the engine in each variant:

  engine        the engine and no configuration file
  declining     a plugin that asks for every event family (exceptions included) and
                declines every method (test/plugins/delivery_probe.c)
  stress        the stress plugin (examples/stress) rewriting every method at its first JIT,
                with a nop before every instruction, so that every IL offset moves and the
                runtime finds source lines through the engine's IL maps
  stress-rejit  the stress plugin rewriting every method again through ReJIT

and each must match the run without a profiler: stdout, stderr and how the process ended
(exit code or signal). The stress variants run with DOTNET_ReadyToRun=0, so that the
framework's methods are compiled by the JIT (and rewritten) too, and are compared with a run
without a profiler with the same setting. The only normalisation is of what differs from run
to run of the same program: a temporary file's name and the repeat count of a stack
overflow's frames (a rewritten method's frame is larger, so fewer of them fit in the stack).
Where the runtime itself makes a profiler's rewriting visible, KNOWN names the lines and why.

Usage: asbare.py --engine SO --probe SO --stress SO --apps-out DIR [--cases a,b]
                 [--variants engine,declining,stress,stress-rejit] [--jobs N] [--show]
--variants defaults to CLRIE_TEST_ASBARE_VARIANTS, else every variant.
--show prints each case's output without a profiler. Exit: 0 every case as bare, 1 a case
differed, 77 no dotnet on this machine."""
import argparse
import concurrent.futures
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "dotnet"))
import dotnet_apps  # noqa: E402
import stress_runs  # noqa: E402

# The signals each case waits for, sent in order, each once the case has printed the line
# before it ("ready", then one line per signal it handles). A case whose last signal ends it
# prints its line first where it can.
SIGNALS = {
    "posix-signals": [signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM],
    "sigterm-default": [signal.SIGTERM],
    "cancel-key-press": [signal.SIGINT, signal.SIGQUIT, signal.SIGINT],
}
# How a case without a profiler must end, or the comparison would prove little: a case that
# ends by a signal or an exit code of its own says so here (a tuple: the runtime's versions
# differ); every other one exits 0.
EXPECTED_ENDING = {
    "access-violation": -signal.SIGABRT,
    "native-abort": -signal.SIGABRT,
    "stack-overflow": -signal.SIGABRT,
    "failfast": -signal.SIGABRT,
    "unhandled": -signal.SIGABRT,
    "unhandled-thread": -signal.SIGABRT,
    "exit-code": 43,
    "exit-from-finalizer": 7,
    "exit-from-thread": 9,
    "process-exit": 3,
    "sigterm-default": (-signal.SIGTERM, 143),  # .NET 10; 8 and 9 exit 143
    "cancel-key-press": -signal.SIGINT,
}
# The delivery probe's class ID (any: the module serves every class ID) and the mask it asks
# for: module, assembly and app domain loads, JIT, exceptions, ReJIT.
PROBE_GUID = "{A5BA5E00-0000-4000-8000-0000000000A5}"
PROBE_MASK = "4007C"
# Each variant: the run without a profiler it is compared with, and the stress plugin's
# settings where it loads that plugin.
NO_R2R = {"DOTNET_ReadyToRun": "0"}
VARIANTS = {
    "engine": {"baseline": "bare"},
    "declining": {"baseline": "bare"},
    "stress": {"baseline": "bare-jitted", "stress": {"Modules": "*", "Nops": "true"}},
    "stress-rejit": {"baseline": "bare-jitted", "stress": {"Modules": "*", "Rejit": "true"}},
}
BASELINES = {"bare": {}, "bare-jitted": NO_R2R}
# Variants left out on a runtime that cannot run them, and why (printed with each run there).
RUNTIME_DEFECTS = {
    "8": {"stress-rejit": "on .NET 8 the runtime crashes (SIGSEGV) or deadlocks in about one "
                          "run in four of dynamic-code when a method with a ReJIT pending is "
                          "inlined (CEEInfo::reportInliningDecision requests a ReJIT with a "
                          "wrong module ID, under its code-versioning lock: dotnet/runtime "
                          "issues 95653 and 97771, fixed in .NET 9); any profiler that requests "
                          "ReJITs while the app compiles methods meets it there"},
}
# Differences the runtime itself makes when a profiler rewrites methods: (case, variant) ->
# (the lines of stdout that may differ, why). The other lines must still match, and the
# lines that may differ must be as many.
KNOWN = {
    ("reflection", "stress"): (
        re.compile(r"^\[compiled\] "),
        "reflection reads the body of a method rewritten at its first JIT as the runtime serves "
        "it: the IL the profiler gave (SetILFunctionBody), as under every engine that rewrites "
        "there, CLRIE included; a method rewritten through ReJIT keeps its metadata body"),
}
RUN_TIMEOUT = 240
# test/run's runtime matrix and sanitized builds run fewer variants (the time of the whole run).
VARIANTS_VARIABLE = "CLRIE_TEST_ASBARE_VARIANTS"

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--engine", required=True, help="the built libInstrumentationEngine.so")
parser.add_argument("--probe", required=True, help="test/plugins' delivery probe")
parser.add_argument("--stress", required=True, help="the stress plugin (examples/stress)")
parser.add_argument("--apps-out", required=True, help="where the corpus is built")
parser.add_argument("--cases", help="comma-separated case names (default: all)")
parser.add_argument("--variants",
                    default=os.environ.get(VARIANTS_VARIABLE) or ",".join(VARIANTS),
                    help="the variants to run (default: %s, else all)" % VARIANTS_VARIABLE)
parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
parser.add_argument("--show", action="store_true", help="print each case's bare output")
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, ("engine", "probe", "stress"), folders=("apps_out",))
variants = [v for v in args.variants.split(",") if v]
unknown = [v for v in variants if v not in VARIANTS]
if unknown:
    sys.exit("unknown variant %s (the variants: %s)" % (", ".join(unknown), ", ".join(VARIANTS)))
for variant, why in RUNTIME_DEFECTS.get(dotnet_apps.test_runtime() or "", {}).items():
    if variant in variants:
        variants.remove(variant)
        print("variant %s left out: %s" % (variant, why), flush=True)

# The cases run as from a terminal: a signal this script inherited as ignored (a background
# job of a shell ignores SIGINT and SIGQUIT) would be ignored by every case too, and the
# runtime leaves an ignored signal ignored. A disposition other than "ignore" is reset at exec.
signal.signal(signal.SIGINT, signal.default_int_handler)
for ignored in (signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM):
    if signal.getsignal(ignored) == signal.SIG_IGN:
        signal.signal(ignored, signal.SIG_DFL)

app = dotnet_apps.build_app(dotnet, "asbare", args.apps_out,
                            project=os.path.join(HERE, "cases", "asbare.csproj"))
listed = dotnet_apps.run_app(dotnet, app, args=["list"])
if listed.returncode != 0:
    sys.exit("asbare list failed:\n%s%s" % (listed.stdout, listed.stderr))
cases = listed.stdout.split()
if args.cases:
    wanted = args.cases.split(",")
    missing = [c for c in wanted if c not in cases]
    if missing:
        sys.exit("no case %s (the cases: %s)" % (", ".join(missing), ", ".join(cases)))
    cases = wanted


class Ending:
    """What a run left: exit code (negative: the signal), stdout, stderr."""

    def __init__(self, returncode, stdout, stderr):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


def run_case(case, env):
    """Runs one case to its end; sends the case's signals as it asks for them."""
    command = dotnet_apps.app_command(dotnet, app) + [case]
    process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    errors = []
    reader = threading.Thread(target=lambda: errors.append(process.stderr.read()), daemon=True)
    reader.start()
    out = []
    deadline = time.monotonic() + RUN_TIMEOUT
    timer = threading.Timer(RUN_TIMEOUT, process.kill)
    timer.start()
    try:
        pending = list(SIGNALS.get(case, []))
        while pending:
            line = process.stdout.readline()
            if not line:
                break
            out.append(line)
            process.send_signal(pending.pop(0))
        out.append(process.stdout.read())
        process.wait(timeout=max(1, deadline - time.monotonic()))
    finally:
        timer.cancel()
    reader.join(timeout=10)
    stdout = b"".join(out).decode(errors="replace")
    stderr = (errors[0] if errors else b"").decode(errors="replace")
    if time.monotonic() >= deadline:
        stderr += "\n[asbare: the case did not end in %d s and was killed]" % RUN_TIMEOUT
    return Ending(process.returncode, stdout, stderr)


# A stack overflow prints its repeated frames once with a count, which depends on the size of
# each frame; a temporary file's name holds a random part.
NORMALISE = [
    (re.compile(r"Repeat(ed)? \d+ times:"), "Repeated N times:"),
    (re.compile(r"asbare-copy-[0-9a-f]{32}"), "asbare-copy-X"),
]


def normalise(text):
    for pattern, replacement in NORMALISE:
        text = pattern.sub(replacement, text)
    return text


def describe_ending(code):
    if code is None:
        return "still running"
    if code < 0:
        try:
            return "killed by %s" % signal.Signals(-code).name
        except ValueError:
            return "killed by signal %d" % -code
    return "exit %d" % code


box = dotnet_apps.Sandbox("clrie-asbare", "runs")
try:
    base_env = dotnet_apps.quiet_environment()
    # No dump files from the cases that crash on purpose, with or without the engine.
    base_env.update(DOTNET_DbgEnableMiniDump="0")
    profiled = dict(base_env, CORECLR_ENABLE_PROFILING="1",
                    CORECLR_PROFILER=dotnet_apps.PROFILER_CLSID,
                    CORECLR_PROFILER_PATH=args.engine)
    probe_config = box.write("probe.config", """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>Declining</Name>
    <Description>asks for every event family, instruments nothing</Description>
    <Module>%s</Module>
    <ClassGuid>%s</ClassGuid>
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
""" % (stress_runs.xml_escape(args.probe), PROBE_GUID))
    suffix = dotnet_apps.engine_arch_suffix()
    config_var = "MicrosoftInstrumentationEngine_ConfigPath%s_" % suffix

    def stress_config(case, variant):
        """A config file loading the stress plugin with the variant's settings, its report
        going to <case>.<variant>.txt; the environment variable naming it."""
        folder = box.path("%s.%s" % (case, variant))
        os.makedirs(folder, exist_ok=True)
        settings = dict(VARIANTS[variant]["stress"], Report=folder + ".txt")
        env = stress_runs.write_stress_config(folder, args.stress, stress_runs.STRESS_GUID,
                                              settings)
        return {config_var + "Stress": env[stress_runs.CONFIG_VAR]}

    def environment(variant, case):
        if variant in BASELINES:
            return dict(base_env, **BASELINES[variant])
        env = dict(profiled)
        if variant == "declining":
            env[config_var + "Declining"] = probe_config
            env["CLRIE_DELIVERY_PROBE_%s_MASK" % PROBE_GUID[1:9]] = PROBE_MASK
            env["CLRIE_DELIVERY_PROBE_FILE"] = box.path("%s.probe.txt" % case)
        if "stress" in VARIANTS[variant]:
            env.update(NO_R2R)
            env.update(stress_config(case, variant))
        return env

    started = time.monotonic()
    baselines = sorted({VARIANTS[v]["baseline"] for v in variants} | {"bare"})
    jobs = [(case, variant) for case in cases for variant in baselines + variants]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_case, case, environment(variant, case)): (case, variant)
                   for case, variant in jobs}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()
    print("%d runs of %d cases in %.0f s (%d at a time)" % (
        len(jobs), len(cases), time.monotonic() - started, args.jobs), flush=True)

    width = max(len(c) for c in cases)
    print("%-*s  %-18s %s" % (width, "case", "without a profiler", "  ".join(variants)))
    notes = []
    for case in cases:
        bare = results[(case, "bare")]
        expected = EXPECTED_ENDING.get(case, 0)
        expected = expected if isinstance(expected, tuple) else (expected,)
        checks.expect(bare.returncode in expected,
                      "%s: without a profiler it ends with %s (expected %s)" % (
                          case, describe_ending(bare.returncode),
                          " or ".join(describe_ending(e) for e in expected)), bare)
        if args.show:
            print("---- %s, without a profiler: %s\n%s---- stderr\n%s" % (
                case, describe_ending(bare.returncode), bare.stdout, bare.stderr))
        verdicts = []
        for variant in variants:
            base = results[(case, VARIANTS[variant]["baseline"])]
            got = results[(case, variant)]
            what = "%s under the engine (%s)" % (case, variant)
            expected_out, got_out = normalise(base.stdout), normalise(got.stdout)
            known = KNOWN.get((case, variant))
            if known:
                pattern, why = known
                differing = [[l for l in text.splitlines() if pattern.search(l)]
                             for text in (expected_out, got_out)]
                expected_out, got_out = ["\n".join(l for l in text.splitlines()
                                                    if not pattern.search(l))
                                         for text in (expected_out, got_out)]
                checks.expect(len(differing[0]) == len(differing[1]) > 0,
                              "%s: the lines that may differ (%s) are there" % (
                                  what, pattern.pattern), got)
            same = [checks.expect(got.returncode == base.returncode,
                                  "%s: %s as without a profiler (got %s)" % (
                                      what, describe_ending(base.returncode),
                                      describe_ending(got.returncode)), got),
                    checks.expect(got_out == expected_out,
                                  "%s: stdout as without a profiler\n    expected: %r" % (
                                      what, base.stdout), got),
                    checks.expect(normalise(got.stderr) == normalise(base.stderr),
                                  "%s: stderr as without a profiler\n    expected: %r" % (
                                      what, base.stderr), got)]
            if "stress" in VARIANTS[variant] and base.returncode == 0:
                report = stress_runs.parse_report(box.path("%s.%s.txt" % (case, variant)))
                mode = "rejit" if VARIANTS[variant]["stress"].get("Rejit") else "nops"
                problems = stress_runs.report_problems(report or {}, mode, 1)
                same.append(checks.expect(report is not None and not problems,
                                          "%s: the stress plugin rewrote methods, none failed" %
                                          what, seen=(report or {}).get("line", "no report")))
            if variant == "declining" and base.returncode == 0:
                lines = dotnet_apps.read_lines(box.path("%s.probe.txt" % case))
                asked = [l for l in lines if " ShouldInstrumentMethod " in l]
                same.append(checks.expect(bool(asked), "%s: the declining plugin was asked "
                                          "about methods" % what, seen=lines))
            verdict = "same" if all(same) else "DIFFERS"
            if known and all(same):
                notes.append("%s, %s: the lines matching %s differ as expected: %s" % (
                    case, variant, known[0].pattern, known[1]))
                verdict = "same*"
            verdicts.append(verdict)
        print("%-*s  %-18s %s" % (width, case, describe_ending(bare.returncode),
                                  "  ".join("%-*s" % (len(v), d) for v, d in
                                            zip(variants, verdicts))), flush=True)
    for note in notes:
        print("* " + note)
finally:
    box.close()

sys.exit(checks.finish("%d cases behave under the engine (%s) as without a profiler" % (
    len(cases), ", ".join(variants))))
