"""The service app and the plugin of the attach tests, and what they must show, shared by
test/dotnet/test_attach.py (Linux) and test/wine/test_wine_engine.py (Windows under Wine).

test/dotnet/service prints "ready pid=<its process ID>", then every 50 ms what Old, Other and
(once its go file exists) New return; test/plugins/attach_probe.c, loaded by clrie-attach,
makes Old (through ReJIT) and New (at its first JIT) return 42 instead of 41."""
import os
import re
import subprocess
import time

PROBE_GUID = "{6A1C0F3E-2B44-4C8D-9E1F-3A5B7C9D0E12}"
# Every line the service prints after its first, whatever was instrumented.
VALUE_LINE = re.compile(r"old=4[12] other=7( new=4[12])?")
READY_LINE = re.compile(r"ready pid=(\d+)")
# The two ways a detach can end (docs/attach.md, "Detaching"): the runtime accepts it, or
# refuses it because the engine enabled ReJIT (CORPROF_E_IRREVERSIBLE_INSTRUMENTATION_PRESENT).
DETACH_END = re.compile(r"the engine detached|the runtime lets no profiler that enabled "
                        r"ReJIT or changed IL detach")


class Service:
    """The service app, running: command is the program and the arguments that start it before
    its go and stop files (the Linux paths go and stop, named in the app's terms by
    app_path), env its environment. Its stdout is read line by line; pid is the process ID
    it printed."""

    def __init__(self, command, env, go, stop, app_path=lambda path: path, cwd=None):
        self.go = go
        self.stop = stop
        self.proc = subprocess.Popen(command + [app_path(go), app_path(stop)], env=env, cwd=cwd,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.lines = []
        ready = self.wait_for(lambda l: READY_LINE.fullmatch(l) is not None, 60)
        self.pid = int(READY_LINE.fullmatch(ready).group(1)) if ready else None

    def wait_for(self, predicate, seconds=20):
        """Reads lines until one satisfies predicate (returns it) or time runs out (None)."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                return None
            line = line.rstrip("\r\n")
            self.lines.append(line)
            if predicate(line):
                return line
        return None

    def next_lines(self, count):
        return [self.wait_for(lambda l: True) for _ in range(count)]

    def finish(self):
        """Creates the stop file and waits for the app to end: (exit code, stderr)."""
        open(self.stop, "w").close()
        try:
            out, err = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        self.lines += [l.rstrip("\r") for l in out.splitlines()]
        return self.proc.returncode, err

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()

    def only_its_own_lines(self, checks):
        """Checks that the service printed its ready line and value lines, nothing else."""
        other = [l for l in self.lines[1:] if not VALUE_LINE.fullmatch(l)]
        checks.expect(READY_LINE.fullmatch(self.lines[0] if self.lines else "") is not None and
                      not other, "the service prints nothing else", seen=other[:5])


def probe_config(box, probe, settings=None):
    """The probe's configuration file in box (a dotnet_apps.Sandbox), the probe (a shared object
    or DLL) copied beside it; settings (name: value) go in it for a start-up load."""
    module = os.path.basename(probe)
    box.copy(probe, "plugins/" + module)
    items = "".join('      <Setting Name="%s" Value="%s"/>\n' % item
                    for item in (settings or {}).items())
    return box.write("attach-probe.xml", """<InstrumentationEngineConfiguration>
  <InstrumentationMethod>
    <Name>AttachProbe</Name>
    <Module>plugins/%s</Module>
    <ClassGuid>%s</ClassGuid>%s
  </InstrumentationMethod>
</InstrumentationEngineConfiguration>
""" % (module, PROBE_GUID, "\n    <Settings>\n%s    </Settings>" % items if items else ""))


def instrumented_then_detached(checks, service, attach, detach):
    """The attach and detach every attach scenario goes through, on a service that runs Old:
    attach() attaches (a completed process) and Old returns 42 (ReJIT); with the go file New,
    compiled only now, returns 42 too (its JIT) and Other stays 7; a second attach is refused
    in words; detach() starts the detach and both run their original code again while the
    service keeps running. Returns the first attach's result."""
    before = service.wait_for(lambda l: l.startswith("old="))
    checks.expect(before == "old=41 other=7", "the service runs before the attach",
                  seen=service.lines)
    first = attach()
    checks.expect(first.returncode == 0 and
                  "attached: the engine is loaded in process %d" % service.pid in first.stdout,
                  "clrie-attach attaches the engine", first)
    old = service.wait_for(lambda l: l.startswith("old=42"))
    checks.expect(old == "old=42 other=7",
                  "Old, compiled before the attach, returns 42 after it (ReJIT)",
                  seen=service.lines[-5:])
    open(service.go, "w").close()
    new = service.wait_for(lambda l: "new=" in l)
    checks.expect(new == "old=42 other=7 new=42",
                  "New, compiled after the attach, is instrumented at its JIT; Other is not",
                  seen=service.lines[-5:])
    second = attach()
    checks.expect(second.returncode == 1 and "already has a profiler" in second.stderr,
                  "a second attach is refused with a clear message", second)
    detach()
    back = service.wait_for(lambda l: l == "old=41 other=7 new=41", 30)
    checks.expect(back is not None, "after the detach, Old and New run their original code",
                  seen=service.lines[-5:])
    more = service.next_lines(5)
    checks.expect(more == ["old=41 other=7 new=41"] * 5, "the service keeps running", seen=more)
    code, err = service.finish()
    checks.expect(code == 0, "the service exits normally (exit %d)" % code, seen=err)
    checks.expect("Exception" not in err, "no exception in the service", seen=err)
    service.only_its_own_lines(checks)
    return first


def check_probe_report(checks, lines, settings, detached_itself):
    """The probe's report after instrumented_then_detached: settings is how many plugin
    settings the attach data gave it; detached_itself whether it asked to detach."""
    expected = ["attach settings=%d" % settings, "module service.dll",
                "requestrejit Old hr=0x00000000", "instrument Old rejit=1",
                "instrument New rejit=0", "attachcomplete"]
    if detached_itself:
        expected.append("detach hr=0x00000000")
    for line in expected:
        checks.expect(line in lines, "the plugin's report has %r" % line, seen=lines)


def check_detach_file_log(checks, log, trigger, methods):
    """The engine's log after a DetachFile detach: trigger as the engine names it, methods
    how many it put back."""
    checks.expect_in("the engine detaches when '%s' appears" % trigger, log,
                     "the log says the DetachFile is watched")
    checks.expect_in("DetachFile: '%s' appeared; the engine detaches" % trigger, log,
                     "the log says the DetachFile triggered the detach")
    checks.expect_in("detach: %d methods back to their original code" % methods, log,
                     "the log says the methods were put back")
    end = DETACH_END.search(log)
    checks.expect(end is not None, "the log says how the detach ended", seen=log)
    if end and "lets no profiler" in end.group(0):
        checks.expect_in("refused RequestProfilerDetach (hr 0x80131370", log,
                         "the log gives the runtime's answer to the detach")
    return end.group(0) if end else None


def check_bad_input(checks, attach, no_process, not_dotnet, endpoint_words, missing_config):
    """clrie-attach given what it cannot use, each refused in one clear line with a non-zero
    exit: attach(pid, config) runs it; no_process is an ID no process has, not_dotnet the ID of
    a process without a diagnostics endpoint (endpoint_words how clrie-attach names that
    endpoint: "socket", "pipe"), missing_config a configuration path where no file is, and
    config one that is there."""
    cases = [
        ("a process ID no process has", no_process, None,
         "clrie-attach: no such process: %d" % no_process),
        ("a process that is not .NET", not_dotnet, None,
         "clrie-attach: process %d has no diagnostics %s" % (not_dotnet, endpoint_words)),
        ("a configuration file that is not there", not_dotnet, missing_config,
         "clrie-attach: --config '%s': No such file or directory" % missing_config),
    ]
    for label, pid, config, wanted in cases:
        result = attach(pid, config)
        lines = result.stderr.replace("\r\n", "\n").splitlines()
        checks.expect(result.returncode != 0 and result.stdout == "" and len(lines) == 1 and
                      lines[0].startswith(wanted),
                      "%s: one line %r, a non-zero exit" % (label, wanted), result)
        print("   %s: exit %d: %s" % (label, result.returncode, " | ".join(lines)))
