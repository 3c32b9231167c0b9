#!/usr/bin/env python3
"""Attaching the engine to a running service with clrie-attach, and the activation policy.

attach: test/dotnet/service runs; clrie-attach loads the engine with test/plugins/
attach_probe.c, which instruments Old (compiled before the attach: through ReJIT) and New
(compiled after: at its first JIT) so they return 42 instead of 41; Other stays 7. A second
clrie-attach is refused with a clear message. Then the plugin asks to detach: both methods
return 41 again and the service keeps running; the runtime keeps the engine loaded (idle),
since CoreCLR lets no profiler that changed IL detach, and the engine's log says so.
policy-attach: attach data that excludes the service's entry assembly is declined, with the
engine's reason printed by clrie-attach, and the service runs on unchanged.
policy-startup: the policy variables at start-up: excluded names and entry assemblies, an
include list that does not match, and a version range that does or does not hold the runtime."""
import argparse
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

PROBE_GUID = "{6A1C0F3E-2B44-4C8D-9E1F-3A5B7C9D0E12}"


class Service:
    """The service app, running, with its stdout read line by line."""

    def __init__(self, dotnet, assembly, box):
        self.go = box.path("go")
        self.stop = box.path("stop")
        self.proc = subprocess.Popen([dotnet, assembly, self.go, self.stop],
                                     env=dotnet_apps.quiet_environment(), stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines = []

    def wait_for(self, predicate, seconds=20):
        """Reads lines until one satisfies predicate (returns it) or time runs out (None)."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                return None
            line = line.rstrip("\n")
            self.lines.append(line)
            if predicate(line):
                return line
        return None

    def finish(self):
        open(self.stop, "w").close()
        try:
            out, err = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        self.lines += out.splitlines()
        return self.proc.returncode, err


def attach(args, pid, config, settings, extra=()):
    command = [args.clrie_attach, str(pid), "--config", config, "--engine", args.engine,
               "--timeout", "20"]
    for setting in settings:
        command += ["--setting", setting]
    return subprocess.run(command + list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=60)


def probe_config(box, args):
    box.copy(args.probe, "plugins/libattach-probe.so")
    return box.write("attach-probe.xml", """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>AttachProbe</Name>
    <Module>plugins/libattach-probe.so</Module>
    <ClassGuid>%s</ClassGuid>
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
""" % PROBE_GUID)


def scenario_attach(checks, dotnet, args, apps):
    box = dotnet_apps.Sandbox("clrie-attach", "attach", args.keep)
    try:
        config = probe_config(box, args)
        report = box.path("report.txt")
        service = Service(dotnet, apps.app("service"), box)
        before = service.wait_for(lambda l: l.startswith("old="))
        checks.expect(before == "old=41 other=7", "the service runs before the attach",
                      seen=service.lines)
        settings = ["Report=" + report, "Module=service.dll", "Methods=Old,New", "Rejit=Old",
                    "Detach=" + box.path("detach"), "LogLevel=Messages",
                    "LogFilePath=" + box.path("engine.log")]
        first = attach(args, service.proc.pid, config, settings)
        checks.expect(first.returncode == 0 and "attached" in first.stdout,
                      "clrie-attach attaches the engine", first)
        old = service.wait_for(lambda l: l.startswith("old=42"))
        checks.expect(old == "old=42 other=7",
                      "Old, compiled before the attach, returns 42 after it (ReJIT)",
                      seen=service.lines[-5:])
        open(service.go, "w").close()
        new = service.wait_for(lambda l: "new=" in l)
        checks.expect(new == "old=42 other=7 new=42",
                      "New, compiled after the attach, is instrumented at its JIT; Other is not",
                      seen=service.lines[-5:])
        second = attach(args, service.proc.pid, config, settings)
        checks.expect(second.returncode == 1 and "already has a profiler" in second.stderr,
                      "a second attach is refused with a clear message", second)
        open(box.path("detach"), "w").close()
        back = service.wait_for(lambda l: l == "old=41 other=7 new=41", 30)
        checks.expect(back is not None,
                      "after the plugin asked to detach, Old and New run their original code",
                      seen=service.lines[-5:])
        more = [service.wait_for(lambda l: True) for _ in range(5)]
        checks.expect(more == ["old=41 other=7 new=41"] * 5, "the service keeps running",
                      seen=more)
        code, err = service.finish()
        checks.expect(code == 0, "the service exits normally (exit %d)" % code, seen=err)
        log = "\n".join(dotnet_apps.read_lines(box.path("engine.log")))
        checks.expect_in("the runtime lets no profiler that changed IL detach", log,
                         "the engine's log says why the runtime keeps it loaded")
        shapes = {re.sub(r"old=4[12] other=7( new=4[12])?", "X", l) for l in service.lines}
        checks.expect(shapes <= {"ready", "X"}, "the service prints nothing else",
                      seen=sorted(shapes))
        checks.expect("Exception" not in err, "no exception in the service", seen=err)
        lines = dotnet_apps.read_lines(report)
        for expected in ("attach settings=5", "module service.dll",
                         "requestrejit Old hr=0x00000000", "instrument Old rejit=1",
                         "instrument New rejit=0", "attachcomplete", "detach hr=0x00000000"):
            checks.expect(expected in lines, "the plugin's report has %r" % expected, seen=lines)
    finally:
        box.close()


def scenario_policy_attach(checks, dotnet, args, apps):
    box = dotnet_apps.Sandbox("clrie-attach", "policy", args.keep)
    try:
        config = probe_config(box, args)
        service = Service(dotnet, apps.app("service"), box)
        service.wait_for(lambda l: l.startswith("old="))
        declined = attach(args, service.proc.pid, config,
                          ["Module=service.dll", "Methods=Old", "Rejit=Old",
                           "ExcludeProcesses=build;serv*"])
        checks.expect(declined.returncode == 1 and "refused by the engine" in declined.stderr,
                      "an excluded entry assembly declines the attach", declined)
        checks.expect_in("the entry assembly 'service' matches 'serv*' in ExcludeProcesses",
                         declined.stderr, "clrie-attach prints the engine's reason", declined)
        later = service.wait_for(lambda l: l.startswith("old="))
        checks.expect(later == "old=41 other=7", "the service runs on unchanged",
                      seen=service.lines[-5:])
        code, err = service.finish()
        checks.expect(code == 0, "the service exits normally (exit %d)" % code, seen=err)
    finally:
        box.close()


def scenario_policy_startup(checks, dotnet, args, apps):
    base = apps.baseline("sample")
    declined = "is not profiled"
    cases = [
        ("an excluded executable", {"ExcludeProcesses": "dotnet"},
         "the executable 'dotnet' matches 'dotnet' in ExcludeProcesses"),
        ("an excluded entry assembly", {"ExcludeProcesses": "VBCSCompiler, Samp*"},
         "the entry assembly 'sample' matches 'Samp*' in ExcludeProcesses"),
        ("an include list without it", {"IncludeProcesses": "MyService"},
         "nor the entry assembly 'sample' matches IncludeProcesses 'MyService'"),
        ("a version range below the runtime", {"RuntimeVersions": "1-3.1"},
         "is outside RuntimeVersions 1-3.1"),
    ]
    for label, policy, reason in cases:
        env = {"MicrosoftInstrumentationEngine_LogLevel": "Messages"}
        env.update({"MicrosoftInstrumentationEngine_" + k: v for k, v in policy.items()})
        result = apps.run("sample", args.engine, env, label)
        checks.same_as_baseline(label, result, base, stderr="contained")
        checks.expect_in(declined, result.stderr, label + ": a line says the process is "
                         "declined", result)
        checks.expect_in(reason, result.stderr, label + ": the line says why", result)
        checks.expect("clrie engine" not in result.stderr,
                      label + ": the engine does not start", result)
    # The ranges that hold the runtime the app runs on (CLRIE_TEST_RUNTIME's, or the SDK's): the
    # engine starts. The range just above it declines.
    version = dotnet_apps.app_runtime(dotnet, os.path.dirname(apps.app("sample")))[0]
    major = version.split(".")[0]
    above = "%d-%d" % (int(major) + 1, int(major) + 5)
    env = {"MicrosoftInstrumentationEngine_LogLevel": "Messages",
           "MicrosoftInstrumentationEngine_RuntimeVersions": above}
    result = apps.run("sample", args.engine, env, "a range above the runtime")
    checks.same_as_baseline("a range above .NET %s" % version, result, base, stderr="contained")
    checks.expect_in("is outside RuntimeVersions " + above, result.stderr,
                     "a range above .NET %s declines the process" % version, result)
    for label, value in (("a version range holding the runtime", "%s-%s.99" % (major, major)),
                         ("one major version", major)):
        env = {"MicrosoftInstrumentationEngine_LogLevel": "Messages",
               "MicrosoftInstrumentationEngine_RuntimeVersions": value,
               "MicrosoftInstrumentationEngine_IncludeProcesses": "sample"}
        result = apps.run("sample", args.engine, env, label)
        checks.same_as_baseline(label, result, base, stderr="contained")
        checks.expect_in("clrie engine", result.stderr, label + ": the engine starts", result)
        checks.expect(declined not in result.stderr, label + ": nothing is declined", result)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", required=True)
    parser.add_argument("--clrie-attach", required=True)
    parser.add_argument("--probe", required=True)
    parser.add_argument("--apps-out", required=True)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("scenarios", nargs="*")
    args = parser.parse_args()
    dotnet, checks = dotnet_apps.start(args, ["engine", "clrie_attach", "probe"], ["apps_out"])
    apps = dotnet_apps.Apps(dotnet, args.apps_out, verbose=args.verbose)
    scenarios = [
        ("attach", "attach to a running service, a second attach refused",
         lambda: scenario_attach(checks, dotnet, args, apps)),
        ("policy-attach", "the policy in attach data declines an excluded process",
         lambda: scenario_policy_attach(checks, dotnet, args, apps)),
        ("policy-startup", "the policy at start-up: names, entry assemblies, versions",
         lambda: scenario_policy_startup(checks, dotnet, args, apps)),
    ]
    wanted = args.scenarios or [name for name, _, _ in scenarios]
    dotnet_apps.run_scenarios(checks, scenarios, wanted)
    return checks.finish("attach and activation policy")


if __name__ == "__main__":
    sys.exit(main())
