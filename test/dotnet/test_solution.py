"""A real build and a real test run with every method of every process rewritten: the solution
in test/dotnet/solution (two libraries, an app and an xunit project of a few hundred test
cases) is built with `dotnet build` (MSBuild with a worker node, the C# compiler, once as
separate csc processes and once through the compiler server) and tested with `dotnet test`
(MSBuild, vstest.console, the test host), once without a profiler and then with the engine
and the stress plugin (examples/stress, Modules=*) attached to every one of those processes:

  plain    DOTNET_ReadyToRun=0, so that the SDK's own methods are compiled and rewritten too;
           the compiler runs as separate csc processes
  nops     a nop before every instruction; the compiler server compiles (its own pipe name,
           shut down at the end, under the engine too)

Each starts from a fresh copy of the sources. The run without a profiler restores it first;
under the engine the build restores it, from the package folder that run filled. Checks: the
build's warnings, errors and outputs as without a profiler; every built file byte-identical
(the build is deterministic: the paths are mapped to /src/); the same tests with the same
results; in each process the engine logged no error and the stress plugin's report says no
method failed; no process of the run left alive.

Runs on the SDK's runtime only (it is the SDK that runs): skipped with CLRIE_TEST_RUNTIME set.

Usage: test_solution.py --engine SO --stress SO --out DIR [--modes plain,nops] [--ready-to-run]
                        [--keep]
Exit: 0 passed, 1 a check failed, 77 skipped."""
import argparse
import glob
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
import xml.etree.ElementTree as ElementTree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402
import stress_runs  # noqa: E402

SOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "solution")
OFFLINE_PACKAGES = "/opt/nuget/packages"
STEP_TIMEOUT = 1200
MODES = {
    "plain": {"settings": {"Modules": "*"}, "env": {"DOTNET_ReadyToRun": "0"}, "server": False},
    "nops": {"settings": {"Modules": "*", "Nops": "true"}, "env": {}, "server": True},
}

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--engine", required=True, help="the built libInstrumentationEngine.so")
parser.add_argument("--stress", required=True, help="the stress plugin (examples/stress)")
parser.add_argument("--out", required=True, help="a folder for the runs")
parser.add_argument("--modes", default=",".join(MODES))
parser.add_argument("--keep", action="store_true", help="keep the last run's tree")
parser.add_argument("--ready-to-run", action="store_true",
                    help="mode plain keeps the framework's ReadyToRun code (fewer methods "
                         "compiled and rewritten: for slow, sanitized builds)")
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, ("engine", "stress"), folders=("out",))
if dotnet_apps.test_runtime():
    print("skipped: the build and the test run are the SDK's, on its own runtime; %s=%s asks "
          "for another" % (dotnet_apps.RUNTIME_VARIABLE, dotnet_apps.test_runtime()))
    sys.exit(dotnet_apps.SKIP)
if args.ready_to_run:
    MODES["plain"]["env"] = {}
modes = [m for m in args.modes.split(",") if m]
if any(m not in MODES for m in modes):
    sys.exit("unknown mode in %s (the modes: %s)" % (args.modes, ", ".join(MODES)))

work = os.path.join(args.out, "work")
tree = os.path.join(work, "src")
temp = os.path.join(work, "tmp")  # the runs' TMPDIR, which also marks their processes
mark = "CLRIE_TEST_SOLUTION_RUN=" + uuid.uuid4().hex
packages = os.path.join(args.out, "packages")


def environment(extra=None):
    env = dotnet_apps.quiet_environment()
    for name in list(env):
        if name.startswith(("DOTNET_ReadyToRun", "MSBUILD", "UseSharedCompilation")):
            del env[name]
    env.update(TMPDIR=temp, MSBUILDDISABLENODEREUSE="1", DOTNET_CLI_USE_MSBUILD_SERVER="0",
               NUGET_PACKAGES=packages)
    name, value = mark.split("=")
    env[name] = value
    env.update(extra or {})
    return env


def run(what, command, env):
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=STEP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        output += "\n[did not finish in %d s]" % STEP_TIMEOUT
    seconds = time.monotonic() - started
    print("   %-40s exit %d, %.0f s" % (what, process.returncode, seconds), flush=True)
    checks.expect(process.returncode == 0, "%s: exit 0 (got %d)\n%s" % (
        what, process.returncode, output[-4000:]))
    return output


def fresh_tree(restore):
    """A copy of the sources; restored without a profiler if restore (which fills the package
    folder the later runs restore from under the engine)."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(SOURCES, tree)
    os.makedirs(temp)
    sources = ['<add key="offline" value="%s" />' % OFFLINE_PACKAGES] \
        if os.path.isdir(OFFLINE_PACKAGES) else []
    with open(os.path.join(tree, "nuget.config"), "w") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <packageSources>\n'
                '    %s\n  </packageSources>\n</configuration>\n' % "\n    ".join(
                    sources + ['<add key="nuget.org" value="https://api.nuget.org/v3/index.json" />']))
    if not restore:
        return
    result = subprocess.run([dotnet, "restore", "Real.slnx"], cwd=tree, env=environment(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        if "error NU1" in result.stdout and os.environ.get("CI", "").lower() not in ("1", "true"):
            print("the solution's packages cannot be restored: skipped\n" + result.stdout)
            sys.exit(dotnet_apps.SKIP)
        sys.exit("restoring the solution failed:\n" + result.stdout)


MESSAGE = re.compile(r"(warning|error) [A-Z]+\d+|-> ")


def messages(output):
    """The build's warnings, errors and 'project -> output' lines, sorted, without counts of
    time."""
    lines = {line.strip().replace(tree, "<tree>") for line in output.splitlines()
             if MESSAGE.search(line)}
    return sorted(lines)


def outputs():
    """sha256 of every file under the projects' bin folders, by path in the tree."""
    digests = {}
    for path in sorted(glob.glob(os.path.join(tree, "*", "bin", "**", "*"), recursive=True)):
        if os.path.isfile(path):
            with open(path, "rb") as f:
                digests[os.path.relpath(path, tree)] = hashlib.sha256(f.read()).hexdigest()
    return digests


def test_results(trx):
    """{test name: outcome} from a trx file."""
    if not os.path.isfile(trx):
        return {}
    root = ElementTree.parse(trx).getroot()
    return {r.get("testName"): r.get("outcome") for r in root.iter()
            if r.tag.endswith("UnitTestResult")}


def leftovers():
    """Processes of this run still alive (their environment holds the run's mark)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                if mark.encode() + b"\0" not in f.read():
                    continue
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                found.append("%s %s" % (pid, f.read().replace(b"\0", b" ").decode()[:160]))
        except OSError:
            pass
    return found


def build_and_test(name, env, server):
    """Builds and tests a fresh tree; returns (messages, outputs, test results). The run
    without a profiler restores first on its own; under the engine the build restores, from
    the package folder that run filled."""
    fresh_tree(restore=name == "bare")
    compile_options = ["-p:UseSharedCompilation=false"]
    server_name = "clrie-test-%s" % uuid.uuid4().hex[:12]
    if server:
        compile_options = ["-p:UseSharedCompilation=true", "-p:SharedCompilationId=" + server_name]
    restore = ["--no-restore"] if name == "bare" else []
    built = run("%s: dotnet build" % name, [dotnet, "build", "Real.slnx", *restore, "-m",
                                             "-nr:false", *compile_options], env)
    if server:
        compiler = glob.glob(os.path.join(sdk_folder(), "Roslyn", "bincore", "VBCSCompiler.dll"))
        if checks.expect(bool(compiler), "%s: the SDK's VBCSCompiler.dll" % name):
            run("%s: compiler server shutdown" % name,
                [dotnet, "exec", compiler[0], "-shutdown", "-pipename:" + server_name], env)
    trx = os.path.join(work, "results.trx")
    run("%s: dotnet test" % name, [dotnet, "test", "Real.slnx", "--no-build", "-nr:false",
                                   "--logger", "trx;LogFileName=" + trx], env)
    deadline = time.monotonic() + 10
    while leftovers() and time.monotonic() < deadline:
        time.sleep(0.5)
    left = leftovers()
    checks.expect(not left, "%s: no process of the run left alive" % name, seen=left)
    for pid in left:
        try:
            os.kill(int(pid.split()[0]), signal.SIGKILL)
        except OSError:
            pass
    return messages(built), outputs(), test_results(trx)


def sdk_folder():
    result = subprocess.run([dotnet, "--version"], env=environment(), stdout=subprocess.PIPE,
                            text=True)
    version = result.stdout.strip()
    return os.path.join(os.path.dirname(os.path.realpath(dotnet)), "sdk", version)


print("== without a profiler", flush=True)
bare = build_and_test("bare", environment(), server=False)
checks.expect(len(bare[2]) >= 300 and set(bare[2].values()) == {"Passed"},
              "bare: 300 or more tests, all passed (%d)" % len(bare[2]))
checks.expect(len(bare[1]) > 20, "bare: the build wrote its outputs (%d files)" % len(bare[1]))
checks.expect(any("warning CS0168" in m for m in bare[0]),
              "bare: the build's deliberate warning is there", seen=bare[0])

for mode in modes:
    spec = MODES[mode]
    print("== the engine with the stress plugin on every method of every process: %s" % mode,
          flush=True)
    logs = os.path.join(args.out, "logs-" + mode)
    shutil.rmtree(logs, ignore_errors=True)
    os.makedirs(logs, mode=0o755)
    os.chmod(logs, 0o755)
    config_env = stress_runs.write_stress_config(args.out, args.stress, stress_runs.STRESS_GUID,
                                                 spec["settings"])
    env = environment(dict(config_env, **spec["env"]))
    env.update({"CORECLR_ENABLE_PROFILING": "1", "CORECLR_PROFILER": dotnet_apps.PROFILER_CLSID,
                "CORECLR_PROFILER_PATH": args.engine,
                "MicrosoftInstrumentationEngine_LogLevel": "Errors",
                # the stress plugin's report line, one per process, in its log file
                "MicrosoftInstrumentationEngine_LogLevel_" + stress_runs.STRESS_GUID[1:-1]:
                    "Messages",
                "MicrosoftInstrumentationEngine_FileLogPath": logs})
    got = build_and_test(mode, env, spec["server"])
    checks.expect(got[0] == bare[0], "%s: the build's messages as without a profiler" % mode,
                  seen={"without": bare[0], "with": got[0]})
    differing = sorted(p for p in set(bare[1]) | set(got[1]) if bare[1].get(p) != got[1].get(p))
    checks.expect(not differing, "%s: every built file byte-identical (%d of %d differ)" % (
        mode, len(differing), len(bare[1])), seen=differing[:20])
    checks.expect(got[2] == bare[2], "%s: the same tests with the same results (%d)" % (
        mode, len(got[2])),
        seen=sorted((t, bare[2].get(t), got[2].get(t)) for t in set(bare[2]) | set(got[2])
                    if bare[2].get(t) != got[2].get(t))[:20])
    processes = methods = 0
    for log in sorted(glob.glob(os.path.join(logs, "*"))):
        lines = dotnet_apps.read_lines(log)
        errors = [l for l in lines if l.startswith("LogError[")]
        checks.expect(not errors, "%s: no engine error in %s" % (mode, os.path.basename(log)),
                      seen=errors[:10])
        reports = [l for l in lines if "stress seen=" in l]
        if not reports:
            continue
        processes += 1
        report = {"line": reports[-1]}
        report.update((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)", reports[-1]))
        problems = stress_runs.report_problems(report, "plain", 1)
        checks.expect(not problems, "%s: the stress plugin's report in %s" % (
            mode, os.path.basename(log)), seen=problems)
        methods += report.get("instrumented", 0)
    # How many processes a build makes depends on the machine's load: MSBuild starts a worker
    # node only when it has work queued for one, and the compiler server may or may not take
    # a compilation. 7 to 10 were seen; the host, one node, the compiler, the test host and
    # the test platform are always there.
    checks.expect(processes >= 5, "%s: the engine ran in 5 or more processes (%d)" % (
        mode, processes))
    print("   %d processes under the engine, %d methods rewritten; %d files, %d tests as "
          "without a profiler" % (processes, methods, len(got[1]), len(got[2])), flush=True)

if not args.keep:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(checks.finish("a real solution builds byte-identical and its tests pass alike with "
                       "every method of every process rewritten"))
