"""Which plugin events reach which plugins, in the real runtime: the delivery table of
docs/plugins.md. Two instances of test/plugins/delivery_probe.c, both loaded: `asks` sets a mask
with every family's bit (app domain, assembly and module loads, JIT, exceptions, ReJIT); `silent`
never calls SetEventMask. Each counts the events it receives and writes the counts at
OnShutdown.

  the default families (app domain, assembly and module loads and unloads, the instrumentation
  pipeline at the first JIT and at a ReJIT, JitStarted/JitComplete, AllowInlineSite, OnShutdown)
  reach both, the load events exactly as often;
  exception events reach `asks` only.

Apps: events (loads and unloads a collectible assembly), ilshapes (throws and catches), compose
(run as "compose plugins", which calls Program.Value for a few seconds: `asks` requests its
ReJIT through IModuleInfo::RequestRejit).

Arguments: ENGINE_SO PROBE_SO APPS_BUILD_DIR"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

ASKS = "{D1E1A001-5A3B-4C2D-8E9F-0A1B2C3D4E5F}"
SILENT = "{D1E1A002-5A3B-4C2D-8E9F-0A1B2C3D4E5F}"
# APPDOMAIN_LOADS | ASSEMBLY_LOADS | MODULE_LOADS | JIT_COMPILATION | EXCEPTIONS | ENABLE_REJIT
ASKS_MASK = "4007C"
CONFIG = """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>Asks</Name>
    <Description>counts events; asks for every family</Description>
    <Module>libdelivery-probe.so</Module>
    <ClassGuid>%s</ClassGuid>
    <Priority>10</Priority>
  </InstrumentationMethod>
  <InstrumentationMethod>
    <Name>Silent</Name>
    <Description>counts events; sets no event mask</Description>
    <Module>libdelivery-probe.so</Module>
    <ClassGuid>%s</ClassGuid>
    <Priority>20</Priority>
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
""" % (ASKS, SILENT)

LOADS = ("OnAppDomainCreated", "OnAssemblyLoaded", "OnModuleLoaded")
DEFAULT_EVERY_RUN = LOADS + ("ShouldInstrumentMethod", "JitStarted", "JitComplete",
                             "AllowInlineSite", "OnShutdown")
EXCEPTIONS = ("ExceptionThrown", "ExceptionSearchFunctionEnter", "ExceptionSearchFunctionLeave",
              "ExceptionSearchFilterEnter", "ExceptionSearchFilterLeave",
              "ExceptionSearchCatcherFound", "ExceptionUnwindFunctionEnter",
              "ExceptionUnwindFunctionLeave", "ExceptionUnwindFinallyEnter",
              "ExceptionUnwindFinallyLeave", "ExceptionCatcherEnter", "ExceptionCatcherLeave")

engine, probe, out_root = (os.path.abspath(a) for a in sys.argv[1:4])
dotnet = dotnet_apps.find_dotnet(os.environ.get("CLRIE_DOTNET", "dotnet"))
checks = dotnet_apps.Checks()
suffix = dotnet_apps.engine_arch_suffix()


def run(name, args=(), rejit=None):
    """Runs the app with both probes; returns the run and {tag: {event: count}}."""
    app = dotnet_apps.build_app(dotnet, name, out_root)
    box = dotnet_apps.Sandbox("clrie-delivery", name)
    try:
        box.copy(probe, "libdelivery-probe.so")
        config = box.write("probes.config", CONFIG)
        counts_file = box.path("counts.txt")
        env = {"MicrosoftInstrumentationEngine_ConfigPath%s_Delivery" % suffix: config,
               "CLRIE_DELIVERY_PROBE_FILE": counts_file,
               "CLRIE_DELIVERY_PROBE_D1E1A001_TAG": "asks",
               "CLRIE_DELIVERY_PROBE_D1E1A001_MASK": ASKS_MASK,
               "CLRIE_DELIVERY_PROBE_D1E1A002_TAG": "silent"}
        if rejit:
            env["CLRIE_DELIVERY_PROBE_D1E1A001_REJIT"] = rejit
        result = dotnet_apps.run_app(dotnet, app, profiler_path=engine, args=args,
                                     extra_env=env)
        counts = {}
        for line in dotnet_apps.read_lines(counts_file):
            tag, event, number = line.split(" ")
            counts.setdefault(tag, {})[event] = int(number)
    finally:
        box.close()
    for tag in sorted(counts):
        print("%s %s: %s" % (name, tag, " ".join("%s=%d" % (e, n)
                                                 for e, n in counts[tag].items() if n)))
    baseline = dotnet_apps.run_app(dotnet, app, args=args)
    checks.expect(result.returncode == baseline.returncode and result.stdout == baseline.stdout,
                  "%s: the app runs as without a profiler" % name, result)
    checks.expect(set(counts) == {"asks", "silent"}, "%s: both probes wrote their counts" % name,
                  result, counts)
    return result, counts


def reaches_both(counts, what, events, same=()):
    asks, silent = counts.get("asks", {}), counts.get("silent", {})
    for event in events:
        checks.expect(silent.get(event, 0) > 0 and asks.get(event, 0) > 0,
                      "%s: %s reaches both plugins, also the one that set no mask" % (
                          what, event),
                      seen={"asks": asks.get(event), "silent": silent.get(event)})
    for event in same:
        checks.expect(silent.get(event) == asks.get(event),
                      "%s: %s reaches both plugins equally often" % (what, event),
                      seen={"asks": asks.get(event), "silent": silent.get(event)})


events_lib = dotnet_apps.build_app(dotnet, "eventslib", out_root)
result, counts = run("events", args=(events_lib,))
checks.expect("eventslib unloaded" in result.stdout, "events: the runtime unloaded eventslib",
              result)
reaches_both(counts, "events", DEFAULT_EVERY_RUN + ("OnAssemblyUnloaded", "OnModuleUnloaded"),
             same=LOADS + ("OnAssemblyUnloaded", "OnModuleUnloaded"))

result, counts = run("ilshapes")
reaches_both(counts, "ilshapes", DEFAULT_EVERY_RUN, same=LOADS)
checks.expect(counts.get("asks", {}).get("ExceptionThrown", 0) > 0 and
              counts.get("asks", {}).get("ExceptionCatcherEnter", 0) > 0,
              "ilshapes: exception events reach the plugin that asked for them",
              seen=counts.get("asks"))
silent_exceptions = {e: n for e, n in counts.get("silent", {}).items() if e in EXCEPTIONS and n}
checks.expect(not silent_exceptions,
              "ilshapes: no exception event reaches the plugin that did not ask", seen=silent_exceptions)

result, counts = run("compose", args=("plugins",), rejit="Program.Value")
reaches_both(counts, "compose", ("ShouldInstrumentMethod(rejit)",))

sys.exit(checks.finish("every event family reaches the plugins the delivery table names"))
