"""Bodies the runtime's JIT rejects, in the real runtime: test/plugins/jit_reject.c makes two
methods of test/dotnet/jitreject reference types the runtime cannot load (an assembly that is
not there, a type its assembly lacks), which no check before the JIT can see. Each method is
called twice by the app, which prints what each call returned or threw.

Expected: the first call of each throws what the runtime throws for such a body, and the engine
writes an error line naming the method, the exception, and the plugin that changed it; the
second call runs the original IL (the engine gives it back when the runtime compiles the method
again) and prints what it prints without a profiler; methods the plugin did not touch and the
exit code are unchanged.

Arguments: ENGINE_SO JIT_REJECT_SO APPS_BUILD_DIR"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

GUID = "{6D0B9E3A-1F47-4C2E-9A85-3B7C2E1D4F60}"
CONFIG = """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>JitReject</Name>
    <Module>libjit-reject.so</Module>
    <ClassGuid>%s</ClassGuid>
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
""" % GUID
REJECTED = {"NeedsMissingAssembly": "System.IO.FileNotFoundException",
            "NeedsMissingType": "System.TypeLoadException"}

engine, plugin, out_root = (os.path.abspath(a) for a in sys.argv[1:4])
dotnet = dotnet_apps.find_dotnet(os.environ.get("CLRIE_DOTNET", "dotnet"))
checks = dotnet_apps.Checks()
app = dotnet_apps.build_app(dotnet, "jitreject", out_root)
baseline = dotnet_apps.run_app(dotnet, app)
base_lines = baseline.stdout.splitlines()
checks.expect(baseline.returncode == 7 and len(base_lines) == 6 and
              all(": " in line and "Exception" not in line for line in base_lines),
              "without a profiler every call returns", seen=baseline.stdout)

box = dotnet_apps.Sandbox("clrie-jit-reject", "plugin")
try:
    box.copy(plugin, "libjit-reject.so")
    config = box.write("jit-reject.config", CONFIG)
    run = dotnet_apps.run_app(dotnet, app, profiler_path=engine, extra_env={
        "MicrosoftInstrumentationEngine_ConfigPath64_JitReject": config,
        "MicrosoftInstrumentationEngine_LogLevel": "Errors"})
finally:
    box.close()

lines = run.stdout.splitlines()
print(run.stdout + run.stderr)
checks.expect(run.returncode == baseline.returncode, "the exit code is the app's",
              seen=run.returncode)
checks.expect(len(lines) == len(base_lines), "the app printed as many lines", seen=lines)
errors = [line for line in run.stderr.splitlines() if "LogError" in line]
for method, exception in REJECTED.items():
    first = [line for line in lines[:3] if line.startswith(method + ": ")]
    checks.expect(first == [method + ": " + exception],
                  "the first call of %s throws %s" % (method, exception), seen=first)
    line = "Program.%s: the runtime's JIT rejected the instrumented body (%s); changed by " \
           "plugin 'JitReject' %s; compiled again, it gets its original IL" % (
               method, exception, GUID)
    checks.expect(any(e.endswith(line) for e in errors), "an error line says: " + line,
                  seen=errors)
checks.expect(lines[3:] == base_lines[3:],
              "the second round runs the original IL and prints what it prints without a "
              "profiler", seen=lines[3:])
checks.expect(lines[2] == base_lines[2], "the method the plugin left alone is unchanged",
              seen=lines[2:3])
checks.expect(len(errors) == len(REJECTED), "no other error line", seen=errors)

sys.exit(checks.finish("each body the JIT rejects is reported with its plugin, and the "
                       "method runs its original IL when compiled again"))
