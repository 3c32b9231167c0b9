"""How test/dotnet/traced is traced, and what it must then record and report: the points files
of the tracer's main scenario, the events the recorder (test/dotnet/recorder) writes for them, and
the lines the plugin and Clrie.Tracing write about the methods they leave alone and the points
they refuse. Shared by test/dotnet/test_tracer.py (Linux) and test/wine/test_wine_engine.py
(Windows under Wine), which check the same things on either system."""
import os

# The points files of the scenario, relative to its folder: the points folder (the plugin's
# Folder setting) holds them, read in the byte order of their names, and the recorder.
POINTS_FILE = "points/traced.xml"
BAD_FILE = "points/bad.xml"
AGAIN_FILE = "points/zz-again.xml"
RECORDER_FILE = "points/recorder/Recorder.dll"
# The library POINTS names for the factory Missing.Factory, which is not there, as it names it.
MISSING_LIBRARY = "missing/Missing.dll"

# What Program.Main of test/dotnet/traced makes the recorder write, call by call.
CALLS = [
    ("Traced.Calculator::Add(System.Int32,System.Int32) this=Calculator+1 args=[2,3]",
     "Traced.Calculator::Add result=6"),
    ("Traced.Program::Mid(Traced.Pair,Traced.Pair) this=null args=[(2,4),(4,8)]",
     "Traced.Program::Mid result=(3,6)"),
    ('Traced.Program::Log(System.String) this=null args=["hello"]',
     "Traced.Program::Log result=null"),
    ('Traced.Program::Fail(System.String) this=null args=["boom"]',
     "Traced.Program::Fail exception=System.InvalidOperationException: boom"),
    ('Traced.Program::First(!!0[]) this=null args=[["a","b"]]',
     'Traced.Program::First result="a"'),
    ("Traced.Program::First(!!0[]) this=null args=[[7,8]]", "Traced.Program::First result=7"),
    ('Traced.Program::TryDouble(System.String,System.Int32&) this=null args=["21",0]',
     "Traced.Program::TryDouble result=True"),
    ("Traced.Program::Early(System.Int32) this=null args=[-1]",
     "Traced.Program::Early result=0"),
    ("Traced.Program::Early(System.Int32) this=null args=[5]",
     "Traced.Program::Early result=10"),
]
NESTED = [
    "enter Traced.Program::Outer(System.Int32) this=null args=[4]",
    "enter Traced.Program::Inner(System.Int32) this=null args=[4]",
    "finish Traced.Program::Inner result=40",
    "finish Traced.Program::Outer result=41",
]
LATER = [
    ("Traced.Box`1::Swap(!0,!0&) this=Box(1) args=[2,0]", "Traced.Box`1::Swap result=2"),
    ('Traced.Box`1::Swap(!0,!0&) this=Box(x) args=["y",null]', 'Traced.Box`1::Swap result="y"'),
    ("Traced.Pair::Sum() this=(3,6) args=[]", "Traced.Pair::Sum result=9"),
    ('Traced.Holder`1::Get() this=Holder(h) args=[]', 'Traced.Holder`1::Get result="h"'),
    ("Traced.Program::LaterAsync(System.Int32) this=null args=[6]",
     "Traced.Program::LaterAsync result=task"),
    ("Traced.Program::Countdown(System.Int32) this=null args=[2]",
     "Traced.Program::Countdown result=enumerable"),
    ('System.IO.Path::GetExtension(System.String) this=null args=["notes.txt"]',
     'System.IO.Path::GetExtension result=".txt"'),
]
ALL_EVENTS = [line for enter, finish in CALLS for line in ("enter " + enter,
                                                            "finish " + finish)] + NESTED + [
    line for enter, finish in LATER for line in ("enter " + enter, "finish " + finish)]
ENTER_EVENTS = [line for line in ALL_EVENTS if line.startswith("enter ")]

POINTS = """<?xml version="1.0" encoding="utf-8"?>
<!-- the methods of test/dotnet/traced -->
<Tracing>
  <Tracer factory="Recorder.Factory" library="recorder/Recorder.dll">
    <Method assembly="traced" type="Traced.Calculator" name="Add"/>
    <Method assembly="traced" type="Traced.Program" name="Mid"/>
    <Method assembly="traced" type="Traced.Program" name="Log" parameters="System.String"/>
    <Method assembly="traced" type="Traced.Program" name="Fail"/>
    <Method assembly="traced" type="Traced.Program" name="First" parameters="!!0[]"/>
    <Method assembly="traced" type="Traced.Program" name="TryDouble"
            parameters="System.String, System.Int32&amp;"/>
    <Method assembly="traced" type="Traced.Program" name="Early"/>
    <Method assembly="traced" type="Traced.Program" name="Outer"/>
    <Method assembly="traced" type="Traced.Program" name="Inner"/>
    <Method assembly="traced" type="Traced.Program" name="Main" parameters="System.String[]"/>
    <Method assembly="traced" type="Traced.Box`1" name="Swap" parameters="!0, !0&amp;"/>
    <Method assembly="traced" type="Traced.Pair" name="Sum"/>
    <Method assembly="traced" type="Traced.Holder`1" name="Get"/>
    <Method assembly="traced" type="Traced.Program" name="LaterAsync"/>
    <Method assembly="traced" type="Traced.Program" name="Countdown"/>
    <Method assembly="System.Private.CoreLib" type="System.IO.Path" name="GetExtension"
            parameters="System.String"/>
    <Method assembly="System.Private.CoreLib" type="System.StartupHookProvider"
            name="ProcessStartupHooks"/>
    <Method assembly="traced" type="Traced.Program" name="Count"/>
    <Method assembly="traced" type="Traced.Program" name="Measure"/>
    <Method assembly="traced" type="Traced.Program" name="Advance"/>
    <Method assembly="traced" type="Traced.Program" name="Slot"/>
    <Method assembly="traced" type="Traced.Program" name="Holds"/>
  </Tracer>
  <Tracer factory="Recorder.Second" library="recorder/Recorder.dll">
    <Method assembly="traced" type="Traced.Program" name="Log"/>
  </Tracer>
  <Tracer factory="Missing.Factory" library="missing/Missing.dll">
    <Method assembly="traced" type="Traced.Pair" name="ToString"/>
  </Tracer>
</Tracing>
"""
# ProcessStartupHooks runs once, before the startup hook has loaded Clrie.Tracing: wrapped
# then, it would fail to compile and end the app (FileNotFoundException), so the plugin waits
# for the library before it rejits the framework's methods; it is never called again, so it
# gives no events.
# Pair.ToString's factory is in a library that is not there: said once on stderr, no events,
# the app unchanged.
# Main takes no parameters: its point names no method and traces nothing. Log is named twice:
# the first point traces it, the second is reported and ignored.

# A later file (by name) naming a method the first file traces: the first point traces it.
AGAIN_POINTS = """<Tracing>
  <Tracer factory="Recorder.Second" library="recorder/Recorder.dll">
    <Method assembly="traced" type="Traced.Calculator" name="Add"/>
  </Tracer>
</Tracing>
"""

BAD_POINTS = """<Tracing>
  <Tracer factory="Recorder.Factory">
    <Method assembly="traced" name="Add"/>
  </Tracer>
</Tracing>
"""


def write_points(box):
    """Writes POINTS into box (a dotnet_apps.Sandbox)."""
    box.write(POINTS_FILE, POINTS)


def write_problems(box):
    """Writes the malformed points file and the later one that names a method again, beside
    POINTS."""
    box.write(BAD_FILE, BAD_POINTS)
    box.write(AGAIN_FILE, AGAIN_POINTS)


def check_traced(checks, what, result, events, named, major):
    """The checks of the main scenario, once the app ran with the files of write_points and
    write_problems:
    events (the recorder's lines) are exactly ALL_EVENTS, and result.stderr has a line for each
    method left alone, for the method named twice in a file and again in a later file, for the
    factory whose library is missing (once) and for the malformed file. named(relative) is a
    file of the scenario's folder as the plugin and Clrie.Tracing name it (a path of the
    system the app runs on); major the .NET version the app runs on."""
    checks.expect(events == ALL_EVENTS, "%s: exactly the expected tracer events\n    expected: %r"
                  % (what, ALL_EVENTS), seen=events)
    for method in ("Count(System.ReadOnlySpan`1<System.Char>)", "Measure(Traced.Window)",
                   "Advance(TracedLib.Cursor)"):
        checks.expect_in("Traced.Program::%s: not traced: a by-ref-like" % method,
                         result.stderr, "%s: a by-ref-like parameter is left alone, with a line"
                         % what, result)
    if major >= 9:
        checks.expect_in("Traced.Program::Holds(!!0): not traced: a generic parameter allows a "
                         "by-ref-like type", result.stderr, "%s: a method whose type parameter "
                         "allows a ref struct is left alone, with a line" % what, result)
    else:
        print("%s: no `allows ref struct` before .NET 9: the app has no Holds" % what)
    checks.expect_in("Traced.Program.Slot: not traced: it returns a byref", result.stderr,
                     "%s: a method with a byref return is left alone, with a line" % what, result)
    points = POINTS.splitlines()
    first, second = [i + 1 for i, line in enumerate(points) if 'name="Log"' in line]
    checks.expect_in("%s:%d: Traced.Program::Log(System.String) is traced by the point at %s:%d "
                     "already; this one (factory Recorder.Second) is ignored" % (
                         named(POINTS_FILE), second, named(POINTS_FILE), first),
                     result.stderr, "%s: a method named twice is reported" % what, result)
    add = [i + 1 for i, line in enumerate(points) if 'name="Add"' in line][0]
    checks.expect_in("%s:3: Traced.Calculator::Add(System.Int32,System.Int32) is traced by the "
                     "point at %s:%d already; this one (factory Recorder.Second) is ignored" % (
                         named(AGAIN_FILE), named(POINTS_FILE), add),
                     result.stderr, "%s: a method named again by a later file is traced by the "
                     "first file's point, the other reported" % what, result)
    # The plugin joins a library, as the points file writes it, to the file's folder with the
    # separator the file's path uses: on Windows Z:\...\points\missing/Missing.dll, which
    # Windows reads as well (its '/' is a separator there too).
    folder = named(POINTS_FILE)[:-len(os.path.basename(POINTS_FILE))]
    method_line = [i + 1 for i, line in enumerate(points) if 'Missing.Factory' in line][0] + 1
    missing = [line for line in result.stderr.splitlines()
               if "]tracer: cannot make the tracer factory 'Missing.Factory' of %s (%s:%d): "
               "System.IO.FileNotFoundException: " % (folder + MISSING_LIBRARY,
                                                      named(POINTS_FILE), method_line) in line
               and line.startswith("LogError[")]
    checks.expect(len(missing) == 1, "%s: a factory whose library is missing is reported once "
                  "in the engine's log, with its point and the exception, and its method runs "
                  "without a tracer" % what, result, seen=missing)
    checks.expect_in("%s:3:5: <Method> needs a non-empty 'type' attribute" % named(BAD_FILE),
                     result.stderr, "%s: the bad points file is reported" % what, result)
