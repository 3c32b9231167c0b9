"""What a plugin and a log reader see, compared with what Microsoft's CLRIE shows them.

Runs test/dotnet/compat under the engine with test/plugins/compat_probe.c and parses what
comes out: the plugin's record (names of generic methods, the exception events of a throw
through a finally, a filter and a rethrow, and of a throw from a catch handler past a filter
that says no, its settings) and the engine's log (the prefixes of
a plugin's lines, and the InstrumentedMethod dump of the method it changed). The expected
values were read from CLRIE 18.11 (Microsoft.CodeCoverage) running the same plugin; with
--reference ENGINE, or --reference auto (the package restored into --apps-out; test/run
passes it), the script also runs CLRIE itself and checks that it still shows the same.

usage: test_compat.py --engine ENGINE --probe PROBE --apps-out DIR [--reference auto|ENGINE]
"""
import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET

import clrie_package
import dotnet_apps

PROBE_GUID = "{5E5E0A1B-2C3D-4E5F-8A9B-0C1D2E3F4A5B}"
PREFIX = "[IM:5e5e0a1b-2c3d-4e5f-8a9b-0c1d2e3f4a5b]"
CONFIG = """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>CompatProbe</Name>
    <Description>records what the engine shows a plugin</Description>
    <Module>compat-probe.so</Module>
    <ClassGuid>%s</ClassGuid>
    <Priority>10</Priority>
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
""" % PROBE_GUID

# The names CLRIE gives (GetName | GetFullName): generic methods carry their arity.
NAMES = ["name Max<!!0> | Program.Max<!!0>", "name Get | Box`1.Get",
         "name Convert<!!0> | Box`1.Convert<!!0>", "name Twice | Program.Twice",
         "name .cctor | Program+<>c..cctor"]

# Thrower throws; WithFinally's finally runs while unwinding; Rethrower catches and rethrows;
# Catcher's filter (calling Pick) accepts it. Pick's JIT happens inside the filter. Then Inner
# catches its own exception and its handler throws another (no ExceptionCatcherLeave for the
# first), which passes Middle's filter (Reject says no) and runs Middle's finally on its way to
# Outer's catch. Read from CLRIE 18.11; clrie sends the same.
EXCEPTIONS = """ExceptionThrown
ExceptionSearchFunctionEnter Program.Thrower
ExceptionSearchFunctionLeave
ExceptionSearchFunctionEnter Program.WithFinally
ExceptionSearchFunctionLeave
ExceptionSearchFunctionEnter Program.Rethrower
ExceptionSearchCatcherFound Program.Rethrower
ExceptionSearchFunctionLeave
ExceptionUnwindFunctionEnter Program.Thrower
ExceptionUnwindFunctionLeave
ExceptionUnwindFunctionEnter Program.WithFinally
ExceptionUnwindFinallyEnter Program.WithFinally
ExceptionUnwindFinallyLeave
ExceptionUnwindFunctionLeave
ExceptionUnwindFunctionEnter Program.Rethrower
ExceptionCatcherEnter Program.Rethrower
ExceptionThrown
ExceptionSearchFunctionEnter Program.Rethrower
ExceptionSearchFunctionLeave
ExceptionSearchFunctionEnter Program.Catcher
ExceptionSearchFilterEnter Program.Catcher
ExceptionSearchFilterLeave
ExceptionSearchCatcherFound Program.Catcher
ExceptionSearchFunctionLeave
ExceptionUnwindFunctionEnter Program.Rethrower
ExceptionUnwindFunctionLeave
ExceptionUnwindFunctionEnter Program.Catcher
ExceptionCatcherEnter Program.Catcher
ExceptionCatcherLeave
ExceptionThrown
ExceptionSearchFunctionEnter Program.Inner
ExceptionSearchCatcherFound Program.Inner
ExceptionSearchFunctionLeave
ExceptionUnwindFunctionEnter Program.Inner
ExceptionCatcherEnter Program.Inner
ExceptionThrown
ExceptionSearchFunctionEnter Program.Inner
ExceptionSearchFunctionLeave
ExceptionSearchFunctionEnter Program.Middle
ExceptionSearchFilterEnter Program.Middle
ExceptionSearchFilterLeave
ExceptionSearchFunctionLeave
ExceptionSearchFunctionEnter Program.Outer
ExceptionSearchCatcherFound Program.Outer
ExceptionSearchFunctionLeave
ExceptionUnwindFunctionEnter Program.Inner
ExceptionUnwindFunctionLeave
ExceptionUnwindFunctionEnter Program.Middle
ExceptionUnwindFinallyEnter Program.Middle
ExceptionUnwindFinallyLeave
ExceptionUnwindFunctionLeave
ExceptionUnwindFunctionEnter Program.Outer
ExceptionCatcherEnter Program.Outer
ExceptionCatcherLeave""".splitlines()

TIME = r"\[\d\d:\d\d:\d\d\]:"
INSTRUCTION = re.compile(r"^IL_[0-9a-f]{4} [a-z0-9.]+( (IL_[0-9a-f]{4}|0x[0-9a-f]+|\(.*\)))?$")

parser = argparse.ArgumentParser()
parser.add_argument("--engine", required=True)
parser.add_argument("--probe", required=True)
parser.add_argument("--apps-out", required=True)
parser.add_argument("--reference", default="")
parser.add_argument("--keep", action="store_true")
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, files=("engine", "probe"), folders=("apps_out",))
apps = dotnet_apps.Apps(dotnet, args.apps_out)
app = apps.app("compat")
baseline = dotnet_apps.run_app(dotnet, app, args=["exceptions"])


def run(engine, label, level, method="Program.Catcher", extra=None):
    """Runs the app under engine with the probe; returns (result, record, log lines)."""
    box = dotnet_apps.Sandbox("clrie-compat", label, keep=args.keep)
    try:
        box.copy(args.probe, "compat-probe.so")
        env = {dotnet_apps.CONFIG_VAR + "Probe": box.write("probe.config", CONFIG),
               "DOTNET_TieredCompilation": "0",
               "MicrosoftInstrumentationEngine_LogLevel": level,
               "MicrosoftInstrumentationEngine_FileLogPath": box.path("log.txt"),
               "CLRIE_COMPAT_PROBE_FILE": box.path("probe.txt"),
               "CLRIE_COMPAT_PROBE_MODULE": "compat.dll",
               "CLRIE_COMPAT_PROBE_METHOD": method,
               "CLRIE_SETTING_5E5E0A1B2C3D4E5F8A9B0C1D2E3F4A5B_Greeting": "hello there"}
        env.update(extra or {})
        result = dotnet_apps.run_app(dotnet, app, profiler_path=engine, extra_env=env,
                                     args=["exceptions"])
        return (result, dotnet_apps.read_lines(box.path("probe.txt")),
                dotnet_apps.read_lines(box.path("log.txt")))
    finally:
        box.close()


def dump_documents(log):
    """The InstrumentedMethod documents in the log, as parsed XML, [TestIgnore] lines left out
    as CLRIE's own baselines leave them out."""
    documents, current = [], None
    for line in log:
        if line.startswith("<?xml"):
            current = []
        elif current is not None and not line.startswith("[TestIgnore]"):
            current.append(line)
            if line == "</InstrumentedMethod>":
                documents.append(ET.fromstring("\n".join(current)))
                current = None
    return documents


def check_engine(engine, label):
    result, record, log = run(engine, label, "Errors|Messages|Dumps")
    checks.same_as_baseline(label, result, baseline, stderr="ignored")

    # Settings: CLRIE accepts no <Settings> in a configuration file, so the plugin library
    # reads them from the environment in either engine.
    checks.expect("setting Greeting=hello there" in record,
                  "%s: the probe got its setting from CLRIE_SETTING_<class ID>_Greeting" % label,
                  seen=[r for r in record if r.startswith("setting")])

    # Names: what a plugin matches methods on.
    for name in NAMES:
        checks.expect(name in record, "%s: the probe was given %r" % (label, name), seen=record)

    # Exception events, in order, for the one scenario.
    events = [r for r in record if r.startswith("Exception")]
    checks.expect(events == EXCEPTIONS, "%s: the exception events in CLRIE's order" % label,
                  seen=events)

    # The plugin's log lines: CLRIE's prefixes, byte for byte.
    for kind, text in (("LogMessage", "message"), ("LogError", "error")):
        pattern = re.compile("^%s%s%scompat-probe %s$" % (kind, TIME, re.escape(PREFIX), text))
        checks.expect(any(pattern.match(l) for l in log),
                      "%s: a line matching %s" % (label, pattern.pattern), seen=log[:6])
    checks.expect(PREFIX + "compat-probe dump" in log,
                  "%s: the plugin's dump line is %r" % (label, PREFIX + "compat-probe dump"),
                  seen=log[:6])

    # The dump of the changed method: one InstrumentedMethod document, decoded from the final
    # bytes: the nop first, the filter clause kept, the offsets of the old code moved by one.
    documents = [d for d in dump_documents(log) if d.findtext("FullName") == "Program.Catcher"]
    if not checks.expect(len(documents) == 1, "%s: one InstrumentedMethod document for "
                         "Program.Catcher" % label, seen=len(documents)):
        return record, log
    doc = documents[0]
    checks.expect(doc.findtext("Name") == "Catcher" and
                  re.fullmatch(r"0x0600[0-9a-f]{4}", doc.findtext("MethodToken") or ""),
                  "%s: the dump names the method and its token" % label,
                  seen=(doc.findtext("Name"), doc.findtext("MethodToken")))
    for field, value in (("IsStatic", "1"), ("IsPrivate", "1"), ("GenericParameterCount",
                         "0x00000000"), ("RetValueCorElementType", "ELEMENT_TYPE_VOID"),
                         ("CorSignature", "0x00 0x00 0x01")):
        checks.expect((doc.findtext(field) or "").strip() == value,
                      "%s: <%s> is %r" % (label, field, value), seen=doc.findtext(field))
    code = [l for l in (doc.findtext("Instructions") or "").splitlines() if l.strip()]
    checks.expect(code and code[0] == "IL_0000 nop" and code[1].startswith("IL_0001 call 0x"),
                  "%s: the instructions start with the probe's nop" % label, seen=code[:3])
    bad = [l for l in code if not INSTRUCTION.match(l)]
    checks.expect(not bad, "%s: every instruction reads 'IL_xxxx opcode operand'" % label,
                  seen=bad)
    clauses = doc.findall("ExceptionClauses/ExceptionClause")
    checks.expect(len(clauses) == 1 and clauses[0].findtext("Flags") == "0x00000001" and
                  clauses[0].findtext("FirstTryOffset") == "0x00000001",
                  "%s: one filter clause whose try starts after the nop" % label,
                  seen=[ET.tostring(c) for c in clauses])
    entries = [(e.findtext("oldOffset"), e.findtext("newOffset"))
               for e in doc.findall("CorIlMap/CorIlMapEntry")]
    checks.expect(entries[:2] == [("0x00000000", "0x00000000"), ("0x00000005", "0x00000006")],
                  "%s: the IL map moves the old code by the nop" % label, seen=entries[:3])
    return record, log


record, log = check_engine(args.engine, "clrie")

# clrie's own dump lines: every one names its module and method.
own = [l for l in log if "[compat.dll!" in l or re.match(r"^\[[^\]]*!\w+ 0x[0-9A-F]{8}\]", l)]
checks.expect(len(own) > 10 and all(re.match(r"^\[compat\.dll![0-9a-f]+ 0x0600[0-9A-F]{4}\] ", l)
                                    for l in own),
              "clrie: its own dump lines each start with [compat.dll!<module ID> <token>]",
              seen=own[:4])

# Levels: CLRIE's words are flags (Dumps alone is dumps). clrie keeps errors on whatever the
# level (a deliberate difference, docs/design.md), so GetLoggingFlags says so.
_, record, log = run(args.engine, "clrie-dumps", "Dumps")
checks.expect("logging-flags 0x5" in record, "clrie: at Dumps, GetLoggingFlags is "
              "Dumps|Errors (errors are always logged)", seen=record[:2])
checks.expect(not any(l.startswith("LogMessage[") for l in log),
              "clrie: at Dumps, no message lines", seen=log[:4])

# auto: CLRIE from the package, restored into --apps-out (a package that cannot be had fails
# the test); on a machine the package has no Linux binaries for, clrie alone is checked.
reference = args.reference
if reference == "auto":
    reference = ""
    if os.uname().machine in ("x86_64", "amd64"):
        try:
            reference = clrie_package.restore(dotnet, args.apps_out)
        except clrie_package.Missing as missing:
            checks.expect(False, "Microsoft's CLRIE is missing: %s" % missing)
    else:
        print("CLRIE not run: the package ships its Linux binaries for x64 only")
if reference and os.path.isfile(reference):
    check_engine(reference, "CLRIE")
elif reference:
    checks.expect(False, "--reference %s: no such file" % reference)

sys.exit(checks.finish("plugins and log readers see what CLRIE shows them"))
