"""The conformance suite: each case file under --cases names a method of the conformance app
(test/conformance/app), the edits conformance_plugin.c applies to it through the CLRIE
interfaces, and what must follow: the program's output and exit code, and what the plugin
records (its calls, each edit's HRESULT, the final instruction list and clauses). Each case
runs the app once under the engine; a case that hangs fails after --timeout seconds.

The same cases run under Microsoft's CLRIE with --clrie (the engine from the NuGet package
Microsoft.CodeCoverage 18.11.0, restored into --apps-out; a package that cannot be had fails):
then the cases whose file has the line `differs-under-clrie` must fail there, and every other
case must pass. --engine may also name CLRIE's libInstrumentationEngine.so directly, with
--expect-failures listing the cases known to differ.

Usage: run.py (--engine SO | --clrie) --plugin SO --cases DIR --apps-out DIR [--only NAME,...]
              [--keep] [--timeout S] [--expect-failures NAME,...]
Exit: 0 all as expected, 1 a case failed (or, with --clrie, passed where CLRIE is known to
differ), 77 no dotnet on this machine."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dotnet"))
import clrie_package  # noqa: E402
import dotnet_apps  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EDITOR = "{C0F0A11C-0000-4000-8000-00000000C0DE}"
OBSERVER = "{C0F0A11C-0000-4000-8000-00000000C0DF}"

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
engine_choice = parser.add_mutually_exclusive_group(required=True)
engine_choice.add_argument("--engine")
engine_choice.add_argument("--clrie", action="store_true",
                           help="Microsoft's CLRIE, restored from NuGet")
parser.add_argument("--plugin", required=True)
parser.add_argument("--cases", required=True)
parser.add_argument("--apps-out", required=True)
parser.add_argument("--only", default="", help="comma-separated case names")
parser.add_argument("--timeout", type=float, default=30)
parser.add_argument("--expect-failures", default="", help="cases expected to fail")
parser.add_argument("--keep", action="store_true")
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, ("plugin",) if args.clrie else ("engine", "plugin"),
                                   folders=("apps_out", "cases"))
if args.clrie:
    if os.uname().machine not in ("x86_64", "amd64"):
        print("the package ships CLRIE for Linux x64 only; this machine is %s" %
              os.uname().machine)
        sys.exit(dotnet_apps.SKIP)
    try:
        args.engine = clrie_package.restore(dotnet, args.apps_out)
    except clrie_package.Missing as missing:
        sys.exit("FAILED: Microsoft's CLRIE is missing: %s" % missing)
    print("Microsoft's CLRIE:", args.engine)


class Case:
    """One case file: `#` comments; `method`, `args`, `observer` (load the observing plugin
    too), `edit`, `rejit`, `offsets` (for the plugin), `expect-exit`, `expect-out` (each stdout line, in order),
    `expect-plugin` (each line the plugin writes, in order), `expect-log` (text the engine's log
    must hold), `differs-under-clrie` (CLRIE 18.11 fails this case; the comment says why),
    `timeout S` (a shorter limit than --timeout, for a case known to hang an engine)."""

    def __init__(self, path):
        self.name = os.path.splitext(os.path.basename(path))[0]
        self.path = path
        self.method = None
        self.args = []
        self.observer = False
        self.exit = 0
        self.out = []
        self.plugin = []
        self.log = []
        self.differs_under_clrie = False
        self.timeout = args.timeout
        with open(path) as f:
            for number, raw in enumerate(f, 1):
                line = raw.rstrip("\n")
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                word, _, rest = line.partition(" ")
                if word == "method":
                    self.method = rest.strip()
                elif word == "args":
                    self.args = rest.split()
                elif word == "observer":
                    self.observer = True
                elif word in ("edit", "rejit", "offsets"):
                    pass  # the plugin's
                elif word == "expect-exit":
                    self.exit = int(rest)
                elif word == "expect-out":
                    self.out.append(rest)
                elif word == "expect-plugin":
                    self.plugin.append(rest)
                elif word == "expect-log":
                    self.log.append(rest)
                elif word == "differs-under-clrie":
                    self.differs_under_clrie = True
                elif word == "timeout":
                    self.timeout = min(self.timeout, float(rest))
                else:
                    sys.exit("%s:%d: unknown line %r" % (path, number, line))
        if not self.method:
            sys.exit("%s: no method line" % path)


def build_app():
    """The conformance app, built for the runtime under test (CLRIE_TEST_RUNTIME, or the SDK's)."""
    return dotnet_apps.build_app(dotnet, "app", args.apps_out,
                                 project=os.path.join(HERE, "app", "app.csproj"))


def write_config(path, name, guid):
    with open(path, "w") as f:
        f.write("<InstrumentationEngineConfiguration>\n"
                "  <InstrumentationMethod>\n"
                "    <Name>%s</Name>\n"
                "    <Description>conformance suite</Description>\n"
                "    <Module>conformance.so</Module>\n"
                "    <ClassGuid>%s</ClassGuid>\n"
                "    <Priority>%d</Priority>\n"
                "  </InstrumentationMethod>\n"
                "</InstrumentationEngineConfiguration>\n" % (name, guid,
                                                             10 if guid == EDITOR else 20))
    os.chmod(path, 0o644)


def run_case(app, workdir, case):
    out_file = os.path.join(workdir, case.name + ".plugin.txt")
    log_file = os.path.join(workdir, case.name + ".log")
    for stale in (out_file, log_file):
        if os.path.exists(stale):
            os.remove(stale)
    env = dotnet_apps.quiet_environment()
    env.update(CORECLR_ENABLE_PROFILING="1", CORECLR_PROFILER=dotnet_apps.PROFILER_CLSID,
               CORECLR_PROFILER_PATH=args.engine, DOTNET_TieredCompilation="0",
               CLRIE_CONFORMANCE_CASE=case.path, CLRIE_CONFORMANCE_OUT=out_file,
               MicrosoftInstrumentationEngine_LogLevel="Errors|Dumps",
               MicrosoftInstrumentationEngine_FileLogPath=log_file)
    env[dotnet_apps.CONFIG_VAR + "Editor"] = os.path.join(workdir, "editor.config")
    if case.observer:
        env[dotnet_apps.CONFIG_VAR + "Observer"] = os.path.join(workdir, "observer.config")
    try:
        result = subprocess.run([*dotnet_apps.app_command(dotnet, app), *case.args], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                timeout=case.timeout)
    except subprocess.TimeoutExpired as error:
        result = dotnet_apps.Hung(error)
    recorded = dotnet_apps.read_lines(out_file)
    log = "\n".join(dotnet_apps.read_lines(log_file))
    failures = []
    if result.returncode != case.exit:
        failures.append("exit code %d, expected %d" % (result.returncode, case.exit))
    if result.stdout.splitlines() != case.out:
        failures.append("stdout %r, expected %r" % (result.stdout.splitlines(), case.out))
    if recorded != case.plugin:
        failures.append("the plugin recorded:\n      %s\n    expected:\n      %s" % (
            "\n      ".join(recorded), "\n      ".join(case.plugin)))
    for text in case.log:
        if text not in log + result.stderr:
            failures.append("the engine's log lacks %r" % text)
    if "InvalidProgramException" in result.stdout + result.stderr:
        failures.append("InvalidProgramException")
    if failures and result.stderr.strip():
        failures.append("stderr: %s" % result.stderr.strip()[-1500:])
    if failures and log.strip():
        failures.append("engine log (last lines):\n      %s" % "\n      ".join(
            log.splitlines()[-25:]))
    return failures


def main():
    names = [n for n in args.only.split(",") if n]
    expected_failures = {n for n in args.expect_failures.split(",") if n}
    paths = sorted(os.path.join(args.cases, f) for f in os.listdir(args.cases)
                   if f.endswith(".case"))
    cases = [Case(p) for p in paths]
    if names:
        cases = [c for c in cases if c.name in names]
    print("%d conformance cases" % len(cases), flush=True)
    app = build_app()
    workdir = os.path.realpath(tempfile.mkdtemp(prefix="clrie-conformance-"))
    os.chmod(workdir, 0o755)
    plugin = os.path.join(workdir, "conformance.so")
    shutil.copyfile(args.plugin, plugin)
    os.chmod(plugin, 0o755)
    write_config(os.path.join(workdir, "editor.config"), "ConformanceEditor", EDITOR)
    write_config(os.path.join(workdir, "observer.config"), "ConformanceObserver", OBSERVER)
    if args.clrie:
        expected_failures |= {c.name for c in cases if c.differs_under_clrie}
    passed = 0
    failed = []
    unexpected = []
    for case in cases:
        failures = run_case(app, workdir, case)
        known = case.name in expected_failures
        if failures:
            failed.append(case.name)
        status = ("FAILED" if failures else "ok") + (" (listed as known to fail)" if known else "")
        if args.clrie and known and not failures:
            status += ", but CLRIE was expected to differ"
            unexpected.append(case.name)
        print("%-44s %s" % (case.name, status), flush=True)
        for failure in failures:
            print("    " + failure)
        passed += not failures
    if args.keep:
        print("kept", workdir)
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    print("%d cases: %d passed, %d failed" % (len(cases), passed, len(failed)))
    if args.clrie:
        print("%d differ under CLRIE, as their case files say" % len(failed))
    return 1 if unexpected or any(name not in expected_failures for name in failed) else 0


sys.exit(main())
