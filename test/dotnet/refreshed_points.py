"""What test/dotnet/refreshed is traced with, and what it must then record: the points files
and expected events of the tracer's refresh scenarios, shared by test/dotnet/test_tracer.py
(Linux) and test/wine/test_wine_engine.py (Windows under Wine)."""

# The folder of points files, the tracer plugin's Folder setting (its class ID's variable).
FOLDER_VARIABLE = "CLRIE_SETTING_1DACE3F14BE947BAAB0894AF32E0BDCC_Folder"
WATCH_VARIABLE = "CLRIE_SETTING_1DACE3F14BE947BAAB0894AF32E0BDCC_Watch"
# Seconds for a change on disk to show in the events.
REFRESH_BOUND = 10.0
# The points a refresh scenario goes through, one list of (method, factory) per step.
STEPS = [[("Alpha", "Factory")],
         [("Alpha", "Factory"), ("Beta", "Factory")],
         [("Alpha", "Factory"), ("Beta", "Second")],
         [("Beta", "Second")],
         []]


def refresh_points(methods):
    """A points file naming Refreshed.Work's methods: (name, factory) pairs."""
    lines = "\n".join(
        '  <Tracer factory="Recorder.%s" library="recorder/Recorder.dll">\n'
        '    <Method assembly="refreshed" type="Refreshed.Work" name="%s"/>\n'
        '  </Tracer>' % (factory, name) for name, factory in methods)
    return "<Tracing>\n%s\n</Tracing>\n" % lines


def expected_events(methods, n):
    """The events of one call of Alpha and Beta (argument n) under these points."""
    events = []
    for name, value in (("Alpha", 2 * n), ("Beta", 3 * n)):
        factory = dict(methods).get(name)
        if factory == "Factory":
            events += ["enter Refreshed.Work::%s(System.Int32) this=null args=[%d]" % (name, n),
                       "finish Refreshed.Work::%s result=%d" % (name, value)]
        elif factory == "Second":
            events += ["second enter Refreshed.Work::%s" % name,
                       "second finish Refreshed.Work::%s result=%d" % (name, value)]
    return events
