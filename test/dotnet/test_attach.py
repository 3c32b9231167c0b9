#!/usr/bin/env python3
"""Attaching the engine to a running service with clrie-attach, and the activation policy.

attach: test/dotnet/service runs; clrie-attach loads the engine with test/plugins/
attach_probe.c, which instruments Old (compiled before the attach: through ReJIT) and New
(compiled after: at its first JIT) so they return 42 instead of 41; Other stays 7. A second
clrie-attach is refused with a clear message. Then the plugin asks to detach: both methods
return 41 again and the service keeps running; the runtime keeps the engine loaded (idle),
since CoreCLR lets no profiler that enabled ReJIT or changed IL detach, and the engine's log says
so (test/dotnet/attach_service.py holds what the Wine test shares of this).
detach-file: clrie-attach with the engine setting DetachFile, relative to its own folder; the
plugin never asks to detach, but once an operator creates the file, Old and New run their
original code again and the service keeps running; the log says what triggered the detach and
how it ended.
bad-input: a process ID no process has, a process that is not .NET and a configuration file
that is not there: each refused in one line, with a non-zero exit.
detach-after: MicrosoftInstrumentationEngine_DetachAfter=2 at start-up: Old is instrumented,
then runs its original code; values the engine cannot use (and a MemoryLogInterval that is
not whole seconds) are reported and nothing is armed.
policy-attach: attach data that excludes the service's entry assembly is declined, with the
engine's reason printed by clrie-attach, and the service runs on unchanged.
policy-startup: the policy variables at start-up: excluded names and entry assemblies, an
include list that does not match, and a version range that does or does not hold the runtime."""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attach_service  # noqa: E402
import dotnet_apps  # noqa: E402
from attach_service import Service  # noqa: E402


def start_service(dotnet, apps, box, extra_env=None):
    """The service app under the dotnet host, its go and stop files in box."""
    env = dotnet_apps.quiet_environment()
    env.update(extra_env or {})
    return Service([dotnet, apps.app("service")], env, box.path("go"), box.path("stop"))


def attach(args, pid, config, settings, cwd=None):
    command = [args.clrie_attach, str(pid), "--config", config, "--engine", args.engine,
               "--timeout", "20"]
    for setting in settings:
        command += ["--setting", setting]
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=60, cwd=cwd)


def probe_config(box, args, settings=None):
    return attach_service.probe_config(box, args.probe, settings)


def scenario_attach(checks, dotnet, args, apps):
    """The plugin asks to detach (its Detach setting)."""
    box = dotnet_apps.Sandbox("clrie-attach", "attach", args.keep)
    service = None
    try:
        config = probe_config(box, args)
        report = box.path("report.txt")
        service = start_service(dotnet, apps, box)
        settings = ["Report=" + report, "Module=service.dll", "Methods=Old,New", "Rejit=Old",
                    "Detach=" + box.path("detach"), "LogLevel=Messages",
                    "LogFilePath=" + box.path("engine.log")]
        attach_service.instrumented_then_detached(
            checks, service, lambda: attach(args, service.pid, config, settings),
            lambda: open(box.path("detach"), "w").close())
        log = "\n".join(dotnet_apps.read_lines(box.path("engine.log")))
        checks.expect_in("the runtime lets no profiler that enabled ReJIT or changed IL detach", log,
                         "the engine's log says why the runtime keeps it loaded")
        attach_service.check_probe_report(checks, dotnet_apps.read_lines(report), 5, True)
    finally:
        if service:
            service.kill()
        box.close()


def scenario_detach_file(checks, dotnet, args, apps):
    """An operator's DetachFile at attach (relative, made absolute against clrie-attach's
    folder): the plugin never asks to detach."""
    box = dotnet_apps.Sandbox("clrie-attach", "detachfile", args.keep)
    service = None
    try:
        config = probe_config(box, args)
        service = start_service(dotnet, apps, box)
        trigger = box.path("detach-now")
        settings = ["Report=" + box.path("report.txt"), "Module=service.dll", "Methods=Old,New",
                    "Rejit=Old", "DetachFile=detach-now", "LogLevel=Messages",
                    "LogFilePath=" + box.path("engine.log")]
        attach_service.instrumented_then_detached(
            checks, service, lambda: attach(args, service.pid, config, settings, cwd=box.dir),
            lambda: open(trigger, "w").close())
        log = "\n".join(dotnet_apps.read_lines(box.path("engine.log")))
        attach_service.check_detach_file_log(checks, log, trigger, 2)
        attach_service.check_probe_report(checks, dotnet_apps.read_lines(box.path("report.txt")),
                                          4, False)
    finally:
        if service:
            service.kill()
        box.close()


def scenario_bad_input(checks, dotnet, args, apps):
    """A process ID no process has, a process that is not .NET (this test's own), a
    configuration file that is not there."""
    box = dotnet_apps.Sandbox("clrie-attach", "bad", args.keep)
    try:
        config = probe_config(box, args)
        with open("/proc/sys/kernel/pid_max") as f:
            no_process = int(f.read()) + 1
        attach_service.check_bad_input(
            checks, lambda pid, missing: attach(args, pid, missing or config, []),
            no_process, os.getpid(), "socket", box.path("missing.xml"))
    finally:
        box.close()


def scenario_detach_after(checks, dotnet, args, apps):
    """DetachAfter at start-up (the environment), and values the engine cannot use."""
    box = dotnet_apps.Sandbox("clrie-attach", "detachafter", args.keep)
    try:
        config = probe_config(box, args, {"Module": "service.dll", "Methods": "Old"})
        env = {"CORECLR_ENABLE_PROFILING": "1", "CORECLR_PROFILER": dotnet_apps.PROFILER_CLSID,
               "CORECLR_PROFILER_PATH": args.engine,
               dotnet_apps.CONFIG_VAR + "Probe": config,
               "MicrosoftInstrumentationEngine_LogLevel": "Messages",
               "MicrosoftInstrumentationEngine_FileLogPath": box.path("engine.log"),
               "MicrosoftInstrumentationEngine_DetachAfter": "2"}
        service = start_service(dotnet, apps, box, env)
        changed = service.wait_for(lambda l: l.startswith("old=42"))
        checks.expect(changed == "old=42 other=7", "Old is instrumented from the start",
                      seen=service.lines[-5:])
        back = service.wait_for(lambda l: l == "old=41 other=7", 30)
        checks.expect(back is not None, "after DetachAfter, Old runs its original code",
                      seen=service.lines[-5:])
        more = [service.wait_for(lambda l: True) for _ in range(5)]
        checks.expect(more == ["old=41 other=7"] * 5, "the service keeps running", seen=more)
        code, err = service.finish()
        checks.expect(code == 0, "the service exits normally (exit %d)" % code, seen=err)
        log = "\n".join(dotnet_apps.read_lines(box.path("engine.log")))
        checks.expect_in("DetachAfter: 2 s passed; the engine detaches", log,
                         "the log says the delay triggered the detach")
        checks.expect_in("detach: 1 methods back to their original code", log,
                         "the log says Old was put back")
        checks.expect(re.search(r"the engine detached|the runtime lets no profiler that enabled "
                                r"ReJIT or changed IL detach", log) is not None,
                      "the log says how the detach ended", seen=log)

        bad = dict(env, MicrosoftInstrumentationEngine_DetachAfter="soon",
                   MicrosoftInstrumentationEngine_DetachFile="relative/file",
                   MicrosoftInstrumentationEngine_MemoryLogInterval="often")
        bad["MicrosoftInstrumentationEngine_FileLogPath"] = box.path("bad.log")
        service = start_service(dotnet, apps, box, bad)
        changed = service.wait_for(lambda l: l.startswith("old=42"))
        checks.expect(changed == "old=42 other=7",
                      "values it cannot use: the engine runs on, instrumenting",
                      seen=service.lines[-5:])
        code, err = service.finish()
        checks.expect(code == 0, "the service exits normally (exit %d)" % code, seen=err)
        log = "\n".join(dotnet_apps.read_lines(box.path("bad.log")))
        checks.expect_in("DetachAfter='soon': expected seconds", log,
                         "an unreadable DetachAfter is reported")
        checks.expect_in("DetachFile='relative/file': expected an absolute path", log,
                         "a relative DetachFile is reported")
        checks.expect_in("MemoryLogInterval='often': expected whole seconds from 0 to 86400 "
                         "(0: only at shutdown); the memory line comes every 60 s", log,
                         "an unreadable MemoryLogInterval is reported")
        checks.expect("the engine detaches" not in log, "nothing is armed", seen=log)
    finally:
        box.close()


def scenario_policy_attach(checks, dotnet, args, apps):
    box = dotnet_apps.Sandbox("clrie-attach", "policy", args.keep)
    try:
        config = probe_config(box, args)
        service = start_service(dotnet, apps, box)
        service.wait_for(lambda l: l.startswith("old="))
        declined = attach(args, service.pid, config,
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


def scenario_not_attachable(checks, dotnet, args, apps):
    """examples/hello implements IInstrumentationMethod only: loaded by attach data it is
    refused with a line, as CLRIE refuses it, and the service runs on unchanged."""
    box = dotnet_apps.Sandbox("clrie-attach", "plain", args.keep)
    try:
        box.copy(args.plain_plugin, "plugins/libhello.so")
        config = box.write("hello.xml", """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>Hello</Name>
    <Module>plugins/libhello.so</Module>
    <ClassGuid>{8E2D1C2A-5B7F-4C3E-9A61-0D4F2B3C5E71}</ClassGuid>
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
""")
        service = start_service(dotnet, apps, box)
        service.wait_for(lambda l: l.startswith("old="))
        result = attach(args, service.pid, config,
                        ["LogLevel=Messages", "LogFilePath=" + box.path("engine.log")])
        print("clrie-attach: exit %d\n%s%s" % (result.returncode, result.stdout, result.stderr))
        checks.expect(result.returncode == 1 and "refused by the engine" in result.stderr,
                      "with no plugin it can load, the engine declines the attach", result)
        log = "\n".join(dotnet_apps.read_lines(box.path("engine.log")))
        checks.expect_in("plugin 'Hello' {8E2D1C2A-5B7F-4C3E-9A61-0D4F2B3C5E71}: refused at "
                         "attach: it does not implement IInstrumentationMethodAttach", log,
                         "the engine's log says why a plugin without the attach interface is "
                         "refused")
        later = [service.wait_for(lambda l: l.startswith("old=")) for _ in range(3)]
        checks.expect(later == ["old=41 other=7"] * 3, "the service runs on unchanged",
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
    parser.add_argument("--plain-plugin", required=True,
                        help="a plugin without IInstrumentationMethodAttach (examples/hello)")
    parser.add_argument("--apps-out", required=True)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("scenarios", nargs="*")
    args = parser.parse_args()
    dotnet, checks = dotnet_apps.start(args, ["engine", "clrie_attach", "probe", "plain_plugin"], ["apps_out"])
    apps = dotnet_apps.Apps(dotnet, args.apps_out, verbose=args.verbose)
    scenarios = [
        ("attach", "attach to a running service, a second attach refused",
         lambda: scenario_attach(checks, dotnet, args, apps)),
        ("detach-file", "an operator's DetachFile detaches the engine it attached",
         lambda: scenario_detach_file(checks, dotnet, args, apps)),
        ("bad-input", "no such process, a process that is not .NET, a missing configuration",
         lambda: scenario_bad_input(checks, dotnet, args, apps)),
        ("detach-after", "DetachAfter at start-up, and values the engine cannot use",
         lambda: scenario_detach_after(checks, dotnet, args, apps)),
        ("not-attachable", "a plugin without IInstrumentationMethodAttach is refused at attach",
         lambda: scenario_not_attachable(checks, dotnet, args, apps)),
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
