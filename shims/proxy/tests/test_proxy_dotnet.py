"""The proxy inside the real CoreCLR: with no engine installed the app must run unchanged and
the proxy must say why it loaded nothing; the runtime must cope with the failure HRESULT."""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, sys.argv[3])
import dotnet_apps  # noqa: E402

proxy_built, out_root, arch_folder = sys.argv[1], sys.argv[2], sys.argv[4]
dotnet = dotnet_apps.find_dotnet(os.environ.get("CLRIE_DOTNET", "dotnet"))
app = dotnet_apps.build_app(dotnet, "hello", out_root)
failures = []


def expect(condition, what, result=None):
    if not condition:
        detail = ""
        if result is not None:
            detail = "\n  exit %d\n  stdout: %r\n  stderr: %r" % (
                result.returncode, result.stdout, result.stderr)
        failures.append(what + detail)


baseline = dotnet_apps.run_app(dotnet, app)
expect(baseline.returncode == 3 and "hello from .NET" in baseline.stdout,
       "the app runs without a profiler", baseline)

with tempfile.TemporaryDirectory() as root:
    proxy = os.path.join(root, "Proxy", "v1", "libInstrumentationEngine.ProfilerProxy.so")
    os.makedirs(os.path.dirname(proxy))
    shutil.copy(proxy_built, proxy)
    os.makedirs(os.path.join(root, "1.0.0", arch_folder))  # no engine file in it

    attached = dotnet_apps.run_app(dotnet, app, profiler_path=proxy)
    expect(attached.returncode == baseline.returncode, "exit code unchanged", attached)
    expect(attached.stdout == baseline.stdout, "stdout unchanged", attached)
    expect("a line on stderr" in attached.stderr, "the app's stderr still arrives", attached)
    expect("clrie proxy: no eligible engine under '%s'" % os.path.realpath(root)
           in attached.stderr, "the proxy names the root it searched", attached)
    expect("'1.0.0' engine file missing" in attached.stderr,
           "the proxy says why 1.0.0 was refused", attached)

    log = os.path.join(root, "engine.log")
    logged = dotnet_apps.run_app(dotnet, app, profiler_path=proxy, extra_env={
        "MicrosoftInstrumentationEngine_FileLogPath": log})
    expect(logged.stdout == baseline.stdout and logged.returncode == baseline.returncode,
           "app unchanged with a log file", logged)
    text = open(log).read() if os.path.exists(log) else ""
    expect("no eligible engine" in text and "clrie proxy" not in logged.stderr,
           "the failure goes to the log file instead of stderr: %r" % text, logged)

for f in failures:
    print("FAILED:", f)
print("%d checks failed" % len(failures) if failures else "the runtime ran the app unchanged "
      "through the proxy with no engine, and the proxy explained why")
sys.exit(1 if failures else 0)
