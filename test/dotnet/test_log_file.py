"""A hostile MicrosoftInstrumentationEngine_FileLogPath in the real runtime, through the engine
and through the proxy (which loads the engine, and logs with the same code): the app's output
and exit code stay as without a profiler, and stderr says what happened to the log.

  fifo     a FIFO nobody reads: startup must not hang; the log file is refused
  link     a link, in a folder anybody can write to, to another file: not followed
  full     /dev/full: every write fails; the log falls back to stderr once, saying so

Usage: test_log_file.py --engine SO --proxy SO --apps-out DIR --arch-folder NAME"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

TIMEOUT = 120  # the app takes a second or two; a hang in open() would take for ever

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--engine", required=True)
parser.add_argument("--proxy", required=True)
parser.add_argument("--apps-out", required=True)
parser.add_argument("--arch-folder", required=True)
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, ("engine", "proxy"), folders=("apps_out",))
app = dotnet_apps.build_app(dotnet, "hello", args.apps_out)
baseline = dotnet_apps.run_app(dotnet, app)


def run(profiler, log_path):
    """Runs hello with the profiler and the log path; a hang is a result, not a stalled test."""
    env = dotnet_apps.quiet_environment()
    env.update(CORECLR_ENABLE_PROFILING="1", CORECLR_PROFILER=dotnet_apps.PROFILER_CLSID,
               CORECLR_PROFILER_PATH=profiler,
               MicrosoftInstrumentationEngine_FileLogPath=log_path,
               MicrosoftInstrumentationEngine_LogLevel="Messages")
    try:
        return subprocess.run([dotnet, app], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as error:
        return dotnet_apps.Hung(error)


def lines_with(text, needle):
    return [line for line in text.splitlines() if needle in line]


def expect_lines(what, result, needle, tagged):
    """One line with needle from the engine, and with the proxy also one tagged line from it."""
    found = lines_with(result.stderr, needle)
    from_proxy = [line for line in found if "]:clrie proxy: " in line]
    checks.expect(len(found) == (2 if tagged else 1) and len(from_proxy) == (1 if tagged else 0),
                  "%s: %s one line from the engine%s with %r" % (
                      what, "exactly", " and one from the proxy" if tagged else "", needle),
                  result)


def scenarios(name, profiler, sb, tagged):
    what = "%s (fifo)" % name
    fifo = sb.path("fifo.log")
    os.mkfifo(fifo)
    result = run(profiler, fifo)
    checks.same_as_baseline(what, result, baseline, stderr="contained")
    expect_lines(what, result, "cannot open the log file '%s' (it is a FIFO, not a regular file "
                 "or a character device); logging to stderr" % fifo, tagged)

    what = "%s (link)" % name
    victim = sb.write("victim.txt", "precious\n")
    shared = sb.path("shared")
    os.mkdir(shared)
    os.chmod(shared, 0o777)
    link = os.path.join(shared, "engine.log")
    os.symlink(victim, link)
    result = run(profiler, link)
    checks.same_as_baseline(what, result, baseline, stderr="contained")
    expect_lines(what, result, "cannot open the log file '%s' (it is a symbolic link in a folder "
                 "that group or others can write to); logging to stderr" % link, tagged)
    with open(victim) as f:
        kept = f.read()
    checks.expect(kept == "precious\n", "%s: the file the link names is untouched" % what,
                  seen=kept)

    what = "%s (/dev/full)" % name
    result = run(profiler, "/dev/full")
    checks.same_as_baseline(what, result, baseline, stderr="contained")
    expect_lines(what, result, "writing to the log file '/dev/full' failed (No space left on "
                 "device); logging to stderr from now on", tagged)
    checks.expect(len(lines_with(result.stderr, "LogMessage[")) > 0,
                  "%s: the lines the file did not take reach stderr" % what, result)


sb = dotnet_apps.Sandbox("clrie-log", "engine")
try:
    scenarios("engine", args.engine, sb, tagged=False)
finally:
    sb.close()

sb = dotnet_apps.Sandbox("clrie-log", "proxy")
try:
    proxy = sb.copy(args.proxy, "root/Proxy/v1/libInstrumentationEngine.ProfilerProxy.so")
    sb.copy(args.engine, "root/1.0.0/%s/libInstrumentationEngine.so" % args.arch_folder)
    scenarios("proxy", proxy, sb, tagged=True)
finally:
    sb.close()

sys.exit(checks.finish("a FIFO, a planted link and /dev/full as the log file leave the app "
                       "unchanged, through the engine and through the proxy"))
