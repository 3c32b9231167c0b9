"""Runs .NET programs under the engine with the stress plugin (examples/stress), for the
tests that prove rewriting changes nothing (test_rewrite.py, test_csc.py) and for the
benchmark (test/bench-engine): config files, the plugin's one-line report, the engine's
per-method log lines, and the SDK's C# compiler."""
import os
import re
import statistics
import subprocess
import tempfile

import dotnet_apps

# examples/stress serves any ClassGuid (each config entry is an instance); this one is ours.
STRESS_GUID = "{5712E55A-C1E0-4C5B-9E0C-0000000000A6}"
CONFIG_VAR = "MicrosoftInstrumentationEngine_ConfigPath64_Stress"
LOG_LEVEL = "MicrosoftInstrumentationEngine_LogLevel"
LOG_PATH = "MicrosoftInstrumentationEngine_FileLogPath"
# One engine log line per instrumented method (LogLevel Messages or All).
# Wall time, then the thread's CPU time (which leaves out time spent waiting for a core), then
# the wall time of each step: "plugins 8.1, locals signature 20.3, verify 6.0, body 0.9, IL map
# 12.2 us".
INSTRUMENTED_LINE = re.compile(
    r"instrumented (.+) in ([0-9.]+) us \(thread CPU ([0-9.]+) us(?:; ([^)]*) us)?\)")
STEP_TIME = re.compile(r"([a-zA-Z ]+) ([0-9.]+)")
# The steps the engine times, in the order it prints them; the last three are calls into the
# runtime (IMetaDataEmit::GetTokenFromSig; the body allocator and SetILFunctionBody;
# SetILInstrumentedCodeMap).
STEPS = ("plugins", "locals signature", "verify", "body", "IL map")
RUNTIME_STEPS = ("locals signature", "body", "IL map")

# The plugin's settings for each mode (a contract with examples/stress).
MODES = {
    "plain": {},
    "nops": {"Nops": "true"},
    "rejit": {"Rejit": "true"},
}
# The modes test_rewrite.py and test_csc.py run when --modes is not given: all of them, or the
# comma-separated list in CLRIE_TEST_STRESS_MODES. test/run's runtime matrix (.NET 8 and 9) sets
# it to plain,rejit: nops changes only the shape of the rewritten IL (every branch widened),
# which the runtime's JIT checks the same way on every version, and .NET 10 runs it.
MODES_VARIABLE = "CLRIE_TEST_STRESS_MODES"


# A mode left out on a runtime that cannot run it with every method of the process in scope
# (Modules=*), and why: .NET 8 crashes (SIGSEGV) or deadlocks now and then when a method with a
# ReJIT pending is inlined (CEEInfo::reportInliningDecision requests a ReJIT with a wrong
# module ID under its code-versioning lock: dotnet/runtime issues 95653 and 97771, fixed in
# .NET 9); test/asbare leaves out its stress-rejit variant there for the same reason.
RUNTIME_DEFECTS = {("8", "rejit"): "on .NET 8 the runtime crashes or deadlocks now and then when "
                                   "a method with a ReJIT pending is inlined (dotnet/runtime "
                                   "issues 95653 and 97771, fixed in .NET 9)"}


def runtime_defect(mode, modules):
    """Why mode cannot run with Modules=modules on the runtime under test, or None."""
    if modules != "*":
        return None
    return RUNTIME_DEFECTS.get((os.environ.get("CLRIE_TEST_RUNTIME", ""), mode))


def chosen_modes(given):
    """The modes to run: --modes (given), else CLRIE_TEST_STRESS_MODES, else every mode.
    Prints which, and exits with an error on a mode that does not exist."""
    text = given or os.environ.get(MODES_VARIABLE) or ",".join(MODES)
    modes = [m for m in text.split(",") if m]
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise SystemExit("unknown stress mode %s (the modes: %s)" % (
            ", ".join(unknown) or "(none)", ", ".join(MODES)))
    source = ("--modes" if given else MODES_VARIABLE if os.environ.get(MODES_VARIABLE)
              else "every mode")
    print("stress modes: %s (%s)" % (",".join(modes), source), flush=True)
    return modes


def xml_escape(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def write_stress_config(directory, plugin, guid, settings):
    """Writes directory/stress.config loading the stress plugin with settings (a dict) and
    returns the environment variables that make the engine read it."""
    lines = ["<InstrumentationEngineConfiguration>",
             "  <InstrumentationMethod>",
             "    <Name>Stress</Name>",
             "    <Description>clrie stress plugin: every selected method rewritten</Description>",
             "    <Module>%s</Module>" % xml_escape(os.path.abspath(plugin)),
             "    <ClassGuid>%s</ClassGuid>" % guid,
             "    <Priority>50</Priority>",
             "    <Settings>"]
    for name, value in settings.items():
        lines.append('      <Setting Name="%s" Value="%s"/>' % (xml_escape(name),
                                                               xml_escape(value)))
    lines += ["    </Settings>", "  </InstrumentationMethod>",
              "</InstrumentationEngineConfiguration>", ""]
    path = os.path.join(directory, "stress.config")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    os.chmod(path, 0o644)
    return {CONFIG_VAR: path}


def parse_report(path):
    """The stress plugin's report line, `stress seen=<n> instrumented=<n> failed=<n>
    rejit_requested=<n> rejit_failed=<n>` (and any further `key=<n>`), as a dict of those
    counts plus 'line' (the text); None when the plugin wrote no report."""
    lines = dotnet_apps.read_lines(path)
    if not lines:
        return None
    text = " ".join(lines)
    report = {"line": text}
    for key, value in re.findall(r"(\w+)=(\d+)", text):
        report[key] = int(value)
    return report


def report_problems(report, mode, minimum):
    """What is wrong with a stress report for a run in mode that should have instrumented at
    least minimum methods: a list of (what, expected, seen), empty when all is well."""
    problems = []
    if report.get("instrumented", 0) < minimum:
        problems.append(("methods instrumented", ">= %d" % minimum, report.get("instrumented")))
    # failed, rejit_failed, and jit_failed where the plugin counts the JIT's verdicts
    for key in ["failed"] + sorted(k for k in report if k.endswith("_failed")):
        if report.get(key) != 0:
            problems.append(("'%s' in the report" % key, "0", report.get(key)))
    if mode == "rejit" and report.get("rejit_requested", 0) < max(minimum, 1):
        problems.append(("ReJIT requests", ">= %d" % max(minimum, 1),
                         report.get("rejit_requested")))
    return problems


def instrumentation_times(log_path):
    """[(method, wall us, thread CPU us, {step: wall us})] from the engine's log (the steps:
    STEPS; what they leave of the wall time is the engine's own rest: method info, max stack,
    encoding, OnInstrumentationComplete)."""
    times = []
    for line in dotnet_apps.read_lines(log_path):
        m = INSTRUMENTED_LINE.search(line)
        if m:
            steps = {name.strip(): float(us) for name, us in STEP_TIME.findall(m.group(4) or "")}
            times.append((m.group(1), float(m.group(2)), float(m.group(3)), steps))
    return times


def step_medians(times):
    """{part: median wall us} over instrumentation_times' lines that time their steps: each
    step, 'rest' (what is not timed alone: method info, max stack, encoding, the plugins'
    OnInstrumentationComplete), and
    'outside the runtime' (the whole without RUNTIME_STEPS: the plugins and the engine)."""
    timed = [(wall, steps) for _, wall, _, steps in times if steps]
    if not timed:
        return {}
    medians = {step: statistics.median(steps.get(step, 0.0) for _, steps in timed)
               for step in STEPS}
    medians["rest"] = statistics.median(max(0.0, wall - sum(steps.values()))
                                        for wall, steps in timed)
    medians["outside the runtime"] = statistics.median(
        wall - sum(steps.get(step, 0.0) for step in RUNTIME_STEPS) for wall, steps in timed)
    return medians


def format_steps(medians):
    """step_medians as one line: 'plugins 8.1, locals signature 20.3, ... us'."""
    return ", ".join("%s %.1f" % (part, us) for part, us in medians.items()) + " us"


def log_errors(log_path, limit=20):
    """The engine log's lines that look like errors (for failure messages)."""
    found = [line for line in dotnet_apps.read_lines(log_path)
             if re.search(r"\berror\b|InvalidProgram|failed", line, re.IGNORECASE)]
    return found[:limit]


class Profiled:
    """One run's environment: the engine as the profiler, optionally the stress plugin
    with settings, the engine log and the plugin report in a temporary directory."""

    def __init__(self, engine, plugin=None, guid=None, settings=None, log_level="Messages",
                 prefix="clrie-stress-"):
        self.dir = os.path.realpath(tempfile.mkdtemp(prefix=prefix))
        os.chmod(self.dir, 0o755)
        self.log = os.path.join(self.dir, "engine.log")
        self.report = os.path.join(self.dir, "report.txt")
        self.env = {"CORECLR_ENABLE_PROFILING": "1",
                    "CORECLR_PROFILER": dotnet_apps.PROFILER_CLSID,
                    "CORECLR_PROFILER_PATH": os.path.abspath(engine)}
        if log_level:
            self.env.update({LOG_LEVEL: log_level, LOG_PATH: self.log})
        if plugin:
            settings = dict(settings or {})
            settings.setdefault("Report", self.report)
            self.env.update(write_stress_config(self.dir, plugin, guid, settings))

    def close(self, keep=False):
        if keep:
            print("  kept", self.dir)
            return
        for name in os.listdir(self.dir):
            os.remove(os.path.join(self.dir, name))
        os.rmdir(self.dir)


def run(command, env_extra=None, timeout=900, cwd=None):
    """Runs command (a list) in the quiet environment plus env_extra; a run that hangs comes
    back as a result with exit code -1 and a note on stderr."""
    env = dotnet_apps.quiet_environment()
    env.update(env_extra or {})
    try:
        return subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired as error:
        out = error.stdout or b""
        err = error.stderr or b""
        return subprocess.CompletedProcess(
            command, -1, out.decode(errors="replace") if isinstance(out, bytes) else out,
            (err.decode(errors="replace") if isinstance(err, bytes) else err) +
            "\n[did not finish in %d s]" % timeout)


# ---- the SDK's C# compiler ---------------------------------------------------------------

def newest_sdk(dotnet):
    """(version, folder) of the newest SDK `dotnet --list-sdks` names."""
    out = subprocess.run([dotnet, "--list-sdks"], env=dotnet_apps.quiet_environment(),
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    sdks = []
    for line in out.splitlines():
        m = re.match(r"(\S+) \[(.+)\]$", line.strip())
        if m:
            key = tuple(int(p) if p.isdigit() else 0 for p in re.split(r"[.-]", m.group(1)))
            sdks.append((key, m.group(1), os.path.join(m.group(2), m.group(1))))
    if not sdks:
        return None
    _, version, folder = max(sdks)
    return version, folder


def find_csc(dotnet):
    """The SDK's csc.dll, or None."""
    sdk = newest_sdk(dotnet)
    if not sdk:
        return None
    path = os.path.join(sdk[1], "Roslyn", "bincore", "csc.dll")
    return path if os.path.isfile(path) else None


def reference_assemblies(dotnet):
    """The reference assemblies of Microsoft.NETCore.App.Ref in the dotnet root's packs
    folder (the newest version and target framework), or []."""
    root = os.path.dirname(os.path.realpath(dotnet))
    packs = os.path.join(root, "packs", "Microsoft.NETCore.App.Ref")
    if not os.path.isdir(packs):
        return []

    def version_key(name):
        return tuple(int(p) if p.isdigit() else -1 for p in re.split(r"[.-]", name))

    version = max(os.listdir(packs), key=version_key)
    ref = os.path.join(packs, version, "ref")
    frameworks = sorted(os.listdir(ref), key=lambda n: version_key(n.replace("net", "")))
    folder = os.path.join(ref, frameworks[-1])
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".dll"))


CSC_INPUT = os.path.join(dotnet_apps.APPS, "csc-input")


def csc_command(dotnet, csc, out_dir, references, sources_dir=CSC_INPUT):
    """A deterministic compile of sources_dir/*.cs (test/dotnet/csc-input by default) into
    out_dir/cscinput.dll with a portable PDB beside it. Run it with cwd=sources_dir: the
    sources are named relative to it, so the compiler's diagnostics are the same wherever the
    tree is."""
    sources = sorted(f for f in os.listdir(sources_dir) if f.endswith(".cs"))
    return [dotnet, csc, "-nologo", "-noconfig", "-nostdlib+", "-target:library",
            "-deterministic+", "-optimize+", "-langversion:latest", "-nullable:enable",
            "-unsafe+", "-warn:4", "-debug:portable",
            # the PDB's path is written into the DLL: map the output folder too
            "-pathmap:%s=/clrie/csc-input,%s=/clrie/out" % (sources_dir,
                                                           os.path.abspath(out_dir)),
            "-out:" + os.path.join(out_dir, "cscinput.dll"),
            "-pdb:" + os.path.join(out_dir, "cscinput.pdb"),
            *("-r:" + r for r in references), *sources]


def many_csc_sources(folder, copies):
    """Writes copies of every test/dotnet/csc-input file into folder, copy i in namespace
    CscInput.Copy<i>, for a compile of a few hundred files; returns how many files."""
    os.makedirs(folder, exist_ok=True)
    written = 0
    for name in sorted(f for f in os.listdir(CSC_INPUT) if f.endswith(".cs")):
        with open(os.path.join(CSC_INPUT, name)) as f:
            text = f.read()
        if "namespace CscInput;" not in text:
            raise ValueError("%s has no 'namespace CscInput;' line" % name)
        for i in range(copies):
            with open(os.path.join(folder, "%s.%d.cs" % (name[:-3], i)), "w") as f:
                f.write(text.replace("namespace CscInput;", "namespace CscInput.Copy%d;" % i))
            written += 1
    return written
