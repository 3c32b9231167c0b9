"""What test/dotnet/refreshed is traced with, and what it must then record: the points files
and expected events of the tracer's refresh scenarios, shared by test/dotnet/test_tracer.py
(Linux) and test/wine/test_wine_engine.py (Windows under Wine)."""
import subprocess
import time

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


class Session:
    """test/dotnet/refreshed driven line by line: process is the running app (a Popen with text
    pipes for stdin and stdout), output the file the recorder writes its events to, read_lines
    a function that gives a file's lines ([] before it exists)."""

    def __init__(self, process, output, read_lines):
        self.process = process
        self.output = output
        self.read_lines = read_lines
        self.seen = 0
        self.calls = 0

    def ask(self, command):
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline().strip()

    def call(self):
        """One call of Alpha and Beta: (the app's answer, the events it made)."""
        self.calls += 1
        answer = self.ask("call")
        lines = self.read_lines(self.output)
        events, self.seen = lines[self.seen:], len(lines)
        return answer, events

    def finish(self):
        """Asks the app to exit: (its exit code, its stderr)."""
        try:
            _, err = self.process.communicate("exit\n", timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return self.process.returncode, err

    def kill(self):
        self.process.kill()
        self.process.communicate()


def follow_steps(checks, what, session, replace, watch):
    """Drives the app through STEPS, which replace(methods) writes to its points file: at
    start the first step's events; after each change, the events follow it (through the folder
    watch within REFRESH_BOUND seconds, or at the next call after the app called
    Tracing.Refresh()), and the call after that too: exactly one enter and one finish per
    traced call. Then the app must exit with 0."""
    answer, events = session.call()
    checks.expect(answer == "called 1 2 3", "%s: the app answers as without a profiler" % what,
                  seen=answer)
    checks.expect(events == expected_events(STEPS[0], 1),
                  "%s: at start, the events of the first points" % what, seen=events)
    for step, methods in enumerate(STEPS[1:], 1):
        replace(methods)
        started = time.monotonic()
        if not watch:
            answer = session.ask("refresh")
            checks.expect(answer == "refreshed True",
                          "%s step %d: Tracing.Refresh() returns true" % (what, step),
                          seen=answer)
        want = expected_events(methods, session.calls + 1)
        answer, events = session.call()
        while watch and events != want and time.monotonic() - started < REFRESH_BOUND:
            time.sleep(0.1)
            want = expected_events(methods, session.calls + 1)
            answer, events = session.call()
        n = session.calls
        checks.expect(answer == "called %d %d %d" % (n, 2 * n, 3 * n),
                      "%s step %d: the app answers as without a profiler" % (what, step),
                      seen=answer)
        checks.expect(events == want, "%s step %d: the events follow %s%s\n    expected: %r" % (
            what, step, methods, " within %g s" % REFRESH_BOUND if watch else
            " at the next call", want), seen=events)
        answer, events = session.call()
        want = expected_events(methods, session.calls)
        checks.expect(events == want, "%s step %d: the next call too\n    expected: %r" % (
            what, step, want), seen=events)
        print("   step %d (%s): followed after %.2f s" % (
            step, ", ".join("%s by %s" % m for m in methods) or "no points",
            time.monotonic() - started))
    code, err = session.finish()
    checks.expect(code == 0, "%s: the app exits with 0" % what, seen=err)
    checks.expect("Unhandled exception" not in err, "%s: no unhandled exception" % what,
                  seen=err)
