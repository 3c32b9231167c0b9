"""The smallest plugin (examples/hello) through the engine in the real runtime: the app runs
unchanged, and the plugin's lines, through the engine's log with the plugin's prefix, name
the modules the runtime loaded; and the engine uses the newest ICorProfilerInfo the runtime
offers.

Arguments: ENGINE_SO HELLO_SO APPS_BUILD_DIR"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

HELLO_GUID = "{8E2D1C2A-5B7F-4C3E-9A61-0D4F2B3C5E71}"
CONFIG = """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>Hello</Name>
    <Module>libclrie-hello.so</Module>
    <ClassGuid>%s</ClassGuid>
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
""" % HELLO_GUID

engine, hello, out_root = (os.path.abspath(a) for a in sys.argv[1:4])
dotnet = dotnet_apps.find_dotnet(os.environ.get("CLRIE_DOTNET", "dotnet"))
checks = dotnet_apps.Checks()
app = dotnet_apps.build_app(dotnet, "hello", out_root)
baseline = dotnet_apps.run_app(dotnet, app)

box = dotnet_apps.Sandbox("clrie-hello", "plugin")
try:
    box.copy(hello, "libclrie-hello.so")
    config = box.write("hello.config", CONFIG)
    run = dotnet_apps.run_app(dotnet, app, profiler_path=engine, extra_env={
        "MicrosoftInstrumentationEngine_ConfigPath64_Hello": config,
        "MicrosoftInstrumentationEngine_LogLevel": "Messages"})
finally:
    box.close()
checks.same_as_baseline("hello plugin", run, baseline, stderr="contained")
prefix = "[IM:%s]hello: module loaded: " % HELLO_GUID.strip("{}").lower()
lines = [line for line in run.stderr.splitlines() if prefix in line]
loaded = [line.split(prefix, 1)[1] for line in lines]
for module in ("System.Private.CoreLib.dll", "hello.dll"):
    checks.expect(module in loaded, "the plugin logs that %s loaded" % module, seen=loaded[:8])
print("\n".join(lines[:3]))

# The engine keeps the newest ICorProfilerInfo the runtime offers: 14 on .NET 8, 15 on .NET 9
# and 10 (the engine knows up to 15).
NEWEST_INFO = {"8": 14, "9": 15, "10": 15}
major = next((line.split("hello from .NET ", 1)[1].split(".")[0]
              for line in baseline.stdout.splitlines() if "hello from .NET " in line), None)
attached = [line for line in run.stderr.splitlines() if "attached (ICorProfilerInfo" in line]
print("\n".join(attached[:1]))
if major in NEWEST_INFO:
    checks.expect_in("attached (ICorProfilerInfo%d)" % NEWEST_INFO[major], run.stderr,
                     "on .NET %s the engine uses ICorProfilerInfo%d" % (major, NEWEST_INFO[major]))

sys.exit(checks.finish("the hello plugin logs every module load through the engine"))
