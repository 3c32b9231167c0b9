"""Microsoft's CLRIE as clrie's raw profiler hook, in the real runtime. CLRIE for Linux comes
from the NuGet package Microsoft.CodeCoverage (restored by this test into the build folder);
clrie loads it as its raw hook, and each engine runs its own instance of
test/plugins/compose_plugin.c on test/dotnet/compose, from its own configuration, writing its
own log: clrie reads ClrieEngine_* variables, CLRIE the MicrosoftInstrumentationEngine_* ones
(docs/environment.md).

Expected: Value(1), 1 without a profiler, is 21 after the first JIT (each instance adds 10),
41 after the plugins' ReJIT (each adds 20), and 21 again once both instances reverted it (the
first JIT's code); clrie's log has clrie's lines and CLRIE's has none of them; the app exits 0.
A package that cannot be restored fails the test (it is not skipped).

Arguments: ENGINE_SO PLUGIN_SO APPS_BUILD_DIR"""
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

PACKAGE, VERSION = "Microsoft.CodeCoverage", "18.11.0"
PROFILER_CLSID = dotnet_apps.PROFILER_CLSID  # CLRIE's class ID, which clrie shares
PLUGIN_GUID = "{9B1E4C7D-2A35-4F60-8D1C-6E2F0A3B5C47}"
CONFIG = """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>%s</Name>
    <Description>test/plugins/compose_plugin.c</Description>
    <Module>libcompose-plugin.so</Module>
    <ClassGuid>%s</ClassGuid>
    <Priority>10</Priority>
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
"""

engine, plugin, out_root = (os.path.abspath(a) for a in sys.argv[1:4])
dotnet = dotnet_apps.find_dotnet(os.environ.get("CLRIE_DOTNET", "dotnet"))
checks = dotnet_apps.Checks()


def restore_clrie():
    """The path of CLRIE's libInstrumentationEngine.so for this machine, restored from NuGet
    into out_root; exits failing when the package cannot be had."""
    project_dir = os.path.join(out_root, "clrie-restore")
    packages = os.path.join(out_root, "nuget-packages")
    os.makedirs(project_dir, exist_ok=True)
    with open(os.path.join(project_dir, "restore.csproj"), "w") as f:
        f.write('<Project Sdk="Microsoft.NET.Sdk">\n'
                '  <PropertyGroup><TargetFramework>net$(BundledNETCoreAppTargetFrameworkVersion)'
                '</TargetFramework></PropertyGroup>\n'
                '  <ItemGroup><PackageReference Include="%s" Version="%s" /></ItemGroup>\n'
                '</Project>\n' % (PACKAGE, VERSION))
    found = glob.glob(os.path.join(packages, PACKAGE.lower(), VERSION, "build", "*", "ubuntu",
                                   "x64", "libInstrumentationEngine.so"))
    if not found:
        result = subprocess.run([dotnet, "restore", project_dir, "--packages", packages],
                                env=dotnet_apps.quiet_environment(), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        found = glob.glob(os.path.join(packages, PACKAGE.lower(), VERSION, "build", "*",
                                       "ubuntu", "x64", "libInstrumentationEngine.so"))
        if not found:
            print("FAILED: %s %s could not be restored from NuGet, so Microsoft's CLRIE is "
                  "missing:\n%s" % (PACKAGE, VERSION, result.stdout[-3000:]))
            sys.exit(1)
    return found[0]


if os.uname().machine not in ("x86_64", "amd64"):
    print("the package ships CLRIE for Linux x64 only; this machine is %s" % os.uname().machine)
    sys.exit(77)
clrie = restore_clrie()
print("Microsoft's CLRIE:", clrie)
app = dotnet_apps.build_app(dotnet, "compose", out_root)
baseline = dotnet_apps.run_app(dotnet, app, args=("plugins",))
checks.expect(baseline.stdout.splitlines() == ["first 1", "after the plugin's rejit 1",
                                               "after the plugin's revert 1"],
              "without a profiler Value(1) is 1", seen=baseline.stdout)

box = dotnet_apps.Sandbox("clrie-clrie-hook", "run")
try:
    box.copy(plugin, "libcompose-plugin.so")
    mine = box.write("mine.config", CONFIG % ("ComposeUnderClrie", PLUGIN_GUID))
    theirs = box.write("theirs.config", CONFIG % ("ComposeUnderMicrosoftClrie", PLUGIN_GUID))
    clrie_log, their_log = box.path("clrie.log"), box.path("microsoft-clrie.log")
    run = dotnet_apps.run_app(dotnet, app, profiler_path=engine, args=("plugins",), extra_env={
        "ClrieEngine_ConfigPath64_Mine": mine,
        "ClrieEngine_RawProfilerHook": PROFILER_CLSID,
        "ClrieEngine_RawProfilerHookPath_64": clrie,
        "ClrieEngine_LogLevel": "Messages",
        "ClrieEngine_FileLogPath": clrie_log,
        "MicrosoftInstrumentationEngine_ConfigPath64_Theirs": theirs,
        "MicrosoftInstrumentationEngine_LogLevel": "Messages",
        "MicrosoftInstrumentationEngine_FileLogPath": their_log,
        "CLRIE_COMPOSE_PLUGIN_FILE": box.path("plugin.txt")})
    ours = dotnet_apps.read_lines(clrie_log)
    theirs_lines = dotnet_apps.read_lines(their_log)
    plugin_lines = dotnet_apps.read_lines(box.path("plugin.txt"))
finally:
    box.close()

print(run.stdout + run.stderr)
print("\n".join("clrie log: " + line for line in ours if "module" not in line))
print("plugin:    " + "\nplugin:    ".join(plugin_lines))
checks.expect(run.returncode == 0, "the app exits 0", run)
checks.expect(run.stdout.splitlines() == ["first 21", "after the plugin's rejit 41",
                                          "after the plugin's revert 21"],
              "both engines' plugins edit Value at the first JIT and at the ReJIT, and the "
              "reverts of both bring back the first JIT's code", seen=run.stdout)
checks.expect(any("raw profiler hook attached" in line for line in ours),
              "clrie's own log says it loaded CLRIE as its raw hook", seen=ours[:10])
checks.expect(not any("LogError" in line for line in ours), "clrie logs no error", seen=ours)
checks.expect(theirs_lines and not any("clrie engine" in line for line in theirs_lines),
              "CLRIE's log has lines of its own and none of clrie's", seen=theirs_lines[:5])
checks.expect(sum("edited Value rejit=0" in line for line in plugin_lines) >= 2 and
              sum("edited Value rejit=1" in line for line in plugin_lines) == 2,
              "both instances of the plugin edited Value at the first JIT and at the ReJIT",
              seen=plugin_lines)

sys.exit(checks.finish("Microsoft's CLRIE runs as clrie's raw hook, each engine with its own "
                       "plugins and log, and both edits survive JIT and ReJIT"))
