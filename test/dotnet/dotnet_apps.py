"""Builds the C# test apps under test/dotnet/ with the machine's SDK and runs them, with and
without a profiler attached. Used by the tests that need the real runtime."""
import os
import shutil
import subprocess
import sys

SKIP = 77
PROFILER_CLSID = "{324F817A-7420-4E6D-B3C1-143FBED6D855}"
APPS = os.path.dirname(os.path.abspath(__file__))


def find_dotnet(name="dotnet"):
    """The dotnet host, or exit with the 'skipped' code when the machine has none."""
    path = shutil.which(name)
    if not path:
        print("no dotnet on this machine: skipped")
        sys.exit(SKIP)
    return path


def quiet_environment():
    env = dict(os.environ)
    env.update(DOTNET_CLI_TELEMETRY_OPTOUT="1", DOTNET_NOLOGO="1",
               DOTNET_SKIP_FIRST_TIME_EXPERIENCE="1", DOTNET_GENERATE_ASPNET_CERTIFICATE="0")
    for name in list(env):
        if name.startswith(("CORECLR_", "DOTNET_PROFILER", "DOTNET_ENABLE_PROFILING",
                            "MicrosoftInstrumentationEngine_", "InstrumentationEngineProxy_")):
            del env[name]
    return env


def build_app(dotnet, name, out_root):
    """Builds test/dotnet/<name> into out_root/<name> (offline, incremental) and returns the
    path of its main assembly."""
    out = os.path.join(out_root, name)
    project = os.path.join(APPS, name, name + ".csproj")
    result = subprocess.run(
        [dotnet, "build", project, "-c", "Release", "-o", out, "--nologo", "-v", "q",
         "-p:BaseIntermediateOutputPath=" + os.path.join(out_root, "obj", name) + "/"],
        env=quiet_environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.exit("building %s failed:\n%s" % (name, result.stdout))
    return os.path.join(out, name + ".dll")


def run_app(dotnet, assembly, profiler_path=None, extra_env=None, args=()):
    """Runs the app; with profiler_path, CoreCLR loads that file as the profiler."""
    env = quiet_environment()
    if profiler_path:
        env.update(CORECLR_ENABLE_PROFILING="1", CORECLR_PROFILER=PROFILER_CLSID,
                   CORECLR_PROFILER_PATH=profiler_path)
    env.update(extra_env or {})
    return subprocess.run([dotnet, assembly, *args], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=300)


def engine_arch_suffix():
    """The suffix of the engine's per-architecture variables (..._64 or ..._ARM64)."""
    import platform
    return "ARM64" if platform.machine() in ("aarch64", "arm64") else "64"


def read_lines(path):
    """The lines of a file the profiler wrote, [] when it was never created."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


class Checks:
    """Collects failed checks, each printed with what was expected and what was seen."""

    def __init__(self):
        self.failures = []
        self.count = 0

    def expect(self, condition, what, result=None, seen=None):
        self.count += 1
        if condition:
            return True
        detail = ""
        if result is not None:
            detail += "\n    exit %d\n    stdout: %r\n    stderr: %r" % (
                result.returncode, result.stdout, result.stderr)
        if seen is not None:
            detail += "\n    seen: %r" % (seen,)
        self.failures.append(what + detail)
        print("FAILED:", what + detail, flush=True)
        return False

    def expect_in(self, needle, text, what, result=None):
        return self.expect(needle in text, "%s: expected %r in %r" % (what, needle, text), result)

    def finish(self, success_line):
        if self.failures:
            print("%d of %d checks failed" % (len(self.failures), self.count))
            return 1
        print("%d checks passed: %s" % (self.count, success_line))
        return 0
