"""The engine inside the real CoreCLR, end to end: C# apps run with
libInstrumentationEngine.so as their profiler, loading event-recorder plugin instances from
config files, and must run exactly as they do without a profiler.

Scenarios (each in its own temporary directory, files 0644 / modules 0755):
  a  one plugin, engine loaded directly: app unchanged; load events in a sane order
  b  the same through the proxy of a staged install tree
  c  two instances of one module, priorities 10 and 5: the lower number gets every event
     first; only the instance that asked for exceptions gets exception events
  d  failures, each leaving the app unchanged and naming the reason on stderr: missing
     module, wrong ClassGuid, failing Initialize, a module that is not a shared object,
     a malformed config file next to a valid one (whose plugin still loads)
  e  a raw profiler hook from the environment, alone and next to a plugin
  f  no config at all: the engine says so and the app is unchanged
  g  an assembly loaded into a collectible context and unloaded: load and unload events
  h  a raw hook asking for module loads and threads only, beside a plugin asking for exceptions:
     the hook reads back its own mask and hears nothing else (no assembly, app domain, JIT or
     exception callbacks, though the runtime sends them for the plugin and the engine), and
     the plugin still gets its events

Usage: test_engine.py --engine SO --proxy SO --recorder SO --raw-hook SO --not-a-plugin SO
                      --apps-out DIR [--arch-folder Instrumentation64] [--only aceh] [--keep] [--verbose]
Exit: 0 all passed, 1 a check failed, 77 no dotnet on this machine."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

CONFIG_VAR = dotnet_apps.CONFIG_VAR
RECORDER_A = "{A0A0A0A0-1111-4222-8333-444455556666}"
RECORDER_B = "{B0B0B0B0-1111-4222-8333-444455556666}"
RECORDER_GOOD = "{C0C0C0C0-1111-4222-8333-444455556666}"
RECORDER_FAILING = "{F0F0F0F0-1111-4222-8333-444455556666}"
NOT_A_PLUGIN = "{D0D0D0D0-1111-4222-8333-444455556666}"
MISSING = "{90909090-1111-4222-8333-444455556666}"
RAW_HOOK = "{E0E0E0E0-1111-4222-8333-444455556666}"

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--engine", required=True, help="the built libInstrumentationEngine.so")
parser.add_argument("--proxy", required=True, help="the built profiler proxy")
parser.add_argument("--recorder", required=True, help="the event-recorder plugin")
parser.add_argument("--raw-hook", required=True, help="the raw-hook test profiler")
parser.add_argument("--not-a-plugin", required=True, help="a module serving no class")
parser.add_argument("--apps-out", required=True, help="where the C# apps are built")
parser.add_argument("--arch-folder", default="Instrumentation64",
                    help="the engine's folder in an install (InstrumentationARM64 on arm64)")
parser.add_argument("--only", default="abcdefgh", help="the scenarios to run, e.g. 'ac'")
parser.add_argument("--keep", action="store_true", help="keep the temporary directories")
parser.add_argument("--verbose", action="store_true", help="print every run's stderr")
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(
    args, ("engine", "proxy", "recorder", "raw_hook", "not_a_plugin"), folders=("apps_out",))


# ---- sandboxes: config files, copied modules, the recorder's output --------------------------

def data1(guid):
    return guid.strip("{}").split("-")[0].upper()


class Sandbox(dotnet_apps.Sandbox):
    """A temporary directory holding one scenario's files and the recorder's output."""

    def __init__(self, name):
        super().__init__("clrie-engine", name, keep=args.keep)
        self.events = self.path("events.txt")
        self.env = {"CLRIE_EVENT_RECORDER_FILE": self.events}
        self.config_count = 0

    def config(self, relative, methods):
        """Writes a CLRIE config file listing methods (dicts: name, module, guid, priority)
        and points a MicrosoftInstrumentationEngine_ConfigPath64_* variable at it."""
        parts = ["<InstrumentationEngineConfiguration>"]
        for m in methods:
            parts.append(
                "  <InstrumentationMethod>\n"
                "    <Name>%s</Name>\n"
                "    <Description>%s</Description>\n"
                "    <Module>%s</Module>\n"
                "    <ClassGuid>%s</ClassGuid>\n"
                "    <Priority>%d</Priority>\n"
                "  </InstrumentationMethod>" % (
                    m["name"], m.get("description", "clrie test plugin " + m["name"]),
                    m["module"], m["guid"], m.get("priority", 50)))
        parts.append("</InstrumentationEngineConfiguration>\n")
        target = self.write(relative, "\n".join(parts))
        self.use_config(target)
        return target

    def use_config(self, path):
        self.config_count += 1
        self.env["%sTest%d" % (CONFIG_VAR, self.config_count)] = path

    def recorder(self, guid, tag, **switches):
        """Settings of one event-recorder instance: its tag and switches (EXCEPTIONS=1...)."""
        self.env["CLRIE_EVENT_RECORDER_%s_TAG" % data1(guid)] = tag
        for name, value in switches.items():
            self.env["CLRIE_EVENT_RECORDER_%s_%s" % (data1(guid), name)] = value

    def events_of(self, tag):
        """The recorder's lines for one tag, as (event, name) pairs."""
        out = []
        for line in dotnet_apps.read_lines(self.events):
            fields = line.split(" ", 2)
            if fields[0] == tag and len(fields) >= 2:
                out.append((fields[1], fields[2] if len(fields) > 2 else ""))
        return out


# ---- the apps and their unprofiled runs ---------------------------------------------------

apps = dotnet_apps.Apps(dotnet, args.apps_out, verbose=args.verbose,
                        app_args=lambda name: [apps.app("eventslib")] if name == "events" else [])
app = apps.app


def run(sandbox, name, profiler=None, extra_env=None):
    return apps.run(name, profiler or args.engine, dict(sandbox.env, **(extra_env or {})),
                    sandbox.name)


def expect_unchanged(name, result, what):
    """The app's stdout and exit code are those of the run without a profiler, and its own
    stderr line still arrives."""
    checks.same_as_baseline(what, result, apps.baseline(name), stderr="contained")


def expect_stderr(result, needles, what):
    for needle in needles:
        checks.expect(needle in result.stderr,
                      "%s: expected %r in the engine's stderr" % (what, needle), result)


# ---- matching recorded events -------------------------------------------------------------

def module_matches(name, module_file):
    """Module names may come as a file name or a path, with or without '.dll'."""
    base = os.path.basename(name)
    return base == module_file or base == os.path.splitext(module_file)[0]


def first_index(events, event, name=None, module=None):
    for i, (e, n) in enumerate(events):
        if e == event and (name is None or n == name) and (module is None or
                                                            module_matches(n, module)):
            return i
    return -1


def expect_load_events(events, app_name, what):
    """What one plugin instance must see of an app's start and end."""
    if not checks.expect(events, "%s: the plugin recorded events (is it loaded?)" % what):
        return
    domain = first_index(events, "OnAppDomainCreated")
    corelib = first_index(events, "OnAssemblyLoaded", "System.Private.CoreLib")
    own = first_index(events, "OnAssemblyLoaded", app_name)
    checks.expect(domain >= 0, "%s: OnAppDomainCreated recorded" % what, seen=events)
    checks.expect(corelib >= 0, "%s: OnAssemblyLoaded System.Private.CoreLib recorded" % what,
                  seen=events)
    checks.expect(own >= 0, "%s: OnAssemblyLoaded %s recorded" % (what, app_name), seen=events)
    checks.expect(0 <= corelib < own,
                  "%s: System.Private.CoreLib is loaded before %s" % (what, app_name),
                  seen=events)
    # CoreCLR itself loads System.Private.CoreLib before it reports the default domain's
    # creation (a plain profiler sees ModuleLoadFinished/AssemblyLoadFinished of CoreLib before
    # AppDomainCreationFinished), so only the app's own assembly must follow the domain.
    checks.expect(0 <= domain < own,
                  "%s: OnAppDomainCreated comes before OnAssemblyLoaded %s" % (what, app_name),
                  seen=events)
    checks.expect(first_index(events, "OnModuleLoaded", module="System.Private.CoreLib.dll") >= 0,
                  "%s: OnModuleLoaded System.Private.CoreLib.dll recorded" % what, seen=events)
    checks.expect(first_index(events, "OnModuleLoaded", module=app_name + ".dll") >= 0,
                  "%s: OnModuleLoaded %s.dll recorded" % (what, app_name), seen=events)
    # At Shutdown the engine releases its plugins, as CLRIE does (the runtime itself never
    # releases the engine): the recorder's last Release comes right after OnShutdown.
    shutdowns = [i for i, (e, _) in enumerate(events) if e == "OnShutdown"]
    releases = [i for i, (e, _) in enumerate(events) if e == "Released"]
    checks.expect(shutdowns == [len(events) - 2] and releases == [len(events) - 1],
                  "%s: exactly one OnShutdown, then the plugin released, the last events" % what,
                  seen=events[-5:])


def recorder_method(sandbox, guid, tag, name, priority=50, module=None, **switches):
    """A config entry for an event-recorder instance (module: copied into the sandbox)."""
    if module is None:
        module = "plugins/libevent-recorder.so"
        if not os.path.exists(sandbox.path(module)):
            sandbox.copy(args.recorder, module)
    sandbox.recorder(guid, tag, **switches)
    return {"name": name, "module": module, "guid": guid, "priority": priority}


# ---- scenarios ---------------------------------------------------------------------------

def scenario_a():
    sb = Sandbox("a")
    try:
        sb.config("recorder.config", [recorder_method(sb, RECORDER_A, "A", "Recorder")])
        result = run(sb, "hello")
        expect_unchanged("hello", result, "a (engine direct)")
        expect_load_events(sb.events_of("A"), "hello", "a (engine direct)")
    finally:
        sb.close()


def scenario_b():
    sb = Sandbox("b")
    try:
        proxy = sb.copy(args.proxy, "root/Proxy/v1/libInstrumentationEngine.ProfilerProxy.so")
        sb.copy(args.engine, "root/1.0.0/%s/libInstrumentationEngine.so" % args.arch_folder)
        module = sb.copy(args.recorder, "plugins/libevent-recorder.so")  # absolute Module
        sb.config("recorder.config",
                  [recorder_method(sb, RECORDER_A, "A", "Recorder", module=module)])
        result = run(sb, "hello", profiler=proxy)
        expect_unchanged("hello", result, "b (through the proxy)")
        checks.expect("no eligible engine" not in result.stderr,
                      "b (through the proxy): the proxy found the staged engine", result)
        expect_load_events(sb.events_of("A"), "hello", "b (through the proxy)")
    finally:
        sb.close()


def scenario_c():
    sb = Sandbox("c")
    what = "c (two instances, priorities 10 and 5)"
    try:
        module = sb.copy(args.recorder, "plugins/libevent-recorder.so")
        sb.config("recorders.config", [
            recorder_method(sb, RECORDER_A, "A", "RecorderA", priority=10, module=module,
                            EXCEPTIONS="1"),
            recorder_method(sb, RECORDER_B, "B", "RecorderB", priority=5, module=module),
        ])
        result = run(sb, "ilshapes")
        expect_unchanged("ilshapes", result, what)
        lines = dotnet_apps.read_lines(sb.events)
        a_events = sb.events_of("A")
        b_events = sb.events_of("B")
        expect_load_events(b_events, "ilshapes", what + ", B")
        exception_events = ("ExceptionThrown", "ExceptionCatcherEnter")
        a_plain = [e for e in a_events if e[0] not in exception_events]
        checks.expect(sorted(a_plain) == sorted(b_events),
                      "%s: A and B receive the same load events" % what,
                      seen={"A": a_plain, "B": b_events})
        # The k-th occurrence of each event line of B precedes the k-th of the same line of A.
        positions = {}
        for index, line in enumerate(lines):
            tag, _, rest = line.partition(" ")
            positions.setdefault((tag, rest), []).append(index)
        out_of_order = []
        for (tag, rest), b_positions in positions.items():
            if tag != "B":
                continue
            a_positions = positions.get(("A", rest), [])
            for k, b_index in enumerate(b_positions):
                if k < len(a_positions) and a_positions[k] < b_index:
                    out_of_order.append(rest)
        checks.expect(not out_of_order,
                      "%s: B (priority 5) gets each event before A (priority 10)" % what,
                      seen=out_of_order[:10])
        thrown = [n for e, n in a_events if e == "ExceptionThrown"]
        caught = [n for e, n in a_events if e == "ExceptionCatcherEnter"]
        checks.expect(len(thrown) >= 3,
                      "%s: A (EXCEPTIONS=1) records ilshapes' thrown exceptions" % what,
                      seen=thrown)
        print("   A recorded %d ExceptionThrown, %d ExceptionCatcherEnter" % (
            len(thrown), len(caught)))
        # ExceptionCatcherEnter carries an IMethodInfo for the catching method: its full name
        # shows the engine built it from the runtime's FunctionID.
        for catcher in ("Exceptions.Run", "Exceptions.Nested", "Exceptions.Filter"):
            checks.expect(catcher in caught,
                          "%s: A's ExceptionCatcherEnter names the catching method %s" % (
                              what, catcher), seen=sorted(set(caught)))
        checks.expect(any(n in ("System.ArgumentException", "System.InvalidOperationException",
                                "System.FormatException") for n in thrown),
                      "%s: the thrown class names come through the engine's "
                      "ICorProfilerInfo (GetClassFromObject, GetClassIDInfo, "
                      "GetModuleMetaData)" % what, seen=thrown)
        b_exceptions = [e for e in b_events if e[0] in exception_events]
        checks.expect(not b_exceptions,
                      "%s: B did not ask for exceptions and gets none" % what,
                      seen=b_exceptions[:5])
    finally:
        sb.close()


def scenario_d():
    # d1: the Module named by a config file does not exist.
    sb = Sandbox("d1")
    try:
        config = sb.config("missing.config", [{"name": "Missing", "module":
                                               "plugins/does-not-exist.so", "guid": MISSING}])
        result = run(sb, "hello")
        expect_unchanged("hello", result, "d1 (missing module)")
        expect_stderr(result, [config, "error:"], "d1 (missing module)")
    finally:
        sb.close()

    # d2: a real module that serves no class for the ClassGuid.
    sb = Sandbox("d2")
    try:
        sb.copy(args.not_a_plugin, "plugins/libnot-a-plugin.so")
        sb.config("wrong-guid.config", [{"name": "NotAPlugin", "module":
                                         "plugins/libnot-a-plugin.so", "guid": NOT_A_PLUGIN}])
        result = run(sb, "hello")
        expect_unchanged("hello", result, "d2 (wrong ClassGuid)")
        expect_stderr(result, ["NotAPlugin", "DllGetClassObject failed", "0x80040111"],
                      "d2 (wrong ClassGuid)")
    finally:
        sb.close()

    # d3: the plugin's Initialize fails.
    sb = Sandbox("d3")
    try:
        sb.config("failing.config", [recorder_method(sb, RECORDER_FAILING, "F",
                                                     "FailingRecorder", FAIL_INITIALIZE="1")])
        result = run(sb, "hello")
        expect_unchanged("hello", result, "d3 (Initialize fails)")
        expect_stderr(result, ["FailingRecorder", "Initialize failed"], "d3 (Initialize fails)")
        events = sb.events_of("F")
        checks.expect(not events, "d3 (Initialize fails): the failed plugin gets no events",
                      seen=events[:5])
    finally:
        sb.close()

    # d4: the module is not a shared object.
    sb = Sandbox("d4")
    try:
        sb.write("plugins/libfoo.so", "this is a text file, not an ELF shared object\n",
                 mode=0o755)
        sb.config("text.config", [{"name": "TextFile", "module": "plugins/libfoo.so",
                                   "guid": MISSING}])
        result = run(sb, "hello")
        expect_unchanged("hello", result, "d4 (not a shared object)")
        expect_stderr(result, ["cannot load", "libfoo.so"], "d4 (not a shared object)")
    finally:
        sb.close()

    # d5: a malformed config file next to a valid one: the valid one's plugin loads.
    sb = Sandbox("d5")
    try:
        broken = sb.write("broken.config",
                          "<InstrumentationEngineConfiguration>\n"
                          "  <InstrumentationMethod>\n"
                          "    <Name>Broken</Name>\n"
                          "    <Description>unterminated</Description\n"
                          "</InstrumentationEngineConfiguration>\n")
        sb.use_config(broken)
        sb.config("good.config", [recorder_method(sb, RECORDER_GOOD, "G", "GoodRecorder")])
        result = run(sb, "hello")
        expect_unchanged("hello", result, "d5 (malformed config)")
        expect_stderr(result, [broken, "error:"], "d5 (malformed config)")
        events = sb.events_of("G")
        checks.expect(("OnShutdown", "") in events,
                      "d5 (malformed config): the valid config's plugin still loads and "
                      "records", seen=dotnet_apps.read_lines(sb.events)[:10])
    finally:
        sb.close()


def scenario_e():
    suffix = dotnet_apps.engine_arch_suffix()
    for with_plugin in (False, True):
        what = "e (raw hook%s)" % (" next to a plugin" if with_plugin else "")
        sb = Sandbox("e")
        try:
            hook = sb.copy(args.raw_hook, "hooks/libraw-hook.so")
            raw_file = sb.path("raw.txt")
            env = {"MicrosoftInstrumentationEngine_RawProfilerHook": RAW_HOOK,
                   "MicrosoftInstrumentationEngine_RawProfilerHookPath_" + suffix: hook,
                   "CLRIE_RAW_HOOK_FILE": raw_file}
            if with_plugin:
                sb.config("recorder.config", [recorder_method(sb, RECORDER_A, "A", "Recorder")])
            result = run(sb, "hello", extra_env=env)
            expect_unchanged("hello", result, what)
            raw = dotnet_apps.read_lines(raw_file)
            checks.expect("raw Initialize" in raw, "%s: raw Initialize" % what, result, raw)
            checks.expect(any(line.startswith("raw ModuleLoadFinished") for line in raw),
                          "%s: at least one raw ModuleLoadFinished" % what, seen=raw)
            checks.expect(raw[-1:] == ["raw Shutdown"], "%s: raw Shutdown, last" % what,
                          seen=raw[-5:])
            if with_plugin:
                expect_load_events(sb.events_of("A"), "hello", what)
        finally:
            sb.close()


def scenario_f():
    sb = Sandbox("f")
    try:
        result = run(sb, "hello", extra_env={"MicrosoftInstrumentationEngine_LogLevel":
                                             "Messages"})
        expect_unchanged("hello", result, "f (no config)")
        expect_stderr(result, ["no instrumentation method"], "f (no config)")
    finally:
        sb.close()


def scenario_g():
    sb = Sandbox("g")
    what = "g (collectible assembly)"
    try:
        sb.config("recorder.config", [recorder_method(sb, RECORDER_A, "A", "Recorder")])
        result = run(sb, "events")
        expect_unchanged("events", result, what)
        checks.expect("eventslib unloaded" in result.stdout,
                      "%s: the runtime unloaded eventslib" % what, result)
        events = sb.events_of("A")
        loaded = first_index(events, "OnAssemblyLoaded", "eventslib")
        module_loaded = first_index(events, "OnModuleLoaded", module="eventslib.dll")
        module_unloaded = first_index(events, "OnModuleUnloaded", module="eventslib.dll")
        unloaded = first_index(events, "OnAssemblyUnloaded", "eventslib")
        checks.expect(loaded >= 0, "%s: OnAssemblyLoaded eventslib" % what, seen=events)
        checks.expect(module_loaded >= 0, "%s: OnModuleLoaded eventslib.dll" % what,
                      seen=events)
        checks.expect(module_unloaded > module_loaded >= 0,
                      "%s: OnModuleUnloaded eventslib.dll after its load" % what, seen=events)
        checks.expect(unloaded > loaded >= 0,
                      "%s: OnAssemblyUnloaded eventslib after its load" % what, seen=events)
        shutdown = first_index(events, "OnShutdown")
        checks.expect(shutdown > max(module_unloaded, unloaded),
                      "%s: the unloads come before OnShutdown" % what, seen=events[-6:])
    finally:
        sb.close()


def scenario_h():
    suffix = dotnet_apps.engine_arch_suffix()
    what = "h (a raw hook with a narrow mask beside a plugin)"
    sb = Sandbox("h")
    try:
        hook = sb.copy(args.raw_hook, "hooks/libraw-hook.so")
        raw_file = sb.path("raw.txt")
        sb.config("recorder.config", [recorder_method(sb, RECORDER_A, "A", "Recorder",
                                                      EXCEPTIONS="1")])
        result = run(sb, "ilshapes", extra_env={
            "MicrosoftInstrumentationEngine_RawProfilerHook": RAW_HOOK,
            "MicrosoftInstrumentationEngine_RawProfilerHookPath_" + suffix: hook,
            "CLRIE_RAW_HOOK_FILE": raw_file,
            "CLRIE_RAW_HOOK_MASK": "204"})  # COR_PRF_MONITOR_MODULE_LOADS | _THREADS
        expect_unchanged("ilshapes", result, what)
        raw = dotnet_apps.read_lines(raw_file)
        heard = sorted({line.split(" ")[1] for line in raw if " " in line})
        checks.expect("raw GetEventMask 0x00000204" in raw,
                      "%s: the hook reads back the mask it set" % what, result, raw[:5])
        for event in ("ModuleLoadFinished", "ThreadCreated"):
            checks.expect(event in heard, "%s: the hook hears %s, which it asked for" % (
                what, event), seen=heard)
        for event in ("AppDomainCreationFinished", "AssemblyLoadFinished",
                      "JITCompilationStarted", "ExceptionThrown"):
            checks.expect(event not in heard, "%s: the hook does not hear %s, which only the "
                          "plugin and the engine asked for" % (what, event), seen=heard)
        events = sb.events_of("A")
        expect_load_events(events, "ilshapes", what + ", the plugin")
        checks.expect(first_index(events, "ExceptionThrown") >= 0,
                      "%s: the plugin still gets the exceptions it asked for" % what,
                      seen=events[-10:])
    finally:
        sb.close()


SCENARIOS = [("a", "one plugin, engine loaded directly", scenario_a),
             ("b", "one plugin through the proxy of a staged tree", scenario_b),
             ("c", "two instances, priority order, exception subscription", scenario_c),
             ("d", "failures are skipped with their reason on stderr", scenario_d),
             ("e", "raw profiler hook from the environment", scenario_e),
             ("f", "no configuration at all", scenario_f),
             ("g", "collectible assembly load and unload", scenario_g),
             ("h", "a raw hook hears only what its own mask asks for", scenario_h)]

dotnet_apps.run_scenarios(checks, [(letter, "%s: %s" % (letter, title), scenario)
                                  for letter, title, scenario in SCENARIOS], args.only)

sys.exit(checks.finish("the engine ran every app unchanged and delivered the plugins' events"))
