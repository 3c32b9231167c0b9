"""Builds the C# test apps under test/dotnet/ with the machine's SDK and runs them, with and
without a profiler attached. Used by the tests that need the real runtime."""
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

SKIP = 77
PROFILER_CLSID = "{324F817A-7420-4E6D-B3C1-143FBED6D855}"
APPS = os.path.dirname(os.path.abspath(__file__))
# The prefix of the variables that name CLRIE config files (any suffix).
CONFIG_VAR = "MicrosoftInstrumentationEngine_ConfigPath64_"


def find_dotnet(name="dotnet"):
    """The dotnet host, or exit with the 'skipped' code when the machine has none."""
    path = shutil.which(name)
    if not path:
        print("no dotnet on this machine: skipped")
        sys.exit(SKIP)
    return path


def start(args, files, folders=()):
    """The start of every real-runtime test script: makes the path arguments named in files
    and folders absolute (meson passes build-relative ones), finds dotnet (or exits with the
    'skipped' code), and fails at once when a file argument names no file. Returns the
    dotnet host and the script's Checks."""
    for attr in (*files, *folders):
        setattr(args, attr, os.path.abspath(getattr(args, attr)))
    dotnet = find_dotnet(os.environ.get("CLRIE_DOTNET", "dotnet"))
    checks = Checks()
    for attr in files:
        path = getattr(args, attr)
        checks.expect(os.path.isfile(path),
                      "--%s %s: no such file" % (attr.replace("_", "-"), path))
    if checks.failures:
        sys.exit(checks.finish(""))
    return dotnet, checks


def quiet_environment():
    env = dict(os.environ)
    env.update(DOTNET_CLI_TELEMETRY_OPTOUT="1", DOTNET_NOLOGO="1",
               DOTNET_SKIP_FIRST_TIME_EXPERIENCE="1", DOTNET_GENERATE_ASPNET_CERTIFICATE="0")
    for name in list(env):
        if name.startswith(("CORECLR_", "DOTNET_PROFILER", "DOTNET_ENABLE_PROFILING",
                            "MicrosoftInstrumentationEngine_", "InstrumentationEngineProxy_")):
            del env[name]
    return env


# The runtime the apps run on. By default they target the SDK's own framework and run on the
# machine's shared framework. CLRIE_TEST_RUNTIME=<major> (8, 9, ...) builds them self-contained
# for that .NET version instead, with the runtime pack NuGet serves (the SDK picks the patch),
# so `dotnet app.dll` runs them on that runtime (test/run's runtime matrix).
# CLRIE_TEST_RID=linux-arm64 with CLRIE_TEST_EXE_WRAPPER=qemu-aarch64 builds them
# self-contained for another architecture and runs their apphost through the wrapper (test/run's
# arm64 run under qemu user mode).
RUNTIME_VARIABLE = "CLRIE_TEST_RUNTIME"
RID_VARIABLE = "CLRIE_TEST_RID"
WRAPPER_VARIABLE = "CLRIE_TEST_EXE_WRAPPER"
_announced = False


def test_runtime():
    """The .NET major version the apps are built for ('8', '9', ...), or None for the SDK's."""
    value = os.environ.get(RUNTIME_VARIABLE, "").strip()
    if value and not value.isdigit():
        sys.exit("%s=%r: expected a .NET major version such as 8" % (RUNTIME_VARIABLE, value))
    return value or None


def runtime_rid():
    import platform
    return os.environ.get(RID_VARIABLE) or (
        "linux-arm64" if platform.machine() in ("aarch64", "arm64") else "linux-x64")


def app_command(dotnet, assembly):
    """How to start the app: `dotnet app.dll`, or its apphost through CLRIE_TEST_EXE_WRAPPER."""
    wrapper = os.environ.get(WRAPPER_VARIABLE)
    if wrapper:
        return [wrapper, assembly[:-len(".dll")] if assembly.endswith(".dll") else assembly]
    return [dotnet, assembly]


def shared_framework_version(dotnet, major):
    """The newest Microsoft.NETCore.App of `major` that `dotnet` has, or None."""
    result = subprocess.run([dotnet, "--list-runtimes"], env=quiet_environment(),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    versions = []
    for line in result.stdout.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] == "Microsoft.NETCore.App":
            if words[1].split(".")[0] == major:
                versions.append(words[1])
    key = lambda v: [int(x) if x.isdigit() else 0 for x in v.split("-")[0].split(".")]
    return max(versions, key=key) if versions else None


def app_runtime(dotnet, out):
    """The runtime the app built into folder `out` runs on, as (version, how): its own runtime
    pack's for a self-contained app, else the newest shared framework of its major version
    that `dotnet` has. None when the folder holds no runtimeconfig.json."""
    import glob
    import json
    configs = sorted(glob.glob(os.path.join(out, "*.runtimeconfig.json")))
    if not configs:
        return None
    with open(configs[0]) as f:
        options = json.load(f).get("runtimeOptions", {})
    for framework in options.get("includedFrameworks", []):
        if framework.get("name") == "Microsoft.NETCore.App":
            wrapper = os.environ.get(WRAPPER_VARIABLE)
            return framework["version"], "self-contained %s, runtime pack from NuGet%s" % (
                runtime_rid(), ", run through " + os.path.basename(wrapper) if wrapper else "")
    frameworks = options.get("frameworks") or [options.get("framework", {})]
    for framework in frameworks:
        if framework.get("name") == "Microsoft.NETCore.App":
            major = framework.get("version", "").split(".")[0]
            version = shared_framework_version(dotnet, major) or framework.get("version")
            return version, "shared framework of %s" % dotnet
    return None


def announce_runtime(dotnet, out):
    """Prints, once per script, which runtime the apps run on: 'runtime: .NET 8.0.31 ...'.
    test/run copies this line next to each test's result."""
    global _announced
    if _announced:
        return
    runtime = app_runtime(dotnet, out)
    if runtime:
        _announced = True
        print("runtime: .NET %s (%s)" % runtime, flush=True)


# Libraries of an app, test/dotnet/<library>, built before it into the folder beside its own:
# the app's project references each by that path.
LIBRARIES = {"traced": ("tracedlib",)}

# A folder where the apps of every test are built, instead of each test's own: test/run sets it
# for the whole run, so that the tests of the normal and the sanitized builds, which build the
# same apps the same way, build each once. Each app is built there under a lock (the tests run
# in parallel), and not again while a stamp beside it says the same sources were built the same
# way (an up-to-date `dotnet build` still takes seconds).
CACHE_VARIABLE = "CLRIE_TEST_APPS_CACHE"


def _sources_stamp(command, folders):
    """A digest of the build command and of every source file under folders (name, size and
    modification time; the build's own bin/ and obj/ are not sources)."""
    digest = hashlib.sha256("\0".join(command).encode())
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d not in ("bin", "obj"))
            for name in sorted(files):
                info = os.stat(os.path.join(root, name))
                digest.update(("\0%s\0%d\0%d" % (os.path.join(root, name), info.st_size,
                                                  info.st_mtime_ns)).encode())
    return digest.hexdigest()


def build_app(dotnet, name, out_root, tool=False, project=None, library=False, properties=()):
    """Builds test/dotnet/<name> into out_root/<name> (offline, incremental) and returns the
    path of its main assembly. With CLRIE_TEST_RUNTIME set, builds it self-contained for that
    .NET version into out_root/net<N>.0-<rid>/<name> (CLRIE_TEST_RID, or this machine's);
    with only CLRIE_TEST_RID set, self-contained for the SDK's version into out_root/<rid>/.
    When NuGet cannot serve those packs, the script exits 77 (skipped) and says why.
    A tool (a generator the script runs with `dotnet`, never under the engine) is always built
    for the SDK's framework, and its runtime is not announced. project: the .csproj, when it is
    not test/dotnet/<name>/<name>.csproj. library: one of LIBRARIES, built like its app and
    not announced. properties: more -p: arguments (a path of the build's, say). With
    CLRIE_TEST_APPS_CACHE set, the app is built in that folder instead (out_root is still made,
    for what the test writes there)."""
    os.makedirs(out_root, exist_ok=True)
    out_root = os.environ.get(CACHE_VARIABLE) or out_root
    os.makedirs(out_root, exist_ok=True)
    for dependency in LIBRARIES.get(name, ()):
        build_app(dotnet, dependency, out_root, library=True)
    major = None if tool else test_runtime()
    out = os.path.join(out_root, name)
    obj = os.path.join(out_root, "obj", name)
    extra = []
    if major:
        tfm = "net%s.0" % major
        out = os.path.join(out_root, tfm + "-" + runtime_rid(), name)
        obj = os.path.join(out_root, "obj-%s-%s" % (tfm, runtime_rid()), name)
        # TargetFrameworks (plural) reaches the restore, which ignores a global TargetFramework.
        extra = ["-p:TargetFrameworks=" + tfm, "-f", tfm, "-r", runtime_rid(), "--self-contained"]
    elif os.environ.get(RID_VARIABLE) and not tool:
        out = os.path.join(out_root, runtime_rid(), name)
        obj = os.path.join(out_root, "obj-" + runtime_rid(), name)
        extra = ["-r", runtime_rid(), "--self-contained"]
    project = project or os.path.join(APPS, name, name + ".csproj")
    command = [dotnet, "build", project, "-c", "Release", "-o", out, "--nologo", "-v", "q",
               "-p:BaseIntermediateOutputPath=" + obj + "/", *extra,
               *("-p:" + p for p in properties)]
    with open(os.path.join(out_root, ".%s.lock" % name), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp_path = out + ".stamp"
        sources = [os.path.dirname(project)] + [os.path.join(APPS, library_name)
                                                for library_name in LIBRARIES.get(name, ())]
        stamp = _sources_stamp(command, sources)
        try:
            with open(stamp_path) as f:
                built = f.read() == stamp and os.path.isfile(os.path.join(out, name + ".dll"))
        except OSError:
            built = False
        if not built:
            _run_build(command, major, name)
            with open(stamp_path, "w") as f:
                f.write(stamp)
    if not tool and not library:
        announce_runtime(dotnet, out)
    return os.path.join(out, name + ".dll")


def _run_build(command, major, name):
    """Runs `dotnet build` (command); on failure exits, 77 when NuGet could not serve the
    packs of another runtime (unless CI=true)."""
    result = subprocess.run(command, env=quiet_environment(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        if (major or os.environ.get(RID_VARIABLE)) and "error NU1" in result.stdout:
            if os.environ.get("CI", "").lower() in ("1", "true"):
                sys.exit("cannot restore the .NET %s packs for %s from NuGet, and CI=%s: "
                         "failed\n%s" % (major or "(the SDK's)", runtime_rid(),
                                         os.environ["CI"], result.stdout))
            print("cannot restore the .NET %s packs for %s from NuGet: skipped\n%s" % (
                major or "(the SDK's)", runtime_rid(), result.stdout))
            sys.exit(SKIP)
        sys.exit("building %s failed:\n%s" % (name, result.stdout))


def build_library(dotnet, project, name, out_root, properties=()):
    """Builds the class library `project` into out_root/<name> (offline, incremental) and returns
    the path of <name>.dll: for the SDK's framework, or with CLRIE_TEST_RUNTIME set for that
    .NET version, into out_root/net<N>.0/<name> (a library is never self-contained; the app
    that loads it brings the runtime). properties: more -p: arguments."""
    major = test_runtime()
    out = os.path.join(out_root, name)
    obj = os.path.join(out_root, "obj", name)
    extra = []
    if major:
        tfm = "net%s.0" % major
        out = os.path.join(out_root, tfm, name)
        obj = os.path.join(out_root, "obj-" + tfm, name)
        extra = ["-p:TargetFrameworks=" + tfm, "-f", tfm]
    result = subprocess.run(
        [dotnet, "build", project, "-c", "Release", "-o", out, "--nologo", "-v", "q",
         "-p:BaseIntermediateOutputPath=" + obj + "/", *extra,
         *("-p:" + p for p in properties)],
        env=quiet_environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.exit("building %s failed:\n%s" % (project, result.stdout))
    return os.path.join(out, name + ".dll")


# The tracer plugin's managed library, which clrie's build makes for the SDK's .NET.
TRACING_PROJECT = os.path.join(APPS, "..", "..", "plugins", "tracer", "managed",
                               "Clrie.Tracing.csproj")


def tracing_library(dotnet, built, out_root):
    """The Clrie.Tracing.dll that apps on the runtime under test load: built (the build's own,
    for the SDK's .NET), or with CLRIE_TEST_RUNTIME set the same sources built for that .NET
    version into out_root, since an older runtime cannot load a library built for a newer one
    (as the tracer factories are built for it)."""
    major = test_runtime()
    if not major:
        return built
    library = build_library(dotnet, TRACING_PROJECT, "Clrie.Tracing", out_root)
    print("Clrie.Tracing.dll built for .NET %s: %s" % (major, library), flush=True)
    return library


def run_app(dotnet, assembly, profiler_path=None, extra_env=None, args=()):
    """Runs the app; with profiler_path, CoreCLR loads that file as the profiler."""
    env = quiet_environment()
    if profiler_path:
        env.update(CORECLR_ENABLE_PROFILING="1", CORECLR_PROFILER=PROFILER_CLSID,
                   CORECLR_PROFILER_PATH=profiler_path)
    env.update(extra_env or {})
    return subprocess.run([*app_command(dotnet, assembly), *args], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)


class Hung:
    """What Apps.run returns for an app that did not finish in time."""

    def __init__(self, error):
        self.returncode = -1
        self.stdout = error.stdout or ""
        self.stderr = (error.stderr or "") + "\n[the app did not finish in %d s]" % error.timeout
        if isinstance(self.stdout, bytes):
            self.stdout = self.stdout.decode(errors="replace")
        if isinstance(self.stderr, bytes):
            self.stderr = self.stderr.decode(errors="replace")


class Apps:
    """The test apps of one test script: each built once, run once without a profiler (the
    baseline), and run with a profiler as often as the scenarios ask."""

    def __init__(self, dotnet, out_root, app_args=None, verbose=False):
        self.dotnet = dotnet
        self.out_root = out_root
        self.app_args = app_args or (lambda name: [])
        self.verbose = verbose
        self.built = {}
        self.baselines = {}

    def app(self, name):
        if name not in self.built:
            self.built[name] = build_app(self.dotnet, name, self.out_root)
        return self.built[name]

    def baseline(self, name):
        if name not in self.baselines:
            self.baselines[name] = run_app(self.dotnet, self.app(name), args=self.app_args(name))
        return self.baselines[name]

    def run(self, name, profiler_path, env, label=""):
        """Runs app `name` with the profiler and the environment; a hung app is a result."""
        try:
            result = run_app(self.dotnet, self.app(name), profiler_path=profiler_path,
                             extra_env=env, args=self.app_args(name))
        except subprocess.TimeoutExpired as error:
            result = Hung(error)
        if self.verbose:
            print("  [%s %s] exit %d, stderr:\n%s" % (label, name, result.returncode,
                                                      "\n".join("    " + line for line in
                                                                result.stderr.splitlines())))
        return result


class Sandbox:
    """A temporary directory holding one scenario's files (0755), removed by close() unless
    the script was asked to keep it."""

    def __init__(self, prefix, name, keep=False):
        self.name = name
        self.keep = keep
        self.dir = os.path.realpath(tempfile.mkdtemp(prefix="%s-%s-" % (prefix, name)))
        os.chmod(self.dir, 0o755)
        self.env = {}

    def path(self, relative):
        return os.path.join(self.dir, relative)

    def copy(self, source, relative, mode=0o755):
        target = self.path(relative)
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        shutil.copyfile(source, target)
        os.chmod(target, mode)
        return target

    def write(self, relative, text, mode=0o644):
        target = self.path(relative)
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(target, mode)
        return target

    def write_bytes(self, relative, data, mode=0o755):
        target = self.path(relative)
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
        os.chmod(target, mode)
        return target

    def close(self):
        if self.keep:
            print("  kept", self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


def engine_arch_suffix():
    """The suffix of the engine's per-architecture variables (..._64 or ..._ARM64)."""
    return "ARM64" if runtime_rid().endswith("-arm64") else "64"


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

    def same_as_baseline(self, what, result, base, stderr="equal"):
        """Exit code and stdout as without a profiler, no InvalidProgramException; stderr
        "equal" to the baseline's, each baseline line "contained" in it, or "ignored"."""
        self.expect(result.returncode == base.returncode,
                    "%s: exit code %d as without a profiler (expected %d)" % (
                        what, result.returncode, base.returncode), result)
        self.expect(result.stdout == base.stdout,
                    "%s: stdout as without a profiler\n    expected stdout: %r" % (
                        what, base.stdout), result)
        if stderr == "equal":
            self.expect(result.stderr == base.stderr,
                        "%s: stderr as without a profiler\n    expected stderr: %r" % (
                            what, base.stderr), result)
        elif stderr == "contained":
            for line in base.stderr.splitlines():
                self.expect(line in result.stderr,
                            "%s: the app's stderr line %r still arrives" % (what, line), result)
        for stream, text in (("stdout", result.stdout), ("stderr", result.stderr)):
            self.expect("InvalidProgramException" not in text,
                        "%s: no InvalidProgramException on %s" % (what, stream), result)

    def finish(self, success_line):
        if self.failures:
            print("%d of %d checks failed" % (len(self.failures), self.count))
            return 1
        print("%d checks passed: %s" % (self.count, success_line))
        return 0


def run_scenarios(checks, scenarios, wanted):
    """Runs each (name, label, function) of scenarios whose name is in wanted (every one when
    wanted is None), in order: prints "== label", then "ok" or how many of its checks failed. A
    scenario that raises counts as one failed check, with the traceback."""
    for name, label, scenario in scenarios:
        if wanted is not None and name not in wanted:
            continue
        print("== %s" % label, flush=True)
        before = len(checks.failures)
        try:
            scenario()
        except SystemExit:
            raise
        except Exception:
            checks.expect(False, "%s: the test itself failed:\n%s" % (name,
                                                                      traceback.format_exc()))
        print("   %s" % ("ok" if len(checks.failures) == before else
                         "%d failed" % (len(checks.failures) - before)), flush=True)
