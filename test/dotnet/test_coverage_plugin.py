"""A plugin built for CLRIE by someone else: Microsoft's coverage plugin
(libCoverageInstrumentationMethod.so from the NuGet package Microsoft.CodeCoverage 18.11.0,
restored by this test into the build folder) with its own configuration file, under clrie and
under Microsoft's CLRIE from the same package, talking to a fake collector
(coverage_collector.py) that asks it to instrument two methods of test/dotnet/coverage.

Expected, under each engine: the app prints what it prints without a profiler and exits 3;
the plugin introduced itself to the collector (schema version 1, its process ID) and asked
for the app's module data by its path; the counters say which blocks ran: Sign's first two
blocks (the test and `return 1`) but not its `return 0`, and nothing of Never, which is never
called; the engine logged no error. Both engines leave the same counters.

A package that cannot be restored fails the test (it is not skipped).

Arguments: ENGINE_SO APPS_BUILD_DIR"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clrie_package  # noqa: E402
import coverage_collector  # noqa: E402
import dotnet_apps  # noqa: E402

engine, out_root = (os.path.abspath(a) for a in sys.argv[1:3])
dotnet = dotnet_apps.find_dotnet(os.environ.get("CLRIE_DOTNET", "dotnet"))
checks = dotnet_apps.Checks()

# Sign: `ldarg.0; ldc.i4.0; ble.s`, `ldc.i4.1; ret`, `ldc.i4.0; ret`. Never: one block of
# `ldarg.0; ldc.i4.3; mul; ret`.
BLOCKS = {"Sign": [3, 2, 2], "Never": [4]}
EXPECTED = {"Sign": [1, 1, 0], "Never": [0]}


def run(label, engine_path, package, app, tokens):
    """Runs the app under engine_path with the coverage plugin and a fake collector; returns
    the counters, after checking what the user would see."""
    box = dotnet_apps.Sandbox("clrie-coverage", label)
    collector = None
    try:
        box.copy(os.path.join(package, "libCoverageInstrumentationMethod.so"),
                 "libCoverageInstrumentationMethod.so")
        config = box.copy(os.path.join(package, "Cov_x64.config"), "Cov_x64.config", 0o644)
        plan = {"coverage.dll": [(name, tokens[name], BLOCKS[name]) for name in BLOCKS]}
        collector = coverage_collector.Collector(box.dir, plan)
        env = dotnet_apps.quiet_environment()
        env.update(collector.environment())
        env.update(CORECLR_ENABLE_PROFILING="1", CORECLR_PROFILER=dotnet_apps.PROFILER_CLSID,
                   CORECLR_PROFILER_PATH=engine_path,
                   MicrosoftInstrumentationEngine_LogLevel="Errors",
                   MicrosoftInstrumentationEngine_FileLogPath=box.path("engine.log"))
        env[dotnet_apps.CONFIG_VAR + "Coverage"] = config
        try:
            result = subprocess.run([*dotnet_apps.app_command(dotnet, app)], env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    timeout=120)
        except subprocess.TimeoutExpired as error:
            result = dotnet_apps.Hung(error)
        what = "%s with Microsoft's coverage plugin" % label
        checks.same_as_baseline(what, result, baseline)
        checks.expect(not collector.errors, "%s: the collector understood the plugin" % what,
                      seen=collector.errors)
        introductions = [fields for tag, fields in collector.requests
                         if tag == coverage_collector.INITIALIZE_CLIENT]
        checks.expect(len(introductions) == 1 and introductions[0]["schema"] == 1 and
                      introductions[0]["pid"] > 0,
                      "%s: the plugin introduced itself once (schema version 1)" % what,
                      seen=collector.requests[:3])
        asked = [fields["path"] for tag, fields in collector.requests
                 if tag == coverage_collector.LOAD_MODULE_DATA]
        checks.expect(os.path.realpath(app) in [os.path.realpath(p) for p in asked],
                      "%s: the plugin asked for the app's module data" % what, seen=asked)
        counters = collector.counters("coverage.dll")
        checks.expect(counters == EXPECTED,
                      "%s: the counters say Sign's test and `return 1` ran, its `return 0` "
                      "and Never did not (expected %r)" % (what, EXPECTED), seen=counters)
        log = "\n".join(dotnet_apps.read_lines(box.path("engine.log")))
        checks.expect("LogError" not in log, "%s: the engine logged no error" % what, seen=log)
        return counters
    finally:
        if collector:
            collector.close()
        box.close()


if os.uname().machine not in ("x86_64", "amd64"):
    print("the package ships its Linux binaries for x64 only; this machine is %s" %
          os.uname().machine)
    sys.exit(77)
try:
    package = os.path.dirname(clrie_package.restore(dotnet, out_root,
                                                    "libCoverageInstrumentationMethod.so"))
except clrie_package.Missing as missing:
    print("FAILED: Microsoft's coverage plugin is missing:", missing)
    sys.exit(1)
print("Microsoft.CodeCoverage:", package)
app = dotnet_apps.build_app(dotnet, "coverage", out_root)
listed = dotnet_apps.run_app(dotnet, app, args=("tokens",))
tokens = {}
for line in listed.stdout.splitlines():
    name, _, token = line.partition(" ")
    tokens[name] = int(token, 16)
if not checks.expect(set(tokens) == set(BLOCKS), "the app lists its methods' tokens",
                     listed):
    sys.exit(checks.finish(""))
baseline = dotnet_apps.run_app(dotnet, app)
checks.expect(baseline.stdout == "Sign(5) = 1\n" and baseline.returncode == 3,
              "without a profiler the app prints Sign(5) = 1 and exits 3", baseline)
ours = run("clrie", engine, package, app, tokens)
theirs = run("CLRIE", os.path.join(package, "libInstrumentationEngine.so"), package, app, tokens)
checks.expect(ours == theirs, "clrie and CLRIE leave the same counters", seen=(ours, theirs))
sys.exit(checks.finish("Microsoft's coverage plugin instruments the app under clrie as under "
                       "CLRIE"))
