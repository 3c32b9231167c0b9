"""clrie's Windows x64 build in the Windows x64 .NET runtime under Wine, as a Windows user runs it:

  proxy    the build's MSI (packaging/msi/build-msi, as 1.0.0 and as 1.0.1) installed with
           msiexec /qn into the prefix's C:\\Program Files\\Microsoft CLR Instrumentation
           Engine, and a product's plugin in its own folder there, all with the trust check
           on: an app started through the installed proxy, and through a copy of it in the
           product's folder (which finds the install through %ProgramFiles%), runs
           instrumented; a plugin in a folder Everyone can change is refused in one line; the
           newer package installed beside is chosen at the next start and a preview is not;
           once the newer is uninstalled the older works on; once both are, nothing is left
           and the proxy logs one line naming the root and the app runs as bare;
  tracer   examples/tracer (IL rewriting: entry and exit lines through the app's own
           Console.WriteLine) on test/dotnet/sample, under Microsoft's Windows CLRIE and under
           clrie: the same output under both, and the app's own lines as bare;
  stress   examples/stress with Nops and Rejit on the sample (every method of the app rewritten
           at JIT time, then ReJIT-ed): output as bare, and its report counts methods
           instrumented and ReJIT-ed with no failure;
  raw-hook a plain profiler DLL (test/plugins/raw_hook.c) as the raw profiler hook beside the
           engine: it is initialised, sees the app's modules and shuts down, the app as bare;
  bad-input
           configurations naming a truncated plugin DLL, a plugin DLL for ARM64 and no file at
           all, beside the tracer example in a folder named outside ASCII (its variable named in
           lower case): each bad one refused in one line naming it, the app traced and
           otherwise as bare;
  tracer-watch, tracer-refresh
           the tracer plugin (plugins/tracer) installed with Clrie.Tracing.dll and Tracer.config,
           on test/dotnet/refreshed while its points file changes (test/dotnet/recorder's C#
           tracers): the events follow each change, through the folder watch
           (ReadDirectoryChangesW) or through Clrie.Tracing.Tracing.Refresh();
  attach   test/dotnet/service started without a profiler, then clrie-attach.exe from an
           install's Tools folder named outside ASCII (its default engine beside that folder)
           with the attach probe
           (test/plugins/attach_probe.c) and a DetachFile, through the runtime's diagnostics
           pipe: as on Linux (test/dotnet/attach_service.py holds what the two share), the
           method compiled before the attach is ReJIT-ed, the one compiled after instrumented at
           its JIT, a second attach refused in words, and once the file appears both run their
           original code and the app runs on, printing nothing else, while the engine's log (a
           file clrie-attach made in the temporary folder) says how the detach ended (the
           runtime refuses it there too: 0x80131370); then a process ID no process has, a
           process that is not .NET (Wine's services.exe) and a missing configuration, each
           refused in one line.
  traced   the tracer plugin on test/dotnet/traced with the points, tracers and checks of
           test_tracer.py's scenario traced (test/dotnet/traced_points.py): the same events for
           every kind of method, the same lines for the methods left alone and the points
           refused; the app's own output as bare.

CLRIE_TEST_WINE_SCENARIOS (comma-separated names) runs only those scenarios, and publishes only
the apps they run; CLRIE_TEST_RUNTIME=<major> runs them on that .NET version (the app's runtime
pack from NuGet, and Clrie.Tracing and the tracers built for it).

The DLLs come from the MinGW-w64 x64 build that CLRIE_TEST_WINDOWS_BUILD names (test/run passes
its own). Needs Linux x86_64 with wine64 and dotnet; without them, or without that build, the
test is skipped (exit 77) and says why, and under CI=true it fails instead."""
import functools
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wine_apps  # noqa: E402  (it makes test/dotnet's modules importable too)
from wine_apps import clrie_package, dotnet_apps, lines, read  # noqa: E402
import attach_service  # noqa: E402
import stress_runs  # noqa: E402
import traced_points  # noqa: E402
from refreshed_points import (FOLDER_VARIABLE, STEPS, WATCH_VARIABLE, Session,  # noqa: E402
                              follow_steps, refresh_points)

BUILD_VARIABLE = "CLRIE_TEST_WINDOWS_BUILD"
BUILD_MSI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "packaging",
                         "msi", "build-msi")
ENGINE = "MicrosoftInstrumentationEngine_x64.dll"
PROXY = "InstrumentationEngine.ProfilerProxy_x64.dll"
INSTALL_FOLDER = "Microsoft CLR Instrumentation Engine"
# What an install made by this test holds, so that it removes only its own.
INSTALL_MARK = ".clrie-wine-test"
PRODUCT_FOLDER = "clrie wine test product"
TRACER_GUID = "{A3C52C58-0E2B-4C43-9C2B-6B0F1B7E3D01}"
STRESS_GUID = "{A3C52C58-0E2B-4C43-9C2B-6B0F1B7E3D02}"
RAW_HOOK_GUID = "{A3C52C58-0E2B-4C43-9C2B-6B0F1B7E3D03}"
STRESS_REPORT = re.compile(r"stress seen=(\d+) instrumented=(\d+) failed=(\d+) "
                           r"rejit_requested=(\d+) rejit_failed=(\d+) jit_compiled=(\d+) "
                           r"jit_failed=(\d+)$")

parser = wine_apps.argument_parser(__doc__.splitlines()[0])
args = parser.parse_args()
args.work = os.path.abspath(args.work)

wine64, dotnet = wine_apps.wine64_and_dotnet()
build = os.environ.get(BUILD_VARIABLE)
if not build:
    wine_apps.skip("%s does not name a MinGW-w64 x64 build of clrie (test/run sets it to its "
                   "own)" % BUILD_VARIABLE)
built = {
    "engine": os.path.join(build, "shims", "engine", ENGINE),
    "proxy": os.path.join(build, "shims", "proxy", PROXY),
    "tracer": os.path.join(build, "test", "windows", "clrie-tracer.dll"),
    "stress": os.path.join(build, "test", "windows", "clrie-stress.dll"),
    "raw-hook": os.path.join(build, "test", "windows", "raw-hook.dll"),
    "tracer-plugin": os.path.join(build, "plugins", "tracer", "clrie-tracer.dll"),
    "tracer-library": os.path.join(build, "plugins", "tracer", "Clrie.Tracing.dll"),
    "tracer-config": os.path.join(build, "plugins", "tracer", "Tracer.config"),
    "attach-probe": os.path.join(build, "test", "windows", "attach-probe.dll"),
    "clrie-attach": os.path.join(build, "shims", "attach", "clrie-attach.exe"),
}
checks = dotnet_apps.Checks()
for what, path in built.items():
    checks.expect(os.path.isfile(path), "%s=%s has no %s (%s)" % (BUILD_VARIABLE, build, what,
                                                                  path))
if checks.failures:
    sys.exit(checks.finish(""))

# The apps each scenario runs: those of the chosen scenarios are published, and run bare once,
# before Wine starts.
SCENARIO_APPS = {"proxy": ("sample",), "tracer": ("sample",), "stress": ("sample",),
                 "raw-hook": ("hello",), "bad-input": ("sample",),
                 "tracer-watch": ("refreshed",), "tracer-refresh": ("refreshed",),
                 "attach": ("service",), "traced": ("traced",)}
# The scenarios that run the tracer plugin with Clrie.Tracing and the recorder's tracers.
TRACER_PLUGIN_SCENARIOS = ("tracer-watch", "tracer-refresh", "traced")
# Scenarios a runtime cannot run, and why: left out on it, saying so.
RUNTIME_DEFECTS = {
    ("8", "traced"): "on .NET 8 (8.0.31) under Wine, test/dotnet/traced dies without any "
                     "profiler (exit code 9: an access violation, then a fail-fast 0xC0000409) at "
                     "its first await after the exception it catches; a small app that catches "
                     "an exception and then awaits Task.Yield() hangs there. .NET 9 and 10 run it, "
                     "and the tracer plugin runs on .NET 8 in tracer-watch and tracer-refresh",
}
chosen = wine_apps.chosen_scenarios(list(SCENARIO_APPS))
for scenario in list(chosen):
    defect = RUNTIME_DEFECTS.get((dotnet_apps.test_runtime() or "", scenario))
    if defect:
        print("%s: left out: %s" % (scenario, defect), flush=True)
        chosen.remove(scenario)
prefix = wine_apps.Prefix(wine64, args.work).ensure()
apps = {}
for name in sorted({app for scenario in chosen for app in SCENARIO_APPS[scenario]}):
    apps[name], seconds = wine_apps.publish(
        dotnet, os.path.join(dotnet_apps.APPS, name, name + ".csproj"), args.work)
    print("timing: %s %s" % (name, "published in %.1f s" % seconds if seconds else
                             "reused (sources unchanged)"), flush=True)
if apps:
    wine_apps.announce_runtime(next(iter(apps.values())))
microsoft = None
if "tracer" in chosen:
    try:
        microsoft = wine_apps.microsoft_clrie(dotnet, args.work)
    except clrie_package.Missing as missing:
        checks.expect(False, "Microsoft's Windows CLRIE is missing: %s" % missing)


@functools.lru_cache(maxsize=None)
def tracer_managed():
    """Clrie.Tracing.dll for the runtime under test (the build's own on the SDK's .NET) and the
    recorder's tracers (test/dotnet/recorder) built against it: (library, recorder)."""
    started = time.monotonic()
    library = dotnet_apps.tracing_library(dotnet, built["tracer-library"],
                                          os.path.join(args.work, "managed"))
    recorder = dotnet_apps.build_library(
        dotnet, os.path.join(dotnet_apps.APPS, "recorder", "Recorder.csproj"), "Recorder",
        os.path.join(args.work, "managed"), ["ClrieTracing=" + library])
    print("timing: Clrie.Tracing and the recorder built in %.1f s" % (
        time.monotonic() - started), flush=True)
    return library, recorder


# Built before Wine starts: Wine's own processes stay only seconds after the last program.
if set(chosen) & set(TRACER_PLUGIN_SCENARIOS):
    tracer_managed()
print("timing: Wine started in %.1f s" % prefix.start(), flush=True)


def run(label, app, env=None):
    result = prefix.run(apps[app], env=env)
    print("timing: %s %.1f s (exit %d)" % (label, result.seconds, result.returncode), flush=True)
    return result


def config_text(name, module, guid, settings=None):
    entries = "".join('      <Setting Name="%s" Value="%s"/>\n' % item
                      for item in (settings or {}).items())
    return ("<InstrumentationEngineConfiguration>\n  <InstrumentationMethod>\n"
            "    <Name>%s</Name>\n    <Description>%s</Description>\n    <Module>%s</Module>\n"
            "    <ClassGuid>%s</ClassGuid>\n    <Priority>50</Priority>\n%s"
            "  </InstrumentationMethod>\n</InstrumentationEngineConfiguration>\n" % (
                name, name, module, guid,
                "    <Settings>\n%s    </Settings>\n" % entries if entries else ""))


def plugin_box(label, plugin, guid, settings=None):
    """A scenario folder with the plugin DLL and its configuration beside it; settings is a
    dict, or a function of the folder that returns one."""
    box = dotnet_apps.Sandbox("clrie-wine", label, args.keep)
    module = os.path.basename(built[plugin])
    box.copy(built[plugin], "plugin/" + module)
    if callable(settings):
        settings = settings(box)
    config = box.write("plugin/%s.config" % plugin, config_text(plugin, module, guid, settings))
    return box, config


baseline = {name: run("%s bare" % name, name) for name in ("hello", "sample", "traced")
            if name in apps}
for name, result in baseline.items():
    checks.expect(result.returncode in (0, 3) and result.stdout,
                  "%s bare: the app runs and prints" % name, result)
if checks.failures:
    sys.exit(checks.finish(""))


def as_bare(label, app, result, stdout=True, stderr="equal"):
    """Exit code, stdout (unless not asked) and stderr as bare: stderr "equal", or "contained"
    (each of bare's lines in it, beside the lines of the engine and its plugins)."""
    base = baseline[app]
    checks.expect(result.returncode == base.returncode,
                  "%s: exit code %d as bare" % (label, base.returncode), result)
    if stderr == "equal":
        checks.expect(result.stderr == base.stderr, "%s: stderr as bare (%r)" % (
            label, base.stderr), result)
    else:
        for line in lines(base.stderr):
            checks.expect(line in result.stderr, "%s: the app's stderr line %r still arrives" % (
                label, line), result)
    if stdout:
        checks.expect(result.stdout == base.stdout,
                      "%s: stdout as bare\n    bare stdout: %r" % (label, base.stdout), result)


def traced_lines_removed(stdout):
    return [l for l in lines(stdout) if not l.startswith(("enter Sample.", "exit Sample."))]


# ---- the MSI and the proxy under C:\Program Files -------------------------------------------

def build_msi(box, version):
    """The package packaging/msi/build-msi makes of the build, installing as version."""
    msi = box.path("clrie-%s-x64.msi" % version)
    result = subprocess.run([BUILD_MSI, build, msi, "--version", version],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    built_lines = [l for l in lines(result.stdout) if "GLib" not in l]
    checks.expect(result.returncode == 0 and os.path.isfile(msi),
                  "build-msi %s: the package is built, and it only places files" % version,
                  seen="\n".join(built_lines))
    return msi


def msiexec(action, msi, label):
    """msiexec /i or /x of the package, quiet, as an administrator's deployment runs it."""
    result = prefix.run("msiexec", [action, wine_apps.windows_path(msi), "/qn"])
    print("timing: msiexec %s %s %.1f s (exit %d)" % (action, os.path.basename(msi),
                                                     result.seconds, result.returncode),
          flush=True)
    checks.expect(result.returncode == 0, "%s: msiexec %s exits 0" % (label, action), result)


UNINSTALL_KEY = "HKLM\\Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\"


def listed_installed(msi):
    """Whether Windows lists the package's product among the installed programs (its key under
    Uninstall, which Windows Installer writes and removes), read with Wine's reg."""
    properties = subprocess.run(["msiinfo", "export", msi, "Property"], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True).stdout
    code = next((line.split("\t")[1].strip() for line in lines(properties)
                 if line.startswith("ProductCode\t")), None)
    result = prefix.run("reg", ["query", UNINSTALL_KEY + code]) if code else None
    return bool(result and result.returncode == 0 and "DisplayName" in result.stdout)


def expect_listed(label, installed, removed=()):
    """Checks that Windows lists exactly the versions installed, of those the test made."""
    for version, msi in installed:
        checks.expect(listed_installed(msi), "%s: Windows lists clrie %s as installed"
                      % (label, version))
    for version, msi in removed:
        checks.expect(not listed_installed(msi), "%s: Windows no longer lists clrie %s"
                      % (label, version))


def scenario_proxy():
    """The MSI installed, a newer one beside it, each uninstalled; the app started through the
    installed proxy and through a copy of it in a product's folder, with the trust check on."""
    program_files = os.path.join(prefix.path, "drive_c", "Program Files")
    root = os.path.join(program_files, INSTALL_FOLDER)
    product = os.path.join(program_files, PRODUCT_FOLDER)
    for folder in (root, product):
        if os.path.exists(folder) and not os.path.exists(os.path.join(folder, INSTALL_MARK)):
            checks.expect(False, "proxy: %s exists and this test did not make it: not touched"
                          % folder)
            return
        shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(product)
    open(os.path.join(product, INSTALL_MARK), "w").close()
    windows_root = "C:\\Program Files\\" + INSTALL_FOLDER
    box = dotnet_apps.Sandbox("clrie-wine", "proxy", args.keep)
    msis = {}
    try:
        for version in ("1.0.0", "1.0.1"):
            msis[version] = build_msi(box, version)
        if checks.failures:
            return
        msiexec("/i", msis["1.0.0"], "the package of 1.0.0")
        expect_listed("1.0.0 installed", [("1.0.0", msis["1.0.0"])])
        # Marks the install as this test's until the last uninstall, for a run cut short.
        open(os.path.join(root, INSTALL_MARK), "w").close()
        # A product installed as on Windows: its plugin and configuration in its own folder
        # under Program Files, and a copy of the proxy there.
        tracer = os.path.basename(built["tracer"])
        shutil.copyfile(built["tracer"], os.path.join(product, tracer))
        shutil.copyfile(built["proxy"], os.path.join(product, PROXY))
        with open(os.path.join(product, "tracer.config"), "w") as f:
            f.write(config_text("tracer", tracer, TRACER_GUID, {"Pattern": "Sample.*"}))
        windows_product = "C:\\Program Files\\" + PRODUCT_FOLDER

        def start(label, proxy_path, config=windows_product + "\\tracer.config"):
            """The sample through the proxy at proxy_path (a Windows path), with the trust
            check on, as a Windows user runs it."""
            log = box.path(label.replace(" ", "-") + ".log")
            env = wine_apps.profiler_environment(built["engine"], log)
            del env["MicrosoftInstrumentationEngine_DisableCodeSignatureValidation"]
            env.update(CORECLR_PROFILER_PATH=proxy_path,
                       MicrosoftInstrumentationEngine_ConfigPath64_Tracer=config,
                       MicrosoftInstrumentationEngine_LogLevel="Messages")
            result = run("proxy: " + label, "sample", env)
            text = read(log)
            for line in lines(text):
                if "clrie proxy: " in line or line.startswith("LogError"):
                    print("   log: " + line)
            return result, text, [l for l in lines(text) if "clrie proxy: " in l]

        def expect_loaded(label, result, text, proxy_lines, version):
            as_bare(label, "sample", result, stdout=False)
            checks.expect(lines(result.stdout)[:1] == ["enter Sample.Program::Main"] and
                          traced_lines_removed(result.stdout) == lines(baseline["sample"].stdout),
                          "%s: the app is traced (the tracer loaded through the proxy)" % label,
                          result)
            wanted = "loaded engine '%s\\%s\\Instrumentation64\\%s' (version %s" % (
                windows_root, version, ENGINE, version)
            checks.expect(any(wanted in l for l in proxy_lines),
                          "%s: the proxy says it loaded version %s: %s" % (label, version, wanted),
                          seen=proxy_lines)
            checks.expect("LogError" not in text, "%s: no error logged, the trust check on"
                          % label, seen=text[:2000])

        installed = windows_root + "\\Proxy\\v1\\" + PROXY
        result, text, proxy_lines = start("installed proxy", installed)
        expect_loaded("the proxy the MSI installed", result, text, proxy_lines, "1.0.0")
        result, text, proxy_lines = start("product proxy", windows_product + "\\" + PROXY)
        expect_loaded("a copy of the proxy in a product's folder (%ProgramFiles%)", result,
                      text, proxy_lines, "1.0.0")

        # The same configuration in a folder everyone may change (Wine reports /tmp so): refused
        # by the trust rule, with the line saying who can change it.
        box.copy(built["tracer"], "plugin/" + tracer)
        loose = box.write("plugin/tracer.config", config_text("tracer", tracer, TRACER_GUID))
        result, text, _ = start("loose plugin", installed, wine_apps.windows_path(loose))
        as_bare("a plugin in a folder Everyone can change", "sample", result)
        checks.expect(any("can be changed by Everyone" in l and "tracer.config" in l
                          for l in lines(text)),
                      "a plugin in a folder Everyone can change: refused by the trust rule, "
                      "in one line naming the configuration and who can change it",
                      seen=text[:2000])

        # A newer version's package beside the first, and a preview (copied in: the proxy
        # leaves previews alone unless asked).
        msiexec("/i", msis["1.0.1"], "the package of 1.0.1 beside 1.0.0")
        expect_listed("1.0.1 installed beside 1.0.0", msis.items())
        preview = os.path.join(root, "1.1.0-preview1", "Instrumentation64")
        os.makedirs(preview)
        shutil.copyfile(built["engine"], os.path.join(preview, ENGINE))
        result, text, proxy_lines = start("newer install", installed)
        expect_loaded("1.0.1 installed beside 1.0.0 (and a preview)", result, text, proxy_lines,
                      "1.0.1")
        shutil.rmtree(os.path.dirname(preview))

        msiexec("/x", msis["1.0.1"], "uninstalling 1.0.1")
        expect_listed("1.0.1 uninstalled", [("1.0.0", msis["1.0.0"])],
                      [("1.0.1", msis["1.0.1"])])
        checks.expect(not os.path.exists(os.path.join(root, "1.0.1")),
                      "uninstalling 1.0.1 removes its folder", seen=sorted(os.listdir(root)))
        result, text, proxy_lines = start("after uninstalling 1.0.1", installed)
        expect_loaded("1.0.1 uninstalled: 1.0.0 works on, through the proxy both installed",
                      result, text, proxy_lines, "1.0.0")

        os.remove(os.path.join(root, INSTALL_MARK))
        msiexec("/x", msis["1.0.0"], "uninstalling 1.0.0")
        expect_listed("both uninstalled", [], msis.items())
        checks.expect(not os.path.exists(root),
                      "both uninstalled: nothing is left under C:\\Program Files",
                      seen=[os.path.relpath(os.path.join(d, n), program_files)
                            for d, _, names in os.walk(root) for n in names + [""]])
        result, text, proxy_lines = start("nothing installed", windows_product + "\\" + PROXY)
        as_bare("no engine installed", "sample", result)
        checks.expect(any("no eligible engine under '%s'" % windows_root in l
                          for l in proxy_lines),
                      "no engine installed: one line names the root the proxy searched",
                      seen=text[:2000])
    finally:
        if os.path.exists(root):
            for msi in msis.values():
                prefix.run("msiexec", ["/x", wine_apps.windows_path(msi), "/qn"])
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(product, ignore_errors=True)
        box.close()


# ---- IL rewriting: the tracer example under both engines ------------------------------------

def scenario_tracer():
    outputs = {}
    engines = [("clrie", built["engine"])] + ([("CLRIE", microsoft)] if microsoft else [])
    for name, engine in engines:
        # Microsoft's CLRIE takes no <Settings> in a configuration file: the example reads
        # its settings from CLRIE_SETTING_<class ID>_<name> there (clrie/plugin.h).
        settings = {"Pattern": "Sample.*"}
        box, config = plugin_box("tracer-" + name, "tracer", TRACER_GUID,
                                 settings if name == "clrie" else None)
        try:
            log = box.path("engine.log")
            env = wine_apps.profiler_environment(engine, log, {"Tracer": config})
            if name != "clrie":
                env.update(("CLRIE_SETTING_%s_%s" % (re.sub("[^0-9A-F]", "", TRACER_GUID), key),
                            value) for key, value in settings.items())
            result = run("tracer under " + name, "sample", env)
            label = "tracer under " + name
            as_bare(label, "sample", result, stdout=False)
            traced = lines(result.stdout)
            checks.expect(traced[:1] == ["enter Sample.Program::Main"] and
                          traced[-1:] == ["exit Sample.Program::Main"],
                          "%s: Main's entry first and its exit last" % label, result)
            checks.expect(traced_lines_removed(result.stdout) == lines(baseline["sample"].stdout),
                          "%s: without the entry and exit lines, stdout as bare" % label, result)
            checks.expect(read(log).strip() == "", "%s: the engine logged no error" % label,
                          seen=read(log)[:2000])
            outputs[name] = traced
        finally:
            box.close()
    print("   tracer: %d lines, %d of them entry or exit" % (
        len(outputs.get("clrie", [])),
        sum(l.startswith(("enter ", "exit ")) for l in outputs.get("clrie", []))))
    if "CLRIE" in outputs:
        checks.expect(outputs["clrie"] == outputs["CLRIE"],
                      "tracer: the same lines under clrie as under Microsoft's CLRIE",
                      seen=outputs)


# ---- every method rewritten at JIT time, then ReJIT-ed ---------------------------------------

STRESS_MODULES = "sample.dll"


def scenario_stress():
    # The ReJIT of the app's own module runs on every .NET version, as in the Linux tests; with
    # every module of the process in scope (Modules=*) it would be left out on .NET 8, whose
    # runtime crashes or deadlocks now and then there (stress_runs.RUNTIME_DEFECTS).
    defect = stress_runs.runtime_defect("rejit", STRESS_MODULES)
    if defect:
        print("   ReJIT left out: " + defect)
    box, config = plugin_box("stress", "stress", STRESS_GUID, lambda box: {
        "Modules": STRESS_MODULES, "Nops": "true", "Rejit": "false" if defect else "true",
        "Report": wine_apps.windows_path(box.path("report.txt"))})
    try:
        report = box.path("report.txt")
        log = box.path("engine.log")
        env = wine_apps.profiler_environment(built["engine"], log, {"Stress": config})
        result = run("stress with ReJIT", "sample", env)
        as_bare("stress with ReJIT", "sample", result)
        text = read(report).strip()
        print("   " + (text or "(no report)"))
        match = STRESS_REPORT.match(text)
        checks.expect(match is not None, "stress: the report was written", seen=text)
        if match:
            seen, instrumented, failed, requested, rejit_failed, compiled, jit_failed = (
                int(n) for n in match.groups())
            checks.expect(seen > 0 and instrumented > 0 and failed == 0,
                          "stress: methods of sample.dll were rewritten, none failed", seen=text)
            if not defect:
                checks.expect(requested > 0 and rejit_failed == 0 and instrumented <= requested,
                              "stress: methods were ReJIT-ed, none failed, and only those were "
                              "rewritten", seen=text)
            checks.expect(compiled > 0 and jit_failed == 0,
                          "stress: the JIT compiled the rewritten methods", seen=text)
        checks.expect(read(log).strip() == "", "stress: the engine logged no error",
                      seen=read(log)[:2000])
    finally:
        box.close()


# ---- the raw profiler hook --------------------------------------------------------------------

def scenario_raw_hook():
    box = dotnet_apps.Sandbox("clrie-wine", "raw-hook", args.keep)
    try:
        hook = box.copy(built["raw-hook"], "hook/raw-hook.dll")
        raw, log = box.path("raw.txt"), box.path("engine.log")
        env = wine_apps.profiler_environment(built["engine"], log)
        env.update(MicrosoftInstrumentationEngine_RawProfilerHook=RAW_HOOK_GUID,
                   MicrosoftInstrumentationEngine_RawProfilerHookPath_64=wine_apps.windows_path(
                       hook),
                   CLRIE_RAW_HOOK_FILE=wine_apps.windows_path(raw))
        result = run("raw hook", "hello", env)
        as_bare("raw hook", "hello", result)
        seen = lines(read(raw))
        checks.expect(seen[:1] == ["raw Initialize"] and "raw Shutdown" in seen,
                      "raw hook: initialised first, shut down", seen=seen[:8])
        checks.expect("raw ModuleLoadFinished hello.dll" in seen,
                      "raw hook: saw the app's module load", seen=seen)
        checks.expect(any(l.startswith("raw GetEventMask 0x") for l in seen),
                      "raw hook: its event mask was set", seen=seen[:8])
        checks.expect(read(log).strip() == "", "raw hook: the engine logged no error",
                      seen=read(log)[:2000])
    finally:
        box.close()


# ---- what the engine cannot use, and names outside ASCII ------------------------------------

ARM64_MACHINE = 0xAA64


def for_arm64(dll):
    """The bytes of the x64 DLL dll with its PE header saying it is for ARM64."""
    with open(dll, "rb") as f:
        data = bytearray(f.read())
    header = int.from_bytes(data[0x3C:0x40], "little")
    assert data[header:header + 4] == b"PE\0\0", dll
    data[header + 4:header + 6] = ARM64_MACHINE.to_bytes(2, "little")
    return bytes(data)


def scenario_bad_input():
    """Configurations the engine cannot use beside one it can: a truncated copy of a plugin
    DLL, a plugin DLL for another machine, a configuration file that is not there; and the
    tracer example in a folder named outside ASCII (configuration and DLL reached through
    UTF-16 paths; its variable's name in lower case). Each bad one is refused in one line
    naming it, the good one traces, the app runs as bare."""
    box = dotnet_apps.Sandbox("clrie-wine", "bad-input", args.keep)
    try:
        tracer = os.path.basename(built["tracer"])
        good = box.copy(built["tracer"], "pl\u00fcgin-\u4e2d/" + tracer)
        good_config = box.write("pl\u00fcgin-\u4e2d/tracer.config",
                                config_text("tracer", tracer, TRACER_GUID,
                                            {"Pattern": "Sample.*"}))
        with open(built["tracer"], "rb") as f:
            box.write_bytes("truncated/truncated.dll", f.read(4096))
        truncated_config = box.write("truncated/truncated.config", config_text(
            "truncated", "truncated.dll", "{A3C52C58-0E2B-4C43-9C2B-6B0F1B7E3D11}"))
        box.write_bytes("arm64/arm64.dll", for_arm64(built["tracer"]))
        arm64_config = box.write("arm64/arm64.config", config_text(
            "arm64", "arm64.dll", "{A3C52C58-0E2B-4C43-9C2B-6B0F1B7E3D12}"))
        missing_config = box.path("missing/none.config")
        log = box.path("engine.log")
        env = wine_apps.profiler_environment(built["engine"], log, {
            "A_Truncated": truncated_config, "B_Arm64": arm64_config,
            "C_Missing": missing_config})
        # Windows compares variable names ignoring case, and so must the engine.
        env[(dotnet_apps.CONFIG_VAR + "D_Tracer").lower()] = wine_apps.windows_path(good_config)
        result = run("bad input", "sample", env)
        as_bare("bad input", "sample", result, stdout=False)
        checks.expect(traced_lines_removed(result.stdout) == lines(baseline["sample"].stdout) and
                      lines(result.stdout)[:1] == ["enter Sample.Program::Main"],
                      "bad input: the tracer in a folder named outside ASCII traces the app",
                      result)
        text = read(log)
        for line in lines(text):
            print("   log: " + line)
        for what, name in (("a truncated plugin DLL", "truncated.dll"),
                           ("a plugin DLL for ARM64", "arm64.dll"),
                           ("a configuration that is not there", "none.config")):
            named = [l for l in lines(text) if name in l]
            checks.expect(len(named) == 1,
                          "bad input: %s is refused in one line naming it (%s)" % (what, name),
                          seen=text[:3000])
        checks.expect(wine_apps.windows_path(good) not in text and "pl\u00fcgin" not in text,
                      "bad input: no line about the plugin in the folder named outside ASCII",
                      seen=text[:3000])
    finally:
        box.close()


# ---- the tracer plugin: points files, C# tracers, refreshes --------------------------------

def scenario_tracer_plugin(watch):
    """The tracer plugin installed as clrie installs it (the plugin, Clrie.Tracing.dll and
    Tracer.config in one folder) on test/dotnet/refreshed while its points file changes: the
    events follow each change, through the folder watch (ReadDirectoryChangesW) or through
    Clrie.Tracing.Tracing.Refresh() (which finds the plugin DLL beside itself)."""
    what = "tracer plugin, %s" % ("folder watched" if watch else "Tracing.Refresh()")
    managed, recorder = tracer_managed()
    box = dotnet_apps.Sandbox("clrie-wine", "tracer-plugin", args.keep)
    session = None
    try:
        box.copy(built["tracer-plugin"], "Tracer/clrie-tracer.dll")
        library = box.copy(managed, "Tracer/Clrie.Tracing.dll")
        config = box.copy(built["tracer-config"], "Tracer/Tracer.config")
        box.copy(recorder, "points/recorder/Recorder.dll")
        points = box.path("points/refreshed.xml")

        def replace_points(methods):  # at once (a rename), as a deployment would
            temporary = box.write("points/.refreshed.tmp", refresh_points(methods))
            os.replace(temporary, points)

        replace_points(STEPS[0])
        output, log = box.path("trace.txt"), box.path("engine.log")
        env = wine_apps.profiler_environment(built["engine"], log, {"Tracer": config})
        env.update({FOLDER_VARIABLE: wine_apps.windows_path(box.path("points")),
                    "DOTNET_STARTUP_HOOKS": wine_apps.windows_path(library),
                    "CLRIE_TEST_TRACE_OUTPUT": wine_apps.windows_path(output)})
        if not watch:
            env[WATCH_VARIABLE] = "false"
        process = subprocess.Popen(
            [prefix.wine64, apps["refreshed"]], env=prefix.environment(env),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, start_new_session=True)
        session = Session(process, output, lambda path: lines(read(path)))
        follow_steps(checks, what, session, replace_points, watch)
        session = None
        checks.expect(read(log).strip() == "", "%s: the engine logged no error" % what,
                      seen=read(log)[:2000])
    finally:
        if session:
            session.kill()
        box.close()


# ---- clrie-attach: the engine loaded into a running app -------------------------------------

# A process ID no Windows process has (Wine's are small multiples of 4).
NO_PROCESS = 4000000


def scenario_attach():
    """test/dotnet/service started without a profiler, then clrie-attach from an install's Tools
    folder, named outside ASCII (so that it loads the engine installed beside that folder, by a
    UTF-16 path), with the attach probe and
    a DetachFile relative to its own folder; as on Linux (test/dotnet/attach_service.py), Old is
    ReJIT-ed, New instrumented at its JIT, a second attach refused, and once the file appears
    both run their original code, the engine saying how the detach ended. Then what
    clrie-attach cannot use: no such process, a process that is not .NET (Wine's
    services.exe), a configuration that is not there."""
    started = time.monotonic()
    box = dotnet_apps.Sandbox("clrie-wine", "attach", args.keep)
    service = None
    log_path = None
    try:
        config = attach_service.probe_config(box, built["attach-probe"])
        # Named outside ASCII: the engine's path goes to the runtime in UTF-16.
        install = "inst\u00e4ll-\u4e2d/1.0.0/Instrumentation64/"
        tools = box.copy(built["clrie-attach"], install + "Tools/clrie-attach.exe")
        box.copy(built["engine"], install + ENGINE)
        report, trigger = box.path("report.txt"), box.path("detach-now")
        # The plugin sits in /tmp, which Wine says Everyone can change: the trust rule is off
        # for it, in the app's environment (the engine reads it when it is loaded).
        env = prefix.environment(
            {"MicrosoftInstrumentationEngine_DisableCodeSignatureValidation": "1"})
        service = attach_service.Service([prefix.wine64, apps["service"]], env, box.path("go"),
                                         box.path("stop"), wine_apps.windows_path)
        if not checks.expect(service.pid is not None, "attach: the service printed its ID",
                             seen=service.lines):
            return
        attached = []

        def attach():
            result = prefix.run(tools, [
                str(service.pid), "--config", wine_apps.windows_path(config),
                "--setting", "Report=" + wine_apps.windows_path(report),
                "--setting", "Module=service.dll", "--setting", "Methods=Old,New",
                "--setting", "Rejit=Old", "--setting", "DetachFile=detach-now",
                "--timeout", "20"], cwd=box.dir)
            print("timing: clrie-attach %.1f s (exit %d)" % (result.seconds, result.returncode))
            attached.append(result)
            return result

        first = attach_service.instrumented_then_detached(
            checks, service, attach, lambda: open(trigger, "w").close())
        print("   " + " | ".join(lines(first.stdout) + lines(attached[-1].stderr)))
        logs = re.findall(r"the engine logs to (.+)", first.stdout)
        checks.expect(len(logs) == 1 and re.match(r"[A-Z]:\\.*\\clrie-attach-%d-\w+\.log$"
                                                  % service.pid, logs[0].strip()),
                      "attach: clrie-attach names the log it made in the temporary folder",
                      first)
        log_path = prefix.linux_path(logs[0].strip()) if logs else None
        log = read(log_path) if log_path else ""
        end = attach_service.check_detach_file_log(checks, log, wine_apps.windows_path(trigger),
                                                   2)
        print("   the detach ended: " + next((l for l in lines(log) if end and end in l), "?"))
        errors = [l for l in lines(log)
                  if l.startswith("LogError") and "refused RequestProfilerDetach" not in l]
        checks.expect(not errors, "attach: no error in the engine's log (but the runtime's "
                      "refusal to detach)", seen=errors)
        attach_service.check_probe_report(checks, lines(read(report)), 4, False)

        ids = prefix.process_ids().get("services.exe", [])
        if checks.expect(ids, "bad input: Wine's services.exe runs (wmic)"):
            attach_service.check_bad_input(
                checks, lambda pid, missing: prefix.run(tools, [
                    str(pid), "--config", missing or wine_apps.windows_path(config)]),
                NO_PROCESS, ids[0], "pipe", wine_apps.windows_path(box.path("missing.xml")))
    finally:
        if service:
            service.kill()
        if log_path and os.path.exists(log_path) and not args.keep:
            os.remove(log_path)
        box.close()
        print("timing: attach scenario %.1f s" % (time.monotonic() - started), flush=True)


# ---- the tracer plugin on test/dotnet/traced, as test_tracer.py's scenario traced ----------

def scenario_traced():
    """test/dotnet/traced with the tracer plugin installed as clrie installs it, the points,
    tracers and checks of the Linux test's scenario traced (traced_points): every kind of method
    traced with the same events, the same lines for what is left alone or refused, and the
    app's own output as bare. The engine logs to stderr, as there (no log file)."""
    library, recorder = tracer_managed()
    box = dotnet_apps.Sandbox("clrie-wine", "traced", args.keep)
    try:
        box.copy(built["tracer-plugin"], "Tracer/clrie-tracer.dll")
        installed = box.copy(library, "Tracer/Clrie.Tracing.dll")
        config = box.copy(built["tracer-config"], "Tracer/Tracer.config")
        box.copy(recorder, traced_points.RECORDER_FILE)
        traced_points.write_points(box)
        traced_points.write_problems(box)
        output = box.path("trace.txt")
        env = wine_apps.profiler_environment(built["engine"], None, {"Tracer": config})
        env.update({FOLDER_VARIABLE: wine_apps.windows_path(box.path("points")),
                    "DOTNET_STARTUP_HOOKS": wine_apps.windows_path(installed),
                    "CLRIE_TEST_TRACE_OUTPUT": wine_apps.windows_path(output)})
        result = run("traced", "traced", env)
        as_bare("traced", "traced", result, stderr="contained")
        checks.expect("Unhandled exception" not in result.stderr,
                      "traced: no unhandled exception", result)
        events = lines(read(output))
        print("   traced: %d events, %d lines on stderr" % (len(events),
                                                             len(lines(result.stderr))))
        traced_points.check_traced(checks, "traced", result, events,
                                   lambda relative: wine_apps.windows_path(box.path(relative)),
                                   int(dotnet_apps.test_runtime() or 10))
    finally:
        box.close()


scenarios = [
    ("proxy", "the MSI: installed, a newer one beside it, both uninstalled; the proxy",
     scenario_proxy),
    ("tracer", "examples/tracer under clrie and Microsoft's CLRIE", scenario_tracer),
    ("stress", "examples/stress: every method rewritten and ReJIT-ed", scenario_stress),
    ("raw-hook", "a raw profiler hook beside the engine", scenario_raw_hook),
    ("bad-input", "DLLs and configurations the engine cannot use; names outside ASCII",
     scenario_bad_input),
    ("tracer-watch", "the tracer plugin, its points folder watched",
     lambda: scenario_tracer_plugin(True)),
    ("tracer-refresh", "the tracer plugin, refreshed by Clrie.Tracing.Tracing.Refresh()",
     lambda: scenario_tracer_plugin(False)),
    ("attach", "clrie-attach into a running app, ReJIT, a DetachFile; what it cannot use",
     scenario_attach),
    ("traced", "the tracer plugin on test/dotnet/traced, as on Linux", scenario_traced),
]
assert [s[0] for s in scenarios] == list(SCENARIO_APPS), "every scenario says which apps it runs"
dotnet_apps.run_scenarios(checks, scenarios, set(chosen))
sys.exit(checks.finish("clrie's Windows build runs apps unchanged under Wine: proxy install, "
                       "IL rewriting, ReJIT, raw hook, bad input refused, tracer plugin, attach"))
