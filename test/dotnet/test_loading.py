"""What the engine and the proxy refuse to load, inside the real CoreCLR: each refusal leaves
the app exactly as it runs without a profiler and says why in one line.

Scenarios (each in its own temporary directory, files 0644 / modules 0755 unless said):
  a  a plugin whose Initialize adds itself again (AddInstrumentationMethod with its own
     module and ClassGuid, and SetupProfilingEnvironment with a config naming it): it is
     initialised once, both calls return 0x800700B7 and an error line says why
  b  a truncated copy of a plugin, and of the engine under the proxy: refused before dlopen
     (no SIGBUS), the app unchanged
  c  the trust rule: a plugin module in a world-writable folder that is not sticky, a raw
     profiler hook writable by others, an engine writable by others under the proxy: each
     refused with a line; with MicrosoftInstrumentationEngine_DisableCodeSignatureValidation=1
     each loads, silently, and at LogLevel Messages one message line says the check is off

Usage: test_loading.py --engine SO --proxy SO --recorder SO --raw-hook SO --self-adder SO
                       --apps-out DIR [--arch-folder Instrumentation64] [--only abc] [--keep]
                       [--verbose]
Exit: 0 all passed, 1 a check failed, 77 no dotnet on this machine."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

CONFIG_VAR = dotnet_apps.CONFIG_VAR
DISABLE = "MicrosoftInstrumentationEngine_DisableCodeSignatureValidation"
RECORDER = "{A1A1A1A1-1111-4222-8333-444455556666}"
SELF_ADDER = "{5E1FADD0-1111-4222-8333-444455556666}"
RAW_HOOK = "{E0E0E0E0-1111-4222-8333-444455556666}"
ALREADY_LOADED = "0x800700B7"
TRUST_OFF = DISABLE + "=1: the trust check is off"

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--engine", required=True, help="the built libInstrumentationEngine.so")
parser.add_argument("--proxy", required=True, help="the built profiler proxy")
parser.add_argument("--recorder", required=True, help="the event-recorder plugin")
parser.add_argument("--raw-hook", required=True, help="the raw-hook test profiler")
parser.add_argument("--self-adder", required=True, help="the plugin that adds itself again")
parser.add_argument("--apps-out", required=True, help="where the C# apps are built")
parser.add_argument("--arch-folder", default="Instrumentation64",
                    help="the engine's folder in an install (InstrumentationARM64 on arm64)")
parser.add_argument("--only", default="abc", help="the scenarios to run, e.g. 'ac'")
parser.add_argument("--keep", action="store_true", help="keep the temporary directories")
parser.add_argument("--verbose", action="store_true", help="print every run's stderr")
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(
    args, ("engine", "proxy", "recorder", "raw_hook", "self_adder"), folders=("apps_out",))

apps = dotnet_apps.Apps(dotnet, args.apps_out, verbose=args.verbose)


class Sandbox(dotnet_apps.Sandbox):
    def __init__(self, name):
        super().__init__("clrie-loading", name, keep=args.keep)
        self.events = self.path("events.txt")
        self.env = {"CLRIE_EVENT_RECORDER_FILE": self.events,
                    "CLRIE_EVENT_RECORDER_A1A1A1A1_TAG": "R"}

    def config(self, relative, name, module, guid, use=True):
        target = self.write(relative, (
            "<InstrumentationEngineConfiguration>\n"
            "  <InstrumentationMethod>\n"
            "    <Name>%s</Name>\n"
            "    <Module>%s</Module>\n"
            "    <ClassGuid>%s</ClassGuid>\n"
            "    <Priority>50</Priority>\n"
            "  </InstrumentationMethod>\n"
            "</InstrumentationEngineConfiguration>\n") % (name, module, guid))
        if use:
            self.env[CONFIG_VAR + relative.replace("/", "_").replace(".", "_")] = target
        return target

    def recorded(self):
        return [line for line in dotnet_apps.read_lines(self.events) if line.startswith("R ")]

    def truncated(self, source, relative):
        """A copy of source cut to 60% of its length, as an upgrade interrupted mid-write."""
        target = self.copy(source, relative)
        os.truncate(target, os.path.getsize(target) * 6 // 10)
        return target

    def install(self, engine_mode=0o755, truncated=False):
        """A staged install root: the proxy and one engine; returns the proxy's path."""
        proxy = self.copy(args.proxy, "root/Proxy/v1/libInstrumentationEngine.ProfilerProxy.so")
        engine = "root/1.0.0/%s/libInstrumentationEngine.so" % args.arch_folder
        if truncated:
            self.truncated(args.engine, engine)
        else:
            self.copy(args.engine, engine, mode=engine_mode)
        return proxy


def run(sb, profiler=None, extra_env=None):
    return apps.run("hello", profiler or args.engine, dict(sb.env, **(extra_env or {})), sb.name)


def expect_unchanged(result, what):
    checks.same_as_baseline(what, result, apps.baseline("hello"), stderr="contained")


def expect_stderr(result, needles, what):
    for needle in needles:
        checks.expect(needle in result.stderr, "%s: expected %r on stderr" % (what, needle),
                      result)


def expect_lines_containing(result, needle, count, what):
    lines = [line for line in result.stderr.splitlines() if needle in line]
    checks.expect(len(lines) == count, "%s: %d line(s) with %r" % (what, count, needle), result,
                  seen=lines)


def scenario_a():
    sb = Sandbox("a")
    what = "a (a plugin adds itself from its Initialize)"
    try:
        module = sb.copy(args.self_adder, "plugins/libself-adder.so")
        report = sb.path("self-adder.txt")
        # The config the plugin pushes is the one that loaded it: not listed in the variables
        # a second time, it names the same ClassGuid.
        again = sb.config("again.config", "SelfAdderFromConfig", module, SELF_ADDER, use=False)
        sb.config("self.config", "SelfAdder", module, SELF_ADDER)
        result = run(sb, extra_env={"CLRIE_SELF_ADDER_FILE": report,
                                    "CLRIE_SELF_ADDER_MODULE": module,
                                    "CLRIE_SELF_ADDER_GUID": SELF_ADDER,
                                    "CLRIE_SELF_ADDER_CONFIG": again})
        expect_unchanged(result, what)
        lines = dotnet_apps.read_lines(report)
        checks.expect(lines == ["initialize 1", "add hr=" + ALREADY_LOADED,
                                "setup hr=" + ALREADY_LOADED],
                      "%s: initialised once, both calls refused with %s" % (what, ALREADY_LOADED),
                      result, seen=lines)
        expect_lines_containing(result, "with the same ClassGuid is being loaded", 2, what)
        expect_stderr(result, ["'SelfAdderAgain' %s: refused" % SELF_ADDER,
                               "'SelfAdderFromConfig' %s: refused" % SELF_ADDER], what)
    finally:
        sb.close()


def scenario_b():
    sb = Sandbox("b1")
    what = "b (a truncated plugin)"
    try:
        sb.truncated(args.recorder, "plugins/libevent-recorder.so")
        sb.config("cut.config", "CutRecorder", "plugins/libevent-recorder.so", RECORDER)
        result = run(sb)
        expect_unchanged(result, what)
        expect_stderr(result, ["plugin 'CutRecorder' %s: cannot load" % RECORDER,
                               "not a complete ELF shared object for this machine: cut short"],
                      what)
        checks.expect(not sb.recorded(), "%s: no events" % what, seen=sb.recorded()[:3])
    finally:
        sb.close()

    sb = Sandbox("b2")
    what = "b (a truncated engine under the proxy)"
    try:
        proxy = sb.install(truncated=True)
        sb.copy(args.recorder, "plugins/libevent-recorder.so")
        sb.config("recorder.config", "Recorder", "plugins/libevent-recorder.so", RECORDER)
        result = run(sb, profiler=proxy)
        expect_unchanged(result, what)
        expect_stderr(result, ["clrie proxy: cannot load engine '",
                               "not a complete ELF shared object for this machine: cut short"],
                      what)
    finally:
        sb.close()


def trust_pair(name, what, prepare, refusal, loaded):
    """Runs the scenario prepare() sets up three times: checked (refused with a line naming
    it), with the check turned off (loads, and stderr says nothing of it: the check is turned
    off on purpose, as Microsoft's coverage collector does in every process), and turned off
    with LogLevel=Messages (one message line from each of engine and proxy says so)."""
    for disabled, level in ((False, None), (True, None), (True, "Messages")):
        sb = Sandbox(name)
        label = "%s%s" % (what, ", check off" if disabled else "")
        label += ", LogLevel %s" % level if level else ""
        try:
            profiler, env = prepare(sb)
            if disabled:
                env[DISABLE] = "1"
            if level:
                env["MicrosoftInstrumentationEngine_LogLevel"] = level
            result = run(sb, profiler=profiler, extra_env=env)
            expect_unchanged(result, label)
            if disabled:
                errors = [l for l in result.stderr.splitlines() if l.startswith("LogError[")]
                checks.expect(not any(r in l for r in refusal for l in errors),
                              "%s: not refused" % label, result)
                said = 0 if level is None else 1 if profiler is None else 2
                expect_lines_containing(result, TRUST_OFF, said, label)
                checks.expect(all(line.startswith("LogMessage[")
                                  for line in result.stderr.splitlines() if TRUST_OFF in line),
                              "%s: the line is a message, not an error" % label, result)
                loaded(sb, result, label)
            else:
                expect_stderr(result, refusal, label)
                expect_lines_containing(result, TRUST_OFF, 0, label)
        finally:
            sb.close()


def expect_recorded(sb, result, label):
    checks.expect(sb.recorded(), "%s: the recorder got events" % label, result)


def scenario_c():
    def open_folder(sb):
        module = sb.copy(args.recorder, "open/libevent-recorder.so")
        os.chmod(sb.path("open"), 0o777)
        sb.config("recorder.config", "OpenRecorder", module, RECORDER)
        return None, {}
    trust_pair("c1", "c (a plugin in a world-writable folder)", open_folder,
               ["/open/libevent-recorder.so'",
                "/open' is writable by group or others and not sticky"], expect_recorded)

    def open_hook(sb):
        hook = sb.copy(args.raw_hook, "hooks/libraw-hook.so", mode=0o757)
        raw = sb.path("raw.txt")
        return None, {"MicrosoftInstrumentationEngine_RawProfilerHook": RAW_HOOK,
                      "MicrosoftInstrumentationEngine_RawProfilerHookPath_" +
                      dotnet_apps.engine_arch_suffix(): hook,
                      "CLRIE_RAW_HOOK_FILE": raw}

    def hook_loaded(sb, result, label):
        raw = dotnet_apps.read_lines(sb.path("raw.txt"))
        checks.expect("raw Initialize" in raw, "%s: the raw hook initialised" % label, result,
                      raw[:3])
    trust_pair("c2", "c (a raw hook writable by others)", open_hook,
               ["raw profiler hook: cannot load", "the file is writable by group or others"],
               hook_loaded)

    def open_engine(sb):
        proxy = sb.install(engine_mode=0o757)
        sb.copy(args.recorder, "plugins/libevent-recorder.so")
        sb.config("recorder.config", "Recorder", "plugins/libevent-recorder.so", RECORDER)
        return proxy, {}
    trust_pair("c3", "c (an engine writable by others under the proxy)", open_engine,
               ["clrie proxy: cannot load engine '", "the file is writable by group or others"],
               expect_recorded)


SCENARIOS = [("a", "a plugin adding itself is loaded once", scenario_a),
             ("b", "truncated modules are refused before dlopen", scenario_b),
             ("c", "one trust rule for plugins, the raw hook and the engine", scenario_c)]

dotnet_apps.run_scenarios(checks, [(letter, "%s: %s" % (letter, title), scenario)
                                  for letter, title, scenario in SCENARIOS], args.only)

sys.exit(checks.finish("every refused module left the app unchanged and said why"))
