"""A plugin that crashes takes the process down, but the log says which plugin and which call:
the test plugin test/plugins/crash_plugin.c crashes where CLRIE_TEST_CRASH_AT says, and each
run must die by the signal (the crash is real) and leave one line naming the plugin, its GUID
and the call, on stderr and in the log file. A control run, with the engine's handler in front
of the runtime's, has the runtime still turning real null dereferences in managed code
(test/dotnet/nullref) into NullReferenceExceptions, and integer divisions by zero and
int.MinValue / -1 (SIGFPE) into DivideByZeroExceptions and OverflowExceptions, which the app
catches, output unchanged.

Arguments: --engine ENGINE_SO --crash CRASH_PLUGIN_SO --apps-out DIR"""
import argparse
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

GUID = "{5C0A7B1E-3D2F-4E8A-9B61-C4A5D7E9F013}"
CONFIG = """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>Crash</Name>
    <Module>libcrash-plugin.so</Module>
    <ClassGuid>%s</ClassGuid>
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
""" % GUID
WHO = "plugin 'Crash' %s crashed (" % GUID

# CLRIE_TEST_CRASH_AT -> the signal, and what the line says after "crashed (".
MODES = [
    ("DllGetClassObject", signal.SIGSEGV, ["SIGSEGV at 0x0, pc 0x", " in its code) in DllGetClassObject"]),
    ("Initialize", signal.SIGSEGV, ["SIGSEGV at 0x0,", " in its code) in Initialize"]),
    ("OnModuleLoaded", signal.SIGSEGV, ["SIGSEGV at 0x0,", " in its code) in OnModuleLoaded"]),
    ("InstrumentMethod", signal.SIGSEGV, ["SIGSEGV at 0x0,", " in its code) in InstrumentMethod"]),
    ("strlen", signal.SIGSEGV, ["SIGSEGV at 0x0,", " outside its code) in OnModuleLoaded"]),
    ("abort", signal.SIGABRT, ["SIGABRT, pc 0x", " outside its code) in InstrumentMethod"]),
    ("thread", signal.SIGSEGV, ["SIGSEGV at 0x0,", " in its code) outside any call from the engine"]),
]

parser = argparse.ArgumentParser()
parser.add_argument("--engine", required=True)
parser.add_argument("--crash", required=True)
parser.add_argument("--apps-out", required=True)
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, files=("engine", "crash"), folders=("apps_out",))
app = dotnet_apps.build_app(dotnet, "nullref", args.apps_out)
baseline = dotnet_apps.run_app(dotnet, app)
checks.expect(baseline.returncode == 5 and "caught 300 NullReferenceExceptions" in baseline.stdout
              and "caught 200 DivideByZeroExceptions, 100 OverflowExceptions" in baseline.stdout,
              "without a profiler the app catches its 300 NullReferenceExceptions, 200 "
              "DivideByZeroExceptions and 100 OverflowExceptions", baseline)

box = dotnet_apps.Sandbox("clrie-crash", "plugin")
try:
    box.copy(args.crash, "libcrash-plugin.so")
    config = box.write("crash.config", CONFIG)

    def run(mode, extra=None):
        env = {"MicrosoftInstrumentationEngine_ConfigPath64_Crash": config,
               "CLRIE_TEST_CRASH_AT": mode,
               "DOTNET_DbgEnableMiniDump": "0"}
        env.update(extra or {})
        return dotnet_apps.run_app(dotnet, app, profiler_path=args.engine, extra_env=env)

    print("== control: no crash, the runtime's exceptions from processor faults intact",
          flush=True)
    control = run("")
    checks.same_as_baseline("control", control, baseline, stderr="equal")
    checks.expect(WHO not in control.stderr, "control: no crash line", control)

    for mode, sig, parts in MODES:
        print("== %s" % mode, flush=True)
        result = run(mode)
        lines = [line for line in result.stderr.splitlines() if WHO in line]
        checks.expect(result.returncode == -sig,
                      "%s: the process dies by %s (exit %d)" % (mode, sig.name, result.returncode),
                      result)
        checks.expect(len(lines) == 1, "%s: exactly one line names the plugin" % mode,
                      result)
        for part in parts:
            checks.expect(any(part in line for line in lines),
                          "%s: the line says %r" % (mode, part), seen=lines)
        checks.expect(all(line.startswith("LogError[") for line in lines),
                      "%s: the line is an error line of the log" % mode, seen=lines)
        if lines:
            print("   " + lines[0])

    print("== the line also goes to the log file", flush=True)
    log_path = box.path("engine.log")
    result = run("InstrumentMethod", {"MicrosoftInstrumentationEngine_FileLogPath": log_path})
    in_file = [line for line in dotnet_apps.read_lines(log_path) if WHO in line]
    checks.expect(len(in_file) == 1 and " in InstrumentMethod" in in_file[0],
                  "log file: one line naming the plugin and InstrumentMethod", seen=in_file)
    checks.expect(WHO in result.stderr, "log file: the line is on stderr too", result)
finally:
    box.close()

sys.exit(checks.finish("a crashing plugin is named with its call; managed null dereferences "
                       "and divisions by zero still become exceptions the app catches"))
