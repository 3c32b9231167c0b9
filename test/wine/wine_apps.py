"""Runs the Windows x64 .NET runtime under Wine, for the Windows real-runtime tests (suite
'wine'): a Wine prefix in a build folder, made once and reused; C# test apps published
self-contained for win-x64 with the runtime pack NuGet serves; Linux paths as the prefix sees
them; and Microsoft's Windows CLRIE from the NuGet package Microsoft.CodeCoverage.

Wine runs 64-bit Windows programs only here: the machines have no 32-bit Wine, so the x86
runtime cannot be tried. wine64 is started directly (the `wine` wrapper would pick the 32-bit
loader when it is installed), with WINEDEBUG=-all so that Wine's own messages stay out of the
app's stderr."""
import argparse
import fcntl
import glob
import hashlib
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dotnet"))
import clrie_package  # noqa: E402
import dotnet_apps  # noqa: E402

SKIP = dotnet_apps.SKIP
RID = "win-x64"
# Where Debian's wine64 package puts the 64-bit loader; CLRIE_WINE64 names another.
WINE64 = "/usr/lib/wine/wine64"
# A prefix to use instead of <build folder>/wineprefix (test/run shares the one of its
# Windows tests).
PREFIX_VARIABLE = "CLRIE_TEST_WINEPREFIX"
# Set (to 1) by a caller that keeps the prefix's wineserver running for all its tests
# (`wineserver -p`, Wine's own processes started with their streams on /dev/null): the tests
# then use that server as it is, instead of waiting for it to end and starting their own.
SERVER_KEPT_VARIABLE = "CLRIE_TEST_WINESERVER_KEPT"
# Microsoft's CLRIE for Windows x64 in Microsoft.CodeCoverage (build/<tfm>/x64/).
CLRIE_WINDOWS = "MicrosoftInstrumentationEngine_x64.dll"


# The scenarios of test_wine_engine.py to run, a comma-separated list of their names; every one
# when unset. test/run runs a few of them on the .NET versions before the SDK's.
SCENARIOS_VARIABLE = "CLRIE_TEST_WINE_SCENARIOS"


def skip(reason):
    """Exits 77 (skipped) saying why; under CI (CI=true or 1) a test that cannot run fails."""
    if os.environ.get("CI", "").lower() in ("1", "true"):
        print("%s, and CI=%s: failed" % (reason, os.environ["CI"]), flush=True)
        sys.exit(1)
    print("%s: skipped" % reason, flush=True)
    sys.exit(SKIP)


def find_wine64():
    """The wine64 loader, or skip: Wine runs x86_64 Windows programs on Linux x86_64 only."""
    machine = platform.machine()
    if platform.system() != "Linux" or machine not in ("x86_64", "amd64"):
        skip("the Windows x64 runtime runs under Wine on Linux x86_64 only; this is %s %s" % (
            platform.system(), machine))
    for path in (os.environ.get("CLRIE_WINE64"), WINE64, shutil.which("wine64")):
        if path and os.access(path, os.X_OK) and os.path.isfile(path):
            return path
    skip("no wine64 on this machine (Debian package wine64, %s)" % WINE64)


def argument_parser(description):
    """The arguments every Wine test takes: --work (its build folder) and --keep."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--work", required=True,
                        help="build folder: the Wine prefix, the published apps, the NuGet "
                        "package")
    parser.add_argument("--keep", action="store_true", help="keep each scenario's folder")
    return parser


def chosen_scenarios(names):
    """The scenarios to run among names (in their order): those CLRIE_TEST_WINE_SCENARIOS lists,
    or every one when it is unset. Prints which; exits with an error on a name that is not
    among them."""
    text = os.environ.get(SCENARIOS_VARIABLE, "").strip()
    if not text:
        return list(names)
    wanted = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in names]
    if unknown or not wanted:
        sys.exit("%s=%s: no scenario %s (the scenarios: %s)" % (
            SCENARIOS_VARIABLE, text, ", ".join(unknown) or "named", ", ".join(names)))
    chosen = [name for name in names if name in wanted]
    print("scenarios: %s (%s)" % (",".join(chosen), SCENARIOS_VARIABLE), flush=True)
    return chosen


def wine64_and_dotnet():
    """wine64 and the dotnet host that publishes the apps; without either the test is skipped
    and says why."""
    wine64 = find_wine64()
    dotnet = shutil.which(os.environ.get("CLRIE_DOTNET", "dotnet"))
    if not dotnet:
        skip("no dotnet on this machine: the apps cannot be published")
    return wine64, dotnet


def windows_path(path):
    """The Windows name of a Linux path inside any prefix: Wine maps drive Z: to /."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def read(path):
    """A file's text (what a profiler wrote, say), "" when it was never made."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def lines(text):
    """The lines of a Windows program's text, whatever its line ends."""
    return text.replace("\r\n", "\n").splitlines()


class Result:
    """What one run of a Windows program printed, how it ended and how long it took. stdout
    and stderr are the program's text as it wrote it (Windows line ends included)."""

    def __init__(self, returncode, stdout, stderr, seconds):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.seconds = seconds


def _text(data):
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data or ""


class Prefix:
    """A Wine prefix of a build folder (or CLRIE_TEST_WINEPREFIX's), made by `wineboot -i` the
    first time and reused by every later run; a lock file keeps two tests from making it at
    once. init_seconds: how long making it took in this process, None when it was there."""

    def __init__(self, wine64, build_dir):
        self.wine64 = wine64
        self.path = os.path.abspath(os.environ.get(PREFIX_VARIABLE) or
                                    os.path.join(build_dir, "wineprefix"))
        self.init_seconds = None
        server = os.path.join(os.path.dirname(wine64), "wineserver")
        self.wineserver = server if os.access(server, os.X_OK) else shutil.which("wineserver")

    def environment(self, extra=None):
        """The environment of a Windows program: the caller's without any profiler variable
        (dotnet_apps.quiet_environment), this prefix, Wine quiet, and extra on top."""
        env = dotnet_apps.quiet_environment()
        env.update(WINEPREFIX=self.path, WINEDEBUG="-all")
        env.update(extra or {})
        return env

    def ensure(self):
        """Makes the prefix unless it is ready (made here before, or by Wine itself: it has a
        registry); returns self."""
        ready = os.path.join(self.path, ".clrie-ready")

        def made():
            return os.path.exists(ready) or os.path.exists(os.path.join(self.path, "system.reg"))

        if made():
            return self
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        with open(self.path + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if made():
                return self
            started = time.monotonic()
            # Without Wine's .NET Framework and browser (mscoree, mshtml), wineboot does not
            # try to install Mono and Gecko, which it would download. The apps need mscoree
            # left on: without it CoreCLR cannot load its own assemblies (System.Runtime.dll:
            # "Module not found").
            boot = subprocess.run([self.wine64, "wineboot", "-i"],
                                  env=self.environment({"WINEDLLOVERRIDES": "mscoree,mshtml="}),
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=600)
            # The registry reaches the disk when the server ends.
            self.wait_for_server()
            if boot.returncode != 0:
                sys.exit("wineboot -i in %s failed (exit %d):\n%s" % (
                    self.path, boot.returncode, _text(boot.stdout)))
            self.init_seconds = time.monotonic() - started
            with open(ready, "w") as f:
                f.write("made by wineboot -i in %.1f s\n" % self.init_seconds)
        return self

    def start(self, linger=10):
        """Starts the prefix's wineserver and Wine's own processes (services, devices,
        explorer) with their standard streams on /dev/null, to stay until linger seconds after
        the last program; returns the seconds it took. Without it the first program of each
        run of the server starts them, they inherit its stdout and stderr, and reading those
        to the end waits until the server has gone, some seconds after the program ended.
        Under CLRIE_TEST_WINESERVER_KEPT the caller's server is used as it is."""
        started = time.monotonic()
        kept = os.environ.get(SERVER_KEPT_VARIABLE) == "1"
        # A server still running for programs before ours (the Windows unit tests in the same
        # prefix, a test before this one) would ignore the linger asked for here and quit
        # between our programs; one the caller keeps stays.
        if not kept:
            self.wait_for_server(timeout=30)
        quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, env=self.environment())
        if self.wineserver and not kept:
            subprocess.run([self.wineserver, "-p%d" % linger], timeout=60, **quiet)
        subprocess.run([self.wine64, "cmd", "/c", "exit"], timeout=120, **quiet)
        return time.monotonic() - started

    def wait_for_server(self, timeout=120):
        """Waits until the prefix's wineserver has ended (a few seconds after its last
        program), or timeout seconds."""
        if self.wineserver:
            try:
                subprocess.run([self.wineserver, "-w"], env=self.environment(),
                               stdin=subprocess.DEVNULL, timeout=timeout)
            except subprocess.TimeoutExpired:
                pass

    def run(self, program, args=(), env=None, timeout=120, cwd=None):
        """Runs the Windows program (a Linux path) under wine64 with the environment extra
        variables env, in the folder cwd (a Linux path; Windows sees it through Z:); returns a
        Result. A program still running after timeout seconds is killed, and its Result has
        exit code -1 and says so on stderr."""
        command = [self.wine64, program, *args]
        started = time.monotonic()
        process = subprocess.Popen(command, env=self.environment(env), stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   start_new_session=True, cwd=cwd)
        try:
            stdout, stderr = process.communicate(timeout=timeout)
            returncode = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            returncode = -1
            stderr = _text(stderr) + "\n[%s did not finish in %d s]" % (program, timeout)
        return Result(returncode, _text(stdout), _text(stderr), time.monotonic() - started)

    def linux_path(self, path):
        """The Linux path of a Windows path of this prefix ("C:\\users\\...", "Z:\\tmp\\..."),
        through the prefix's drive links (dosdevices)."""
        drive = os.path.realpath(os.path.join(self.path, "dosdevices", path[:2].lower()))
        return os.path.join(drive, *[part for part in path[2:].split("\\") if part])

    def process_ids(self):
        """The Windows process IDs of the programs running in the prefix, by the lower-case
        name of their program ("services.exe": [56]), as Wine's wmic lists them."""
        result = self.run("wmic", ["process", "get", "name,processid"], timeout=60)
        ids = {}
        for line in lines(result.stdout.replace("\0", "")):  # wmic writes UTF-16 to a pipe
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit():
                ids.setdefault(parts[0].lower(), []).append(int(parts[1]))
        return ids


def _sources_digest(folders, arguments):
    """A digest of the app's sources (every file of its folder and of its libraries' folders,
    but bin/ and obj/) and of the publish command's arguments: the published app is reused
    while it stays the same."""
    digest = hashlib.sha256("\0".join(arguments).encode())
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d not in ("bin", "obj"))
            for name in sorted(files):
                path = os.path.join(root, name)
                digest.update(os.path.relpath(path, os.path.dirname(folder)).encode() + b"\0")
                with open(path, "rb") as f:
                    digest.update(f.read())
    return digest.hexdigest()


def publish(dotnet, project, out_root):
    """Publishes the C# project (a .csproj path) self-contained for win-x64 into
    out_root/win-x64/<tfm>/<name>/ and returns the path of its <name>.exe. The runtime pack
    is the one the SDK chooses for the SDK's .NET or, with CLRIE_TEST_RUNTIME=<major>, for that
    major version (as the runtime matrix picks its packs), restored from NuGet. Nothing is done
    when the sources and the arguments are as at the last publish. When NuGet cannot serve the
    packs, the test is skipped (it fails under CI). Returns (exe, seconds spent publishing,
    0 when reused)."""
    name = os.path.splitext(os.path.basename(project))[0]
    major = dotnet_apps.test_runtime()
    tfm = "net%s.0" % major if major else "sdk"
    out = os.path.join(out_root, RID, tfm, name)
    obj = os.path.join(out_root, "obj-%s-%s" % (RID, tfm), name)
    arguments = ["-c", "Release", "-r", RID, "--self-contained", "-o", out, "--nologo", "-v", "q",
                 "-p:BaseIntermediateOutputPath=" + obj + "/"]
    if major:
        # TargetFrameworks (plural) reaches the restore, which ignores a global TargetFramework.
        arguments += ["-p:TargetFrameworks=" + tfm, "-f", tfm]
    # An app with libraries of its own (dotnet_apps.LIBRARIES: traced and tracedlib) references
    # each by a path beside its build output, $(OutDir)../<library>/: each is built (for the
    # .NET version, not for a RID: it is IL only) into a folder beside the app's build output.
    libraries = dotnet_apps.LIBRARIES.get(name, ())
    library_root = os.path.join(out_root, RID, tfm, "libraries")
    if libraries:
        arguments.append("-p:OutDir=" + os.path.join(library_root, name) + "/")
    exe = os.path.join(out, name + ".exe")
    stamp = os.path.join(out_root, RID, tfm, name + ".sources")
    digest = _sources_digest([os.path.dirname(os.path.abspath(project))] +
                             [os.path.join(dotnet_apps.APPS, library) for library in libraries],
                             arguments)
    try:
        with open(stamp) as f:
            if f.read().strip() == digest and os.path.isfile(exe):
                return exe, 0.0
    except FileNotFoundError:
        pass
    started = time.monotonic()
    for library in libraries:
        built = dotnet_apps.build_library(
            dotnet, os.path.join(dotnet_apps.APPS, library, library + ".csproj"), library,
            os.path.join(out_root, RID, "libraries"))
        os.makedirs(os.path.join(library_root, library), exist_ok=True)
        shutil.copyfile(built, os.path.join(library_root, library, library + ".dll"))
    result = subprocess.run([dotnet, "publish", project, *arguments],
                            env=dotnet_apps.quiet_environment(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    seconds = time.monotonic() - started
    if result.returncode != 0:
        if "error NU1" in result.stdout:
            skip("cannot restore the .NET %s packs for %s from NuGet:\n%s" % (
                major or "(the SDK's)", RID, result.stdout))
        sys.exit("publishing %s for %s failed:\n%s" % (project, RID, result.stdout))
    with open(stamp, "w") as f:
        f.write(digest + "\n")
    return exe, seconds


def app_runtime(exe):
    """The .NET version a published app carries, from its runtimeconfig.json."""
    configs = glob.glob(os.path.join(os.path.dirname(exe), "*.runtimeconfig.json"))
    if configs:
        with open(configs[0]) as f:
            options = json.load(f).get("runtimeOptions", {})
        for framework in options.get("includedFrameworks", []):
            if framework.get("name") == "Microsoft.NETCore.App":
                return framework["version"]
    return "unknown"


def announce_runtime(exe):
    """The 'runtime: ...' line test/run shows beside the test's result."""
    print("runtime: .NET %s (self-contained %s, runtime pack from NuGet, under wine64)" % (
        app_runtime(exe), RID), flush=True)


def microsoft_clrie(dotnet, out_root):
    """Microsoft's CLRIE for Windows x64 (MicrosoftInstrumentationEngine_x64.dll) from the
    package Microsoft.CodeCoverage, restored into out_root; raises clrie_package.Missing."""
    return clrie_package.restore(dotnet, out_root, CLRIE_WINDOWS, folder=("x64",))


def profiler_environment(engine, log_path=None, configs=None):
    """The variables that make CoreCLR load the engine (a Linux path) as its profiler, with
    CLRIE's variables: log level Errors into log_path (a Linux path), and one
    ConfigPath64_<name> per entry of configs {name: Linux path}. Signature checks are off:
    the test plugins are not signed."""
    env = {"CORECLR_ENABLE_PROFILING": "1",
           "CORECLR_PROFILER": dotnet_apps.PROFILER_CLSID,
           "CORECLR_PROFILER_PATH": windows_path(engine),
           "MicrosoftInstrumentationEngine_DisableCodeSignatureValidation": "1"}
    if log_path:
        env["MicrosoftInstrumentationEngine_LogLevel"] = "Errors"
        env["MicrosoftInstrumentationEngine_FileLogPath"] = windows_path(log_path)
    for name, path in (configs or {}).items():
        env[dotnet_apps.CONFIG_VAR + name] = windows_path(path)
    return env
