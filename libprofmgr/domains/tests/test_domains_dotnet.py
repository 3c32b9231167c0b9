"""The data model inside the real CoreCLR: domains_probe.so feeds it from the runtime's callbacks
while the hello app runs, and prints what its objects answer. Checks what the fake runtime of
test_domains.c cannot prove: names, flags, public key tokens, CLI headers and metadata of real
modules, mapped and flat, and how the runtime reports its domains."""
import re
import sys

sys.path.insert(0, sys.argv[3])
import dotnet_apps  # noqa: E402

probe, out_root = sys.argv[1], sys.argv[2]
dotnet = dotnet_apps.find_dotnet()
app = dotnet_apps.build_app(dotnet, "hello", out_root)
failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)


def fields(line):
    return dict(re.findall(r"(\w+)=(\S*)", line))


baseline = dotnet_apps.run_app(dotnet, app)
run = dotnet_apps.run_app(dotnet, app, profiler_path=probe)
expect(run.returncode == baseline.returncode and run.stdout == baseline.stdout,
       "the app runs unchanged: exit %d, stdout %r" % (run.returncode, run.stdout))
lines = [l for l in run.stderr.splitlines() if l.startswith("probe: ")]
domains = [fields(l) for l in lines if l.startswith("probe: domain ")]
assemblies = {f["name"]: f for f in (fields(l) for l in lines if l.startswith("probe: assembly "))}
modules = {f["name"]: f for f in (fields(l) for l in lines if l.startswith("probe: module "))}
shutdown = [fields(l) for l in lines if l.startswith("probe: shutdown ")]

expect(len([d for d in domains if d["default"] == "1"]) == 1,
       "exactly one default domain: %r" % domains)
for d in domains:
    if d["name"] == "DefaultDomain":
        expect(d["default"] == "1", "DefaultDomain is the default one: %r" % d)
    if d["name"] == "System.Private.CoreLib.dll":
        expect(d["system"] == "1" and d["default"] == "0", "the system domain: %r" % d)

core = modules.get("System.Private.CoreLib.dll")
expect(core is not None, "CoreLib was seen: %r" % sorted(modules))
if core:
    expect(core["mscorlib"] == "0", "CoreLib is not mscorlib, as in CLRIE: %r" % core)
    expect(core["assembly"] == "System.Private.CoreLib", "CoreLib's assembly: %r" % core)
expect(assemblies.get("System.Private.CoreLib", {}).get("token") == "7CEC85D7BEA7798E",
       "CoreLib's public key token: %r" % assemblies.get("System.Private.CoreLib"))
expect(assemblies.get("System.Runtime", {}).get("token") == "B03F5F7F11D50A3A",
       "System.Runtime's public key token: %r" % assemblies.get("System.Runtime"))
hello = modules.get("hello.dll")
expect(hello is not None, "the app's module was seen")
if hello:
    expect(hello["il"] == "1" and hello["entry"] == "06000001" and hello["dynamic"] == "0",
           "hello.dll is IL-only with an entry point: %r" % hello)
    expect(hello["domain"] != "System.Private.CoreLib.dll", "hello.dll is in the app's domain")
expect(assemblies.get("hello", {}).get("token") == "-", "hello has no public key")
for name, m in modules.items():
    expect(m["cb"] == "72" and m["bsjb"] == "1" and m["metadata"] == "1" and m["disk"] == "1",
           "%s: CLI header, metadata at its RVA and metadata interfaces: %r" % (name, m))
    expect(assemblies.get(m["assembly"], {}).get("md") == "20000001",
           "%s: its assembly's metadata token" % name)
expect(len(shutdown) == 1 and int(shutdown[0]["modules"]) == len(modules) >= 4,
       "shutdown saw every module: %r" % shutdown)
layouts = {m["flat"] for m in modules.values()}

# Unloads: the events app loads eventslib into a collectible context and unloads it.
events = dotnet_apps.build_app(dotnet, "events", out_root)
lib = dotnet_apps.build_app(dotnet, "eventslib", out_root)
run = dotnet_apps.run_app(dotnet, events, profiler_path=probe, args=[lib])
expect(run.returncode == 0, "the events app runs: %d %r" % (run.returncode, run.stderr))
lines = [l for l in run.stderr.splitlines() if l.startswith("probe: ")]
seen = [fields(l) for l in lines if l.startswith("probe: module ")]
expect(any(m["name"] == "eventslib.dll" for m in seen), "eventslib.dll attached: %r" % seen)
unloaded = "eventslib unloaded" in run.stdout
if unloaded:
    gone = [fields(l) for l in lines if l.startswith("probe: module-unloaded ")]
    expect([g for g in gone if g["name"] == "eventslib.dll" and g["found"] == "0"],
           "eventslib.dll unloaded, out of the tables, still named: %r" % gone)
    gone = [fields(l) for l in lines if l.startswith("probe: assembly-unloaded ")]
    expect([g for g in gone if g["name"] == "eventslib" and g["modules"] == "0"],
           "the eventslib assembly unloaded with no modules left: %r" % gone)

for f in failures:
    print("FAILED:", f)
if failures:
    print(run.stderr)
    sys.exit(1)
print("%d domains, %d assemblies, %d modules (flat layout: %s) described as expected; %s"
      % (len(domains), len(assemblies), len(modules), "both" if len(layouts) > 1 else layouts,
         "eventslib unloaded and its objects outlived the tables" if unloaded
         else "the runtime kept eventslib loaded, unloads not checked"))
