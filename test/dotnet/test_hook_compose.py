"""The raw profiler hook and a plugin editing the same method, in the real runtime: the engine
runs test/plugins/compose_plugin.c as a plugin and test/plugins/rewriting_hook.c (an ordinary
profiler that rewrites IL itself) as its raw hook, on test/dotnet/compose. Program.Value(1)
returns 1 without a profiler; the plugin adds 10, 20, 30 to the result at the first JIT and
the ReJITs, the hook adds 100, 200, 300 to the argument.

Expected, in the order the engine documents (the hook first, then the plugins on its body):
  first 111                       both edits at the first JIT
  after the hook's rejit 221      a ReJIT the hook asked for: both edits again
  after the plugin's rejit 331    a ReJIT the plugin asked for: both edits again
  after the plugin's revert 401   the plugin's revert keeps the hook's edit (a ReJIT without
                                  the plugin, the hook given the original body)
  after the hook's revert 111     both reverted: the code of the first JIT again (a revert
                                  undoes ReJITs, not what was set at the first JIT)
The IL offsets the runtime reports for each compilation of Value (taken back through the IL
map the engine composed from the plugins' and the hook's) are instruction starts of the
original body, and the engine logs no error. A second run makes the two conflict (code-gen
flags that differ at a ReJIT, a hook body and IL map set over the plugin's after the first
JIT): each conflict is logged with the method's name.

Arguments: ENGINE_SO HOOK_SO PLUGIN_SO CLRIE_IL APPS_BUILD_DIR"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

PLUGIN_GUID = "{9B1E4C7D-2A35-4F60-8D1C-6E2F0A3B5C47}"
HOOK_CLSID = "{C4A1D2E3-5F60-4718-9A2B-3C4D5E6F7081}"
CONFIG = """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>Compose</Name>
    <Module>libcompose-plugin.so</Module>
    <ClassGuid>%s</ClassGuid>
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
""" % PLUGIN_GUID

engine, hook, plugin, clrie_il, out_root = (os.path.abspath(a) for a in sys.argv[1:6])
dotnet = dotnet_apps.find_dotnet(os.environ.get("CLRIE_DOTNET", "dotnet"))
checks = dotnet_apps.Checks()
app = dotnet_apps.build_app(dotnet, "compose", out_root)
baseline = dotnet_apps.run_app(dotnet, app)
checks.expect([line.split()[-1] for line in baseline.stdout.splitlines()] == ["1"] * 5,
              "without a profiler Value(1) is 1", seen=baseline.stdout)

# The instruction starts of Value's original body.
listing = subprocess.run([clrie_il, "dis", app, "--method", "Program::Value"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
starts = {int(m.group(1), 16) for m in re.finditer(r"^\s+IL_([0-9a-fA-F]{4}):", listing, re.M)}
checks.expect(len(starts) >= 4, "clrie-il lists Value's instructions", seen=listing)

box = dotnet_apps.Sandbox("clrie-hook-compose", "run")
try:
    box.copy(plugin, "libcompose-plugin.so")
    box.copy(hook, "librewriting-hook.so")
    config = box.write("compose.config", CONFIG)
    hook_lines, plugin_lines = box.path("hook.txt"), box.path("plugin.txt")
    suffix = dotnet_apps.engine_arch_suffix()
    run = dotnet_apps.run_app(dotnet, app, profiler_path=engine, args=("profiled",), extra_env={
        "MicrosoftInstrumentationEngine_ConfigPath%s_Compose" % suffix: config,
        "MicrosoftInstrumentationEngine_RawProfilerHook": HOOK_CLSID,
        "MicrosoftInstrumentationEngine_RawProfilerHookPath_" + suffix:
            box.path("librewriting-hook.so"),
        "MicrosoftInstrumentationEngine_LogLevel": "Errors",
        "CLRIE_REWRITING_HOOK_FILE": hook_lines,
        "CLRIE_COMPOSE_PLUGIN_FILE": plugin_lines})
    hook_seen = dotnet_apps.read_lines(hook_lines)
    plugin_seen = dotnet_apps.read_lines(plugin_lines)
finally:
    box.close()

print(run.stdout + run.stderr)
print("\n".join("hook:   " + line for line in hook_seen))
print("\n".join("plugin: " + line for line in plugin_seen))
checks.expect(run.returncode == 0, "the app exits 0", run)
lines = run.stdout.splitlines()
checks.expect(lines[:3] == ["first 111", "after the hook's rejit 221",
                           "after the plugin's rejit 331"],
              "both the plugin's and the hook's edits run, at the first JIT and at each ReJIT",
              seen=lines)
checks.expect(lines[3:] == ["after the plugin's revert 401", "after the hook's revert 111"],
              "a revert by one side keeps the other side's edit; by both, the first JIT's code "
              "runs again",
              seen=lines)
checks.expect("LogError" not in run.stderr, "the engine logs no error", seen=run.stderr)
checks.expect(any(line.startswith("rewrote Value at jit") for line in hook_seen) and
              any(line.startswith("rewrote Value at rejit 1") for line in hook_seen) and
              any(line.startswith("rewrote Value at rejit 2") for line in hook_seen),
              "the hook rewrote Value at the first JIT and at both ReJITs", seen=hook_seen)
offsets = [line.split()[3] if len(line.split()) > 3 else "" for line in hook_seen
           if line.startswith("offsets Value ")]
checks.expect(len(offsets) >= 4, "the hook saw Value compiled four times", seen=hook_seen)
for seen in offsets:
    numbers = {int(n) for n in seen.split(",") if n}
    checks.expect(len(numbers) >= 2 and numbers <= starts,
                  "the runtime's IL offsets for Value (%s) are instruction starts of the "
                  "original body %s: the composed IL map holds" % (seen, sorted(starts)),
                  seen=seen)

# What does not compose is logged with the method's name: the hook's and the plugin's code-gen
# flags differing at a ReJIT (the runtime gets both), and the hook setting Value's body and IL
# map through ICorProfilerInfo once the plugin's were given (after Value's first compilation),
# which replace the plugin's body for the method's next compilation and the composed map.
box = dotnet_apps.Sandbox("clrie-hook-compose", "conflicts")
try:
    box.copy(plugin, "libcompose-plugin.so")
    box.copy(hook, "librewriting-hook.so")
    config = box.write("compose.config", CONFIG)
    hook_lines = box.path("hook.txt")
    run = dotnet_apps.run_app(dotnet, app, profiler_path=engine, args=("profiled",), extra_env={
        "MicrosoftInstrumentationEngine_ConfigPath%s_Compose" % suffix: config,
        "MicrosoftInstrumentationEngine_RawProfilerHook": HOOK_CLSID,
        "MicrosoftInstrumentationEngine_RawProfilerHookPath_" + suffix:
            box.path("librewriting-hook.so"),
        "MicrosoftInstrumentationEngine_LogLevel": "Messages",
        "CLRIE_REWRITING_HOOK_FILE": hook_lines,
        "CLRIE_REWRITING_HOOK_CONFLICTS": "1",
        "CLRIE_COMPOSE_PLUGIN_CODEGEN": "2"})
    hook_seen = dotnet_apps.read_lines(hook_lines)
finally:
    box.close()
print("\n".join(line for line in run.stderr.splitlines() if "Program.Value" in line))
print("\n".join("hook:   " + line for line in hook_seen))
checks.expect(run.returncode == 0, "conflicts: the app exits 0", run)
checks.expect("Program.Value: the raw profiler hook's code-gen flags 0x00000001 and the plugins' "
              "0x00000002 differ; the runtime gets both (0x00000003)" in run.stderr,
              "conflicts: differing code-gen flags at a ReJIT are logged with the method's name",
              seen=run.stderr)
checks.expect("set body late hr=0x00000000" in hook_seen,
              "conflicts: the runtime took the hook's late SetILFunctionBody", seen=hook_seen)
checks.expect("Program.Value: the raw profiler hook set a body through "
              "ICorProfilerInfo::SetILFunctionBody" in run.stderr,
              "conflicts: a hook body that replaces the plugins' is logged with the method's name",
              seen=run.stderr)
checks.expect("set map late hr=0x00000000" in hook_seen,
              "conflicts: the runtime took the hook's late SetILInstrumentedCodeMap", seen=hook_seen)
checks.expect("LogMessage" in run.stderr and
              "]:Program.Value: the raw profiler hook set an IL map through "
              "ICorProfilerInfo::SetILInstrumentedCodeMap" in run.stderr,
              "conflicts: a hook IL map that replaces the composed one is logged with the "
              "method's name", seen=run.stderr)

sys.exit(checks.finish("the raw hook and a plugin compose at the first JIT and at ReJITs"))
