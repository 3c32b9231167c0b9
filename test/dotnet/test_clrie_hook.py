"""Microsoft's CLRIE as clrie's raw profiler hook, in the real runtime. CLRIE for Linux comes
from the NuGet package Microsoft.CodeCoverage (restored by this test into the build folder);
clrie loads it as its raw hook, and each engine runs its own instance of
test/plugins/compose_plugin.c on test/dotnet/compose, from its own configuration, writing its
own log: clrie reads ClrieEngine_* variables, CLRIE the MicrosoftInstrumentationEngine_* ones
(docs/environment.md).

Expected: Value(1), 1 without a profiler, is 21 after the first JIT (each instance adds 10),
41 after the plugins' ReJIT (each adds 20; 61 when the runtime serves the two instances'
requests with two ReJITs, each instance then adding 30), and 21 again once both instances reverted it (the
first JIT's code); clrie's log has clrie's lines and CLRIE's has none of them; the app exits 0.
A package that cannot be restored fails the test (it is not skipped).

Arguments: ENGINE_SO PLUGIN_SO APPS_BUILD_DIR"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clrie_package  # noqa: E402
import dotnet_apps  # noqa: E402

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


if os.uname().machine not in ("x86_64", "amd64"):
    print("the package ships CLRIE for Linux x64 only; this machine is %s" % os.uname().machine)
    sys.exit(77)
try:
    clrie = clrie_package.restore(dotnet, out_root)
except clrie_package.Missing as missing:
    print("FAILED: Microsoft's CLRIE is missing:", missing)
    sys.exit(1)
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
# Each instance asks for the ReJIT from its own thread: the runtime may serve both requests with
# one ReJIT (41: each adds 20) or with two in a row (then 61: each adds 30), and the app prints
# the first changed value it sees. Either way both instances' edits are in the code it runs.
rejits = sorted({int(line.split("rejit=")[1].split()[0]) for line in plugin_lines
                 if "edited Value rejit=" in line} - {0})
carried = ["after the plugin's rejit %d" % (1 + 2 * 10 * (count + 1)) for count in rejits]
lines = run.stdout.splitlines()
checks.expect(len(lines) == 3 and lines[0] == "first 21" and lines[1] in carried and
              lines[2] == "after the plugin's revert 21",
              "both engines' plugins edit Value at the first JIT and at the ReJIT (%s), and the "
              "reverts of both bring back the first JIT's code" % " or ".join(carried),
              seen=run.stdout)
checks.expect(any("raw profiler hook attached" in line for line in ours),
              "clrie's own log says it loaded CLRIE as its raw hook", seen=ours[:10])
checks.expect(not any("LogError" in line for line in ours), "clrie logs no error", seen=ours)
checks.expect(theirs_lines and not any("clrie engine" in line for line in theirs_lines),
              "CLRIE's log has lines of its own and none of clrie's", seen=theirs_lines[:5])
checks.expect(sum("edited Value rejit=0" in line for line in plugin_lines) >= 2 and
              rejits and all(sum("edited Value rejit=%d " % count in line
                                 for line in plugin_lines) == 2 for count in rejits),
              "both instances of the plugin edited Value at the first JIT and at the ReJIT",
              seen=plugin_lines)

sys.exit(checks.finish("Microsoft's CLRIE runs as clrie's raw hook, each engine with its own "
                       "plugins and log, and both edits survive JIT and ReJIT"))
