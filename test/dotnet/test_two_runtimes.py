#!/usr/bin/env python3
"""Two CoreCLR runtimes in one process, each profiled by its own profiler manager.

test/two-runtimes/two_runtimes_host.c starts, one after the other in one process, a .NET 8
runtime (a self-contained build of test/dotnet/service from the runtime pack NuGet serves;
CLRIE_TEST_RUNTIME=<major> picks another major) and the SDK's own runtime, each running the
service app once (its go and stop files exist, so it prints one line: what Old, Other and New
return). Both runtimes load the engine (one shared object, one manager each).

own-plugins: each runtime gets its own configuration (the host changes the environment before
the second runtime starts): the first runtime's plugin makes Old return 42, the second's New.
Each runtime's output shows only its own plugin's change; each plugin reports to its own file
and logs under its own tag ([IM:<its class ID>]); the log names each runtime's version.
first: Runtimes=first for both: the first runtime is profiled, the second declines with a line.
versions: RuntimeVersions naming one runtime's major version profiles that runtime only, with a
line for the other; checked both ways round.
log-hosts: each runtime also loads, first, a plugin that installs its own logging host
(test/plugins/log_host_probe.c, writing what it receives to a file of its own). Each host gets
its own runtime's lines (the engine's "loaded plugin" and "instrumented" lines, its plugins'
lines, and the first runtime's shutdown, which comes after the second runtime installed its
host) and none of the other runtime's (the second runtime's start-up lines come after the first
runtime installed its host); the process's log file gets both runtimes' lines.
attach: with both runtimes up and the second one's app running, clrie-attach reaches the first
runtime (the only one with a diagnostics socket) and the second one's app runs on unchanged.

When NuGet cannot serve the runtime pack the test is skipped (77), or fails under CI=true."""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

GUIDS = ("{6A1C0F3E-2B44-4C8D-9E1F-3A5B7C9D0E21}", "{6A1C0F3E-2B44-4C8D-9E1F-3A5B7C9D0E22}")
HOST_GUIDS = ("{6A1C0F3E-2B44-4C8D-9E1F-3A5B7C9D0E31}", "{6A1C0F3E-2B44-4C8D-9E1F-3A5B7C9D0E32}")
ORIGINAL = "old=41 other=7 new=41"


def sdk_runtime(dotnet):
    """(version, folder) of the newest Microsoft.NETCore.App the SDK's dotnet has."""
    result = subprocess.run([dotnet, "--list-runtimes"], env=dotnet_apps.quiet_environment(),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    best = None
    for line in result.stdout.splitlines():
        m = re.match(r"Microsoft\.NETCore\.App (\d+)\.(\d+)\.(\d+)\S* \[(.*)\]", line)
        if m:
            key = tuple(int(x) for x in m.group(1, 2, 3))
            if best is None or key > best[0]:
                best = (key, "%d.%d.%d" % key, os.path.join(m.group(4), line.split()[1]))
    return (best[1], best[2]) if best else (None, None)


def build_pack_service(dotnet, out_root, major):
    """The service built self-contained for .NET <major>: its folder (the runtime's too)."""
    saved = os.environ.get(dotnet_apps.RUNTIME_VARIABLE)
    os.environ[dotnet_apps.RUNTIME_VARIABLE] = major
    try:
        code = None
        try:
            assembly = dotnet_apps.build_app(dotnet, "service", out_root)
        except SystemExit as e:
            code = e.code
        if code is not None:
            if code == dotnet_apps.SKIP and os.environ.get("CI") == "true":
                print("CI=true: a missing .NET %s runtime pack is a failure" % major)
                sys.exit(1)
            sys.exit(code)
    finally:
        if saved is None:
            del os.environ[dotnet_apps.RUNTIME_VARIABLE]
        else:
            os.environ[dotnet_apps.RUNTIME_VARIABLE] = saved
    return os.path.dirname(assembly)


def fresh_path(box, name):
    """The path of name in the box, with what an earlier run left there removed."""
    path = box.path(name)
    if os.path.exists(path):
        os.remove(path)
    return path


def probe_method(n, report, methods):
    """Runtime n's probe (test/plugins/attach_probe.c) as an <InstrumentationMethod>: it appends
    to report and adds one to the methods of service.dll that methods names."""
    return """  <InstrumentationMethod>
    <Name>Probe%d</Name>
    <Module>plugins/libattach-probe.so</Module>
    <ClassGuid>%s</ClassGuid>
    <Settings>
      <Setting Name="Report" Value="%s"/>
      <Setting Name="Module" Value="service.dll"/>
      <Setting Name="Methods" Value="%s"/>
    </Settings>
  </InstrumentationMethod>
""" % (n, GUIDS[n - 1], report, methods)


def probe_config(box, args, n, methods):
    report = fresh_path(box, "report-%d.txt" % n)
    path = box.write("probe-%d.xml" % n, "<InstrumentationEngineConfiguration>\n" +
                     probe_method(n, report, methods) + "</InstrumentationEngineConfiguration>\n")
    return path, report


class Host:
    """Runs the host with the two runtimes."""

    def __init__(self, args, box, runtimes):
        self.args = args
        self.box = box
        self.runtimes = runtimes  # [(label, folder, app folder)]
        open(box.path("go"), "w").close()
        open(box.path("stop"), "w").close()

    def run(self, common, per_runtime):
        """common: variables for both; per_runtime: [variables of runtime 1, of runtime 2].
        Returns (outputs of each runtime's app, result)."""
        command = [self.args.host]
        for i, (_, folder, app_folder) in enumerate(self.runtimes):
            command += ["--runtime", folder, "--app", os.path.join(app_folder, "service.dll")]
            variables = dict(common if i == 0 else {})
            variables.update(per_runtime[i])
            for name, value in variables.items():
                command += ["--set", "%s=%s" % (name, value)]
            command += ["--arg", self.box.path("go"), "--arg", self.box.path("stop")]
        env = dotnet_apps.quiet_environment()
        result = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, timeout=300)
        outputs, current = [[], []], None
        for line in result.stdout.splitlines():
            m = re.match(r"host: runtime (\d): coreclr_initialize", line)
            if m:
                current = int(m.group(1)) - 1
            elif current is not None and not line.startswith(("host:", "ready pid=")):
                outputs[current].append(line)
        return outputs, result


def scenario_attach(checks, args, host, box):
    box.copy(args.probe, "plugins/libattach-probe.so")
    config = box.write("attach.xml", """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>AttachProbe</Name>
    <Module>plugins/libattach-probe.so</Module>
    <ClassGuid>%s</ClassGuid>
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
""" % GUIDS[0])
    stop2 = fresh_path(box, "stop-2")
    command = [args.host]
    for i, (_, folder, app_folder) in enumerate(host.runtimes):
        command += ["--runtime", folder, "--app", os.path.join(app_folder, "service.dll"),
                    "--arg", box.path("go"), "--arg", box.path("stop") if i == 0 else stop2]
    proc = subprocess.Popen(command, env=dotnet_apps.quiet_environment(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    lines = []
    try:
        second = False
        while True:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            second = second or line.startswith("host: runtime 2: coreclr_initialize")
            if second and line.startswith("old="):
                break
        checks.expect(second and lines[-1].startswith("old="),
                      "attach: the second runtime's app runs", seen=lines)
        log = box.path("attach.log")
        attached = subprocess.run(
            [args.clrie_attach, str(proc.pid), "--config", config, "--engine", args.engine,
             "--timeout", "20", "--setting", "LogLevel=Messages", "--setting",
             "LogFilePath=" + log, "--setting", "Module=service.dll", "--setting",
             "Methods=Old", "--setting", "Rejit=Old"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        checks.expect(attached.returncode == 0, "attach: clrie-attach attaches the engine",
                      attached)
        text = "\n".join(dotnet_apps.read_lines(log))
        first_version = host.runtimes[0][0].split()[-1]
        checks.expect_in("clrie engine attached to a running process (ICorProfilerInfo", text,
                         "attach: the engine started")
        checks.expect(re.search(r"runtime %s\b" % re.escape(first_version), text) is not None,
                      "attach: the engine is in the first runtime (%s)" % first_version,
                      seen=text)
        more = []
        while len(more) < 5:
            line = proc.stdout.readline()
            if not line:
                break
            more.append(line.rstrip("\n"))
        checks.expect(more == [ORIGINAL] * 5,
                      "attach: the second runtime's app runs on unchanged", seen=more)
    finally:
        open(stop2, "w").close()
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
    checks.expect(proc.returncode == 0, "attach: the host exits with 0 (exit %d)"
                  % proc.returncode, seen=err)


def engine_env(args):
    return {"CORECLR_ENABLE_PROFILING": "1", "CORECLR_PROFILER": dotnet_apps.PROFILER_CLSID,
            "CORECLR_PROFILER_PATH": args.engine,
            "MicrosoftInstrumentationEngine_LogLevel": "Messages"}


def scenario_own_plugins(checks, args, host, box):
    config1, report1 = probe_config(box, args, 1, "Old")
    config2, report2 = probe_config(box, args, 2, "New")
    outputs, result = host.run(engine_env(args), [
        {dotnet_apps.CONFIG_VAR + "Two": config1},
        {dotnet_apps.CONFIG_VAR + "Two": config2}])
    (label1, _, _), (label2, _, _) = host.runtimes[0], host.runtimes[1]
    checks.expect(result.returncode == 0, "the host ran both runtimes and exited with 0", result)
    checks.expect(outputs[0] == ["old=42 other=7 new=41"],
                  "runtime 1 (%s): its own plugin changed Old only" % label1, seen=outputs[0])
    checks.expect(outputs[1] == ["old=41 other=7 new=42"],
                  "runtime 2 (%s): its own plugin changed New only" % label2, seen=outputs[1])
    lines1, lines2 = dotnet_apps.read_lines(report1), dotnet_apps.read_lines(report2)
    checks.expect(lines1 == ["initialize", "module service.dll", "instrument Old rejit=0"],
                  "plugin 1 saw runtime 1's module and instrumented Old", seen=lines1)
    checks.expect(lines2 == ["initialize", "module service.dll", "instrument New rejit=0"],
                  "plugin 2 saw runtime 2's module and instrumented New", seen=lines2)
    for n, (label, _, _) in enumerate(host.runtimes, 1):
        version = label.split()[-1]
        checks.expect_in("attached (ICorProfilerInfo", result.stderr,
                         "the engine started in runtime %d" % n, result)
        checks.expect(re.search(r"attached \(ICorProfilerInfo\d+\) to runtime %s\b"
                                % re.escape(version), result.stderr) is not None,
                      "the log names runtime %d (%s)" % (n, version), result)
        checks.expect_in("loaded plugin 'Probe%d' %s" % (n, GUIDS[n - 1]), result.stderr,
                         "the log names runtime %d's plugin" % n, result)
        tag = "[IM:%s]" % GUIDS[n - 1].strip("{}").lower()
        checks.expect_in("%sattach-probe: instruments %s of service.dll"
                         % (tag, ("Old", "New")[n - 1]), result.stderr,
                         "runtime %d's plugin logs under its own tag" % n, result)
    checks.expect(result.stderr.count("loaded plugin") == 2,
                  "each manager loaded only its own plugin", result)


def tag_of(guid):
    return "[IM:%s]" % guid.strip("{}").lower()


def log_host_config(box, n, method):
    """Runtime n's configuration: its logging host plugin, then the probe changing method."""
    host_file = fresh_path(box, "host-%d.txt" % n)
    report = fresh_path(box, "report-%d.txt" % n)
    config = box.write("log-hosts-%d.xml" % n, """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>LogHost%d</Name>
    <Module>plugins/liblog-host-probe.so</Module>
    <ClassGuid>%s</ClassGuid>
    <Settings><Setting Name="LogHost" Value="%s"/></Settings>
  </InstrumentationMethod>
""" % (n, HOST_GUIDS[n - 1], host_file) + probe_method(n, report, method) +
        "</InstrumentationEngineConfiguration>\n")
    return config, host_file


def scenario_log_hosts(checks, args, host, box):
    box.copy(args.log_host, "plugins/liblog-host-probe.so")
    methods = ("Old", "New")
    config1, host_file1 = log_host_config(box, 1, methods[0])
    config2, host_file2 = log_host_config(box, 2, methods[1])
    log_file = fresh_path(box, "engine.log")
    env = engine_env(args)
    env["MicrosoftInstrumentationEngine_FileLogPath"] = log_file
    outputs, result = host.run(env, [{dotnet_apps.CONFIG_VAR + "Two": config1},
                                     {dotnet_apps.CONFIG_VAR + "Two": config2}])
    checks.expect(result.returncode == 0, "log-hosts: the host exited with 0", result)
    checks.expect(outputs == [["old=42 other=7 new=41"], ["old=41 other=7 new=42"]],
                  "log-hosts: each runtime's plugin changed its own method", seen=outputs)
    hosts = ["\n".join(dotnet_apps.read_lines(f)) for f in (host_file1, host_file2)]
    process_log = "\n".join(dotnet_apps.read_lines(log_file))

    def lines_of(n):
        """What runtime n's log says that the other runtime's does not: (text, what it is)."""
        label = host.runtimes[n - 1][0]
        return [("loaded plugin 'Probe%d' %s" % (n, GUIDS[n - 1]), "the engine's line loading "
                 "its plugin Probe%d" % n),
                ("instrumented Service.Program.%s" % methods[n - 1], "the engine's line "
                 "instrumenting %s" % methods[n - 1]),
                ("%sattach-probe: instruments %s" % (tag_of(GUIDS[n - 1]), methods[n - 1]),
                 "its plugin Probe%d's line" % n),
                ("%slog-host-probe: shutdown" % tag_of(HOST_GUIDS[n - 1]),
                 "its host plugin's line at the runtime's shutdown"),
                ("to runtime %s" % label.split()[-1], "the engine's line naming %s" % label)]

    for n in (1, 2):
        other = 3 - n
        # The runtime version line is written before the plugins load, so before the host.
        for text, what in lines_of(n)[:-1]:
            checks.expect(text in hosts[n - 1], "log-hosts: runtime %d's host received %s (%r)"
                          % (n, what, text), seen=hosts[n - 1])
        for text, what in lines_of(other):
            checks.expect(text not in hosts[n - 1], "log-hosts: runtime %d's host received "
                          "nothing of runtime %d: not %s (%r)" % (n, other, what, text),
                          seen=hosts[n - 1])
        for text, what in lines_of(n):
            checks.expect(text in process_log, "log-hosts: the process log file has runtime "
                          "%d's %s (%r)" % (n, what, text), seen=process_log)


def scenario_first(checks, args, host, box):
    config, report = probe_config(box, args, 1, "Old,New")
    env = engine_env(args)
    env.update({dotnet_apps.CONFIG_VAR + "Two": config,
                "MicrosoftInstrumentationEngine_Runtimes": "first"})
    outputs, result = host.run(env, [{}, {}])
    checks.expect(result.returncode == 0, "Runtimes=first: the host exited with 0", result)
    checks.expect(outputs[0] == ["old=42 other=7 new=42"],
                  "Runtimes=first: the first runtime is profiled", seen=outputs[0])
    checks.expect(outputs[1] == [ORIGINAL],
                  "Runtimes=first: the second runtime runs its original code", seen=outputs[1])
    checks.expect_in("this runtime is not profiled: Runtimes=first and another runtime of this "
                     "process is profiled already", result.stderr,
                     "Runtimes=first: a line says why the second is not profiled", result)
    checks.expect(result.stderr.count("loaded plugin") == 1,
                  "Runtimes=first: the plugin loaded once", result)


def scenario_versions(checks, args, host, box):
    config, _ = probe_config(box, args, 1, "Old,New")
    for chosen in (0, 1):
        label, _, _ = host.runtimes[chosen]
        other_label, _, _ = host.runtimes[1 - chosen]
        major = label.split()[-1].split(".")[0]
        env = engine_env(args)
        env.update({dotnet_apps.CONFIG_VAR + "Two": config,
                    "MicrosoftInstrumentationEngine_RuntimeVersions": major})
        outputs, result = host.run(env, [{}, {}])
        what = "RuntimeVersions=%s" % major
        checks.expect(result.returncode == 0, what + ": the host exited with 0", result)
        checks.expect(outputs[chosen] == ["old=42 other=7 new=42"],
                      "%s: %s is profiled" % (what, label), seen=outputs)
        checks.expect(outputs[1 - chosen] == [ORIGINAL],
                      "%s: %s runs its original code" % (what, other_label), seen=outputs)
        other_version = other_label.split()[-1]
        checks.expect(re.search(r"this runtime is not profiled: runtime %s\.\d+ is outside "
                                r"RuntimeVersions %s-%s" % (re.escape(other_version), major,
                                                             major), result.stderr) is not None,
                      "%s: a line says why %s is not profiled" % (what, other_label), result)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", required=True)
    parser.add_argument("--clrie-attach", required=True)
    parser.add_argument("--host", required=True)
    parser.add_argument("--probe", required=True)
    parser.add_argument("--log-host", required=True)
    parser.add_argument("--apps-out", required=True)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("scenarios", nargs="*")
    args = parser.parse_args()
    dotnet, checks = dotnet_apps.start(args,
                                     ["engine", "clrie_attach", "host", "probe", "log_host"],
                                     ["apps_out"])
    sdk_version, sdk_folder = sdk_runtime(dotnet)
    if not sdk_version:
        print("the SDK's dotnet lists no Microsoft.NETCore.App")
        return 1
    pack_major = dotnet_apps.test_runtime() or "8"
    if pack_major == sdk_version.split(".")[0]:
        pack_major = "8" if pack_major != "8" else "9"
    pack_folder = build_pack_service(dotnet, args.apps_out, pack_major)
    pack_version = None
    for name in os.listdir(pack_folder):
        m = re.match(r"service\.runtimeconfig\.json$", name)
        if m:
            import json
            with open(os.path.join(pack_folder, name)) as f:
                options = json.load(f)["runtimeOptions"]
            for fw in options.get("includedFrameworks", []):
                if fw["name"] == "Microsoft.NETCore.App":
                    pack_version = fw["version"]
    if not pack_version:
        print("cannot read the .NET %s runtime's version in %s" % (pack_major, pack_folder))
        return 1
    box = dotnet_apps.Sandbox("clrie-two-runtimes", "two", args.keep)
    try:
        box.copy(args.probe, "plugins/libattach-probe.so")
        runtimes = [(".NET %s" % pack_version, pack_folder, pack_folder),
                    (".NET %s" % sdk_version, sdk_folder, pack_folder)]
        print("runtime 1: .NET %s from the runtime pack (%s)" % (pack_version, pack_folder))
        print("runtime 2: .NET %s, the SDK's (%s)" % (sdk_version, sdk_folder), flush=True)
        host = Host(args, box, runtimes)
        scenarios = [
            ("own-plugins", "two runtimes in one process, each with its own plugins",
             lambda: scenario_own_plugins(checks, args, host, box)),
            ("first", "Runtimes=first profiles the first runtime only",
             lambda: scenario_first(checks, args, host, box)),
            ("versions", "RuntimeVersions chooses between the two runtimes",
             lambda: scenario_versions(checks, args, host, box)),
            ("log-hosts", "each runtime's logging host receives that runtime's lines only",
             lambda: scenario_log_hosts(checks, args, host, box)),
            ("attach", "clrie-attach reaches the first runtime of the process",
             lambda: scenario_attach(checks, args, host, box)),
        ]
        wanted = args.scenarios or [name for name, _, _ in scenarios]
        dotnet_apps.run_scenarios(checks, scenarios, wanted)
    finally:
        box.close()
    return checks.finish("two runtimes in one process, each profiled by its own manager")


if __name__ == "__main__":
    sys.exit(main())
