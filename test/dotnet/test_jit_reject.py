"""Bodies the runtime's JIT rejects, in the real runtime: test/plugins/jit_reject.c makes two
methods of test/dotnet/jitreject reference types the runtime cannot load (an assembly that is
not there, a type its assembly lacks), which no check before the JIT can see. Each method is
called twice by the app, which prints what each call returned or threw.

Expected: the first call of each throws what the runtime throws for such a body, and the engine
writes an error line naming the method, the exception, and the plugin that changed it; the
second call runs the original IL (the engine gives it back when the runtime compiles the method
again) and prints what it prints without a profiler; methods the plugin did not touch and the
exit code are unchanged.

The same bodies given at a ReJIT (CLRIE_JIT_REJECT_REJIT: the plugin leaves the first JIT
alone and asks for the ReJIT of both methods when the module loads): the same first calls and
error lines, the engine reverts each method (the line says so), and the second round, once the
revert is made, prints what it prints without a profiler. The plugin's ReJIT request for a
MethodDef the module does not have gets the runtime's ReJITError, which the engine logs.

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


def run(at_rejit):
    box = dotnet_apps.Sandbox("clrie-jit-reject", "plugin")
    try:
        box.copy(plugin, "libjit-reject.so")
        config = box.write("jit-reject.config", CONFIG)
        env = {"MicrosoftInstrumentationEngine_ConfigPath64_JitReject": config,
               "MicrosoftInstrumentationEngine_LogLevel": "Errors"}
        if at_rejit:
            env["CLRIE_JIT_REJECT_REJIT"] = "1"
        return dotnet_apps.run_app(dotnet, app, profiler_path=engine, extra_env=env,
                                   args=["rejit"] if at_rejit else [])
    finally:
        box.close()


for at_rejit in (False, True):
    when = "at a ReJIT" if at_rejit else "at the first JIT"
    result = run(at_rejit)
    lines = result.stdout.splitlines()
    print(result.stdout + result.stderr)
    checks.expect(result.returncode == baseline.returncode, "%s: the exit code is the app's" % when,
                  seen=result.returncode)
    checks.expect(len(lines) == len(base_lines), "%s: the app printed as many lines" % when,
                  seen=lines)
    errors = [line for line in result.stderr.splitlines() if "LogError" in line]
    for method, exception in REJECTED.items():
        first = [line for line in lines[:3] if line.startswith(method + ": ")]
        checks.expect(first == [method + ": " + exception],
                      "%s: the first call of %s throws %s" % (when, method, exception),
                      seen=first)
        line = "Program.%s: the runtime's JIT rejected the instrumented body (%s); changed by " \
               "plugin 'JitReject' %s; %s" % (
                   method, exception, GUID,
                   "the ReJIT is reverted: the method runs its original code" if at_rejit
                   else "compiled again, it gets its original IL")
        checks.expect(any(e.endswith(line) for e in errors),
                      "%s: an error line says: %s" % (when, line), seen=errors)
    checks.expect(lines[3:] == base_lines[3:],
                  "%s: the second round runs the original IL and prints what it prints without "
                  "a profiler" % when, seen=lines[3:])
    checks.expect(lines[2:3] == base_lines[2:3],
                  "%s: the method the plugin left alone is unchanged" % when, seen=lines[2:3])
    expected_errors = len(REJECTED)
    if at_rejit:
        rejit_error = [e for e in errors if "method 0x06000FFF of module " in e and
                       "jitreject.dll: the runtime could not rejit it (ReJITError, hr 0x" in e]
        checks.expect(len(rejit_error) == 1,
                      "%s: the ReJITError of MethodDef 0x06000FFF is logged once" % when,
                      seen=errors)
        expected_errors += 1
    checks.expect(len(errors) == expected_errors, "%s: no other error line" % when, seen=errors)

sys.exit(checks.finish("each body the JIT rejects, at the first JIT or at a ReJIT, is reported "
                       "with its plugin, and the method runs its original code after"))
