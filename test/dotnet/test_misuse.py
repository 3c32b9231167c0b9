"""A plugin that misuses the engine (test/plugins/misuse.c) in the real runtime: the app runs
unchanged, and each misuse leaves its error line: a surplus Release of the IProfilerManager and
of an IInstruction, a failing ShouldInstrumentMethod, an edit through an IInstructionGraph kept
past its callback.

Arguments: ENGINE_SO MISUSE_SO APPS_BUILD_DIR"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

MISUSE_GUID = "{3C1B7E52-9A0D-4F6B-8E21-5D7A9C0B4E13}"
CONFIG = """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>Misuse</Name>
    <Module>libmisuse.so</Module>
    <ClassGuid>%s</ClassGuid>
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
""" % MISUSE_GUID

engine, misuse, out_root = (os.path.abspath(a) for a in sys.argv[1:4])
dotnet = dotnet_apps.find_dotnet(os.environ.get("CLRIE_DOTNET", "dotnet"))
checks = dotnet_apps.Checks()
app = dotnet_apps.build_app(dotnet, "hello", out_root)
baseline = dotnet_apps.run_app(dotnet, app)

box = dotnet_apps.Sandbox("clrie-misuse", "plugin")
try:
    box.copy(misuse, "libmisuse.so")
    config = box.write("misuse.config", CONFIG)
    run = dotnet_apps.run_app(dotnet, app, profiler_path=engine, extra_env={
        "MicrosoftInstrumentationEngine_ConfigPath64_Misuse": config})
finally:
    box.close()
checks.same_as_baseline("misusing plugin", run, baseline, stderr="contained")
expected = [
    "surplus Release of IProfilerManager ignored",
    "surplus Release of IInstruction ignored",
    "plugin 'Misuse' %s: ShouldInstrumentMethod failed for Program.Main (hr 0x80070005); "
    "taken as no" % MISUSE_GUID,
    ": IInstructionGraph::RemoveAll called after the method's instrumentation was over "
    "(E_UNEXPECTED)",
]
errors = [line for line in run.stderr.splitlines() if "LogError" in line]
for text in expected:
    checks.expect(any(text in line for line in errors), "an error line says: " + text,
                  seen=errors[:8])
print("\n".join(errors[:8]))

sys.exit(checks.finish("each misuse by a plugin is logged and the app runs unchanged"))
