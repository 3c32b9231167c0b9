"""The Windows x64 .NET runtime under Wine, bare and with instrumentation engines attached:

  bare     test/dotnet/hello, published self-contained for win-x64, prints what it prints
           on Linux (its runtime's version, a sum, a line on stderr) and exits 3;
  <engine> with no plugin configured, the engine loads (it writes its log) and the app's
           stdout, stderr and exit code are exactly as bare;
  <engine> with test/wine/wine_probe.dll, a plugin built with MinGW-w64 from clrie's ABI
           headers: the app runs as bare, and the probe records its Initialize, the app's
           module loading, the app's methods the engine asked about, its counts and its
           shutdown; the engine logs no error.

The engines are Microsoft's CLRIE for Windows x64 (from Microsoft.CodeCoverage, restored
into the work folder), clrie's own Windows engine when CLRIE_TEST_WINDOWS_BUILD names a MinGW-w64
x64 build of clrie (test/run passes its own), and each --engine NAME=PATH. Under
each engine but CLRIE the probe must record exactly what it recorded under CLRIE.

Needs Linux x86_64 with wine64, dotnet, and the probe (meson builds it when it finds
x86_64-w64-mingw32-gcc); without them the test is skipped (exit 77) and says why, and under
CI=true it fails instead. Prints how long making the Wine prefix, publishing and each run
took."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wine_apps  # noqa: E402
from wine_apps import clrie_package, dotnet_apps, lines, read  # noqa: E402

APP = os.path.join(dotnet_apps.APPS, "hello", "hello.csproj")
PROBE_GUID = "{6B1E5C0A-3F7D-4C2B-9E41-8A2D5F0C7B13}"
PROBE_CONFIG = """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>WineProbe</Name>
    <Description>clrie's probe for the Windows runtime under Wine</Description>
    <Module>wine_probe.dll</Module>
    <ClassGuid>%s</ClassGuid>
    <Priority>50</Priority>
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
""" % PROBE_GUID
# Methods of hello.dll the JIT compiles, so that every engine must ask the probe about them.
APP_METHODS = ("Program.Main", "Program+<>c.<Main>b__0_0")

parser = wine_apps.argument_parser(__doc__.splitlines()[0])
parser.add_argument("--probe", default="", help="wine_probe.dll (none: the test is skipped)")
parser.add_argument("--engine", action="append", default=[], metavar="NAME=PATH",
                    help="another engine DLL to run the app under (repeatable)")
args = parser.parse_args()
args.work = os.path.abspath(args.work)

wine64, dotnet = wine_apps.wine64_and_dotnet()
if not args.probe:
    wine_apps.skip("no MinGW-w64 x86_64 compiler (x86_64-w64-mingw32-gcc) when Meson configured "
                   "the build: the probe plugin was not built")
args.probe = os.path.abspath(args.probe)
checks = dotnet_apps.Checks()
if not checks.expect(os.path.isfile(args.probe), "--probe %s: no such file" % args.probe):
    sys.exit(checks.finish(""))

prefix = wine_apps.Prefix(wine64, args.work).ensure()
print("timing: Wine prefix %s" % (
    "made (wineboot -i) in %.1f s" % prefix.init_seconds if prefix.init_seconds is not None
    else "reused"), prefix.path, flush=True)
app, seconds = wine_apps.publish(dotnet, APP, args.work)
print("timing: app %s" % ("published in %.1f s" % seconds if seconds else
                          "reused (sources unchanged)"), app, flush=True)
wine_apps.announce_runtime(app)

engines = []
try:
    engines.append(("CLRIE", wine_apps.microsoft_clrie(dotnet, args.work)))
except clrie_package.Missing as missing:
    checks.expect(False, "Microsoft's Windows CLRIE is missing: %s" % missing)
# clrie's own Windows engine, from the cross build test/run makes beside this one.
windows_build = os.environ.get("CLRIE_TEST_WINDOWS_BUILD")
if windows_build:
    args.engine.append("clrie=" + os.path.join(windows_build, "shims", "engine",
                                               "MicrosoftInstrumentationEngine_x64.dll"))
for entry in args.engine:
    name, _, path = entry.partition("=")
    if checks.expect(name and os.path.isfile(path), "--engine %s: expected NAME=an engine DLL"
                     % entry):
        engines.append((name, os.path.abspath(path)))

# Wine's own processes start now, after the slow steps, so that they stay for every run.
print("timing: Wine started in %.1f s" % prefix.start(), flush=True)


def run(label, env=None):
    result = prefix.run(app, env=env)
    print("timing: %s run %.1f s (exit %d)" % (label, result.seconds, result.returncode),
          flush=True)
    return result


def same_as_bare(label, result):
    checks.expect((result.returncode, result.stdout, result.stderr) ==
                  (bare.returncode, bare.stdout, bare.stderr),
                  "%s: stdout, stderr and exit code exactly as bare\n    bare: exit %d, "
                  "stdout %r, stderr %r" % (label, bare.returncode, bare.stdout, bare.stderr),
                  result)


def scenario_no_plugin(name, engine):
    box = dotnet_apps.Sandbox("clrie-wine", name + "-no-plugin", args.keep)
    try:
        log = box.path("engine.log")
        env = wine_apps.profiler_environment(engine, log)
        env["MicrosoftInstrumentationEngine_LogLevel"] = "Messages"
        result = run(name + " without plugins", env)
        same_as_bare(name + " without plugins", result)
        checks.expect(read(log).strip() != "",
                      "%s: the engine was loaded (it wrote its log %s)" % (name, log))
    finally:
        box.close()


def scenario_probe(name, engine):
    box = dotnet_apps.Sandbox("clrie-wine", name + "-probe", args.keep)
    try:
        box.copy(args.probe, "wine_probe.dll")
        config = box.write("wine_probe.config", PROBE_CONFIG)
        log, record = box.path("engine.log"), box.path("probe.txt")
        env = wine_apps.profiler_environment(engine, log, {"WineProbe": config})
        env.update(CLRIE_WINE_PROBE_FILE=wine_apps.windows_path(record),
                   CLRIE_WINE_PROBE_MODULE="hello.dll")
        result = run(name + " with the probe", env)
        same_as_bare(name + " with the probe", result)
        seen = read(record).splitlines()
        print("   probe: " + "; ".join(l for l in seen if not l.startswith("method ")) +
              "; %d methods of hello.dll" % sum(l.startswith("method ") for l in seen))
        checks.expect(seen[:1] == ["initialize"] and seen[-1:] == ["shutdown"],
                      "%s: the probe was initialised first and shut down last" % name, seen=seen)
        checks.expect("module hello.dll" in seen, "%s: the probe saw hello.dll load" % name,
                      seen=seen)
        for method in APP_METHODS:
            checks.expect("method " + method in seen,
                          "%s: the engine asked the probe about %s" % (name, method), seen=seen)
        counts = dict(l.split(" ", 1) for l in seen if l.startswith(("modules ",
                                                                     "should-instrument ")))
        checks.expect(int(counts.get("modules", 0)) >= 2,
                      "%s: the probe counted at least two modules (the core library and "
                      "hello.dll)" % name, seen=counts)
        methods = sum(l.startswith("method ") for l in seen)
        checks.expect(int(counts.get("should-instrument", 0)) >= methods,
                      "%s: the probe counted every method it was asked about" % name,
                      seen=counts)
        checks.expect(read(log).strip() == "", "%s: the engine logged no error" % name,
                      seen=read(log)[:2000])
        records[name] = seen
    finally:
        box.close()


# A folder name outside ASCII (and beyond Latin-1): the engine reads its configuration and
# loads its plugin through UTF-16 paths.
WIDE_FOLDER = "pl\u00fcgin-\u4e2d"


def scenario_clrie_paths_and_bad_input(name, engine):
    """clrie's Windows engine: a configuration and plugin in a folder named outside ASCII work;
    a plugin DLL cut short, a plugin built for x86 and a configuration path that does not
    exist each get one clear error line naming the file, and the app runs as bare."""
    box = dotnet_apps.Sandbox("clrie-wine", name + "-bad-input", args.keep)
    try:
        probe = read_bytes(args.probe)
        box.copy(args.probe, WIDE_FOLDER + "/wine_probe.dll")
        wide_config = box.write(WIDE_FOLDER + "/wine_probe.config", PROBE_CONFIG)
        record = box.path("probe.txt")
        log = box.path("wide.log")
        env = wine_apps.profiler_environment(engine, log, {"Wide": wide_config})
        env.update(CLRIE_WINE_PROBE_FILE=wine_apps.windows_path(record),
                   CLRIE_WINE_PROBE_MODULE="hello.dll")
        result = run(name + " with the probe in '%s'" % WIDE_FOLDER, env)
        same_as_bare(name + " with the probe in a folder named outside ASCII", result)
        seen = read(record).splitlines()
        checks.expect(seen[:1] == ["initialize"] and "module hello.dll" in seen,
                      "%s: the probe in '%s' was loaded and saw hello.dll" % (name, WIDE_FOLDER),
                      seen=seen[:6])
        checks.expect(read(log).strip() == "", "%s: no error with a folder outside ASCII" % name,
                      seen=read(log)[:2000])

        # A DLL cut short (an upgrade half-written), one for the other machine, and a
        # configuration that is not there.
        box.write_bytes("cut/wine_probe.dll", probe[:len(probe) // 2])
        x86 = bytearray(probe)
        pe = int.from_bytes(x86[0x3c:0x40], "little")
        x86[pe + 4:pe + 6] = (0x14c).to_bytes(2, "little")
        box.write_bytes("x86/wine_probe.dll", bytes(x86))
        configs = {"Cut": box.write("cut/wine_probe.config", PROBE_CONFIG),
                   "X86": box.write("x86/wine_probe.config", PROBE_CONFIG.replace(
                       PROBE_GUID, "{6B1E5C0A-3F7D-4C2B-9E41-8A2D5F0C7B14}")),
                   "Missing": box.path("missing/none.config")}
        log = box.path("bad.log")
        env = wine_apps.profiler_environment(engine, log, configs)
        result = run(name + " with broken plugins", env)
        same_as_bare(name + " with broken plugins and a missing configuration", result)
        text = read(log)
        for line in text.splitlines():
            print("   log: " + line)
        for what, words in (("the DLL cut short", ["cut", "cut short"]),
                            ("the x86 DLL", ["x86", "built for machine 0x14c (x86), not x64"]),
                            ("the missing configuration", ["none.config", "cannot open"])):
            checks.expect(any(all(w in line for w in words) for line in text.splitlines()),
                          "%s: an error line names %s (%s)" % (name, what, ", ".join(words)),
                          seen=text[:3000])
    finally:
        box.close()


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


print("== bare", flush=True)
bare = run("bare")
version = wine_apps.app_runtime(app)
checks.expect(bare.returncode == 3 and
              lines(bare.stdout) == ["hello from .NET " + version,
                                     "sum of multiples of 3 up to 100: 1683"] and
              lines(bare.stderr) == ["a line on stderr"],
              "bare: the app prints its runtime's version and the sum, a line on stderr, and "
              "exits 3", bare)
if checks.failures:
    sys.exit(checks.finish(""))

scenarios = []
for name, engine in engines:
    print("engine %s: %s" % (name, engine))
    scenarios += [
        (name + "-no-plugin", "%s, no plugin configured: as bare" % name,
         lambda name=name, engine=engine: scenario_no_plugin(name, engine)),
        (name + "-probe", "%s with the probe: as bare, and the probe saw the app" % name,
         lambda name=name, engine=engine: scenario_probe(name, engine)),
    ]
    if name != "CLRIE":
        scenarios.append((name + "-bad-input", "%s: a folder outside ASCII, broken plugins, a "
                          "missing configuration" % name,
                          lambda name=name, engine=engine:
                          scenario_clrie_paths_and_bad_input(name, engine)))
records = {}
dotnet_apps.run_scenarios(checks, scenarios, {s[0] for s in scenarios})
# The same plugin sees the same app the same way under every engine: the same modules, the
# same methods asked about, in the same order (the probe records what the engine tells it).
if "CLRIE" in records:
    for name, seen in records.items():
        if name != "CLRIE":
            checks.expect(seen == records["CLRIE"],
                          "%s: the probe saw exactly what it saw under Microsoft's CLRIE" % name,
                          seen={"CLRIE": records["CLRIE"], name: seen})
sys.exit(checks.finish("the Windows runtime under Wine runs the app unchanged under %s" %
                       ", ".join(name for name, _ in engines)))
