"""The engine's JIT and ReJIT pipelines in the real CoreCLR: the pipeline app runs
under the engine with test/plugins/pipeline_probe.c, whose edits show in the app's output.

  - a rewrite applied at the first JIT changes what a method returns (41 -> 42), and the
    plugin's JitComplete2 sees it transformed with an IL map;
  - a plugin whose InstrumentMethod fails leaves its method unchanged, with an error line;
  - IL that does not verify (stack underflow) is not given to the runtime: the method runs
    unchanged and the error names the method and offset;
  - IModuleInfo::RequestRejit from a plugin thread leads to GetReJITParameters, where the
    plugin's edit is applied (1 -> 2), with the ReJIT count; RequestRevert brings the original
    back (2 -> 1), and a second rejit starts again from the original IL (1 -> 2, not 3);
  - CreateBaseline in BeforeInstrumentMethod replaces the code (and is refused later);
  - AllowInlineSite = FALSE is asked and honoured without changing behaviour;
  - two methods jitted at once on two threads are inside InstrumentMethod at the same time
    (no process-wide lock around the pipeline, unlike CLRIE);
  - a plugin may push more configuration with IProfilerManager::SetupProfilingEnvironment;
  - with LogLevel Messages and Dumps the log has the per-method timing line and a readable
    dump of the instrumented method.
The same app without a profiler is the baseline.

Usage: test_pipeline.py --engine SO --probe SO --apps-out DIR [--keep]
Exit: 0 all passed, 1 a check failed, 77 no dotnet on this machine."""
import argparse
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402
import stress_runs  # noqa: E402

PROBE = "{A1B2C3D4-0000-4000-8000-00000000FEED}"

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--engine", required=True)
parser.add_argument("--probe", required=True)
parser.add_argument("--apps-out", required=True)
parser.add_argument("--keep", action="store_true")
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, ("engine", "probe"), folders=("apps_out",))
app = dotnet_apps.build_app(dotnet, "pipeline", args.apps_out)

workdir = os.path.realpath(tempfile.mkdtemp(prefix="clrie-pipeline-"))
os.chmod(workdir, 0o755)
probe = os.path.join(workdir, "probe.so")
shutil.copyfile(args.probe, probe)
os.chmod(probe, 0o755)
config = os.path.join(workdir, "probe.config")
with open(config, "w") as f:
    f.write("<InstrumentationEngineConfiguration>\n"
            "  <InstrumentationMethod>\n"
            "    <Name>PipelineProbe</Name>\n"
            "    <Module>probe.so</Module>\n"
            "    <ClassGuid>%s</ClassGuid>\n"
            "    <Priority>10</Priority>\n"
            "  </InstrumentationMethod>\n"
            "</InstrumentationEngineConfiguration>\n" % PROBE)
os.chmod(config, 0o644)
probe_file = os.path.join(workdir, "probe.txt")
engine_log = os.path.join(workdir, "engine.log")

print("== baseline: the pipeline app without a profiler")
baseline = dotnet_apps.run_app(dotnet, app)
expected_base = ["answer 41", "failing 7", "invalid 8", "replaced 5", "inline 42", "concurrent 30",
                 "rejitted 1", "reverted 1", "rejitted again 1"]
checks.expect(baseline.returncode == 5 and baseline.stdout.splitlines() == expected_base,
              "baseline prints %s and exits 5" % expected_base,
              seen=(baseline.returncode, baseline.stdout))

print("== engine + pipeline probe")
env = {"MicrosoftInstrumentationEngine_ConfigPath64_Probe": config,
       "MicrosoftInstrumentationEngine_LogLevel": "Errors|Messages|Dumps",
       "MicrosoftInstrumentationEngine_FileLogPath": engine_log,
       "CLRIE_PIPELINE_PROBE_FILE": probe_file}
result = dotnet_apps.run_app(dotnet, app, profiler_path=args.engine, extra_env=env)
out = result.stdout.splitlines()
log = "\n".join(dotnet_apps.read_lines(engine_log)) + "\n" + result.stderr
probe_lines = dotnet_apps.read_lines(probe_file)

checks.expect(result.returncode == 5, "the app still exits 5", seen=result.returncode)
checks.expect("answer 42" in out, "Answer() was rewritten at its first JIT (41 -> 42)",
              seen=out)
checks.expect("failing 7" in out, "Failing() runs unchanged after InstrumentMethod failed",
              seen=out)
checks.expect("invalid 8" in out, "Invalid() runs unchanged: its broken IL was refused",
              seen=out)
checks.expect("replaced 100" in out,
              "Replaced(): CreateBaseline's code (99), then InstrumentMethod's edit (+1)",
              seen=out)
checks.expect("inline 42" in out, "CallsSmall() computes the same with inlining vetoed",
              seen=out)
checks.expect("concurrent 32" in out,
              "ConcurrentA and ConcurrentB were both rewritten (+1 each)", seen=out)
checks.expect("rejitted 2" in out, "Rejitted() returns the rejitted body's value (1 -> 2)",
              seen=out)
checks.expect("reverted 1" in out, "after RequestRevert Rejitted() is the original again",
              seen=out)
checks.expect("rejitted again 2" in out,
              "a second RequestRejit instruments it again (from the original IL)", seen=out)
checks.expect("InvalidProgramException" not in result.stderr, "no InvalidProgramException",
              seen=result.stderr[-2000:])

checks.expect(re.search(r"plugin 'PipelineProbe' \{[0-9A-F-]+\}: InstrumentMethod failed for "
                        r"Program\.Failing \(hr 0x80004005\)", log) is not None,
              "the failing plugin is named with the method and hr", seen=log[-3000:])
checks.expect(re.search(r"Program\.Invalid: instrumented IL is invalid at IL_0000: ", log)
              is not None,
              "the refused IL is reported with the method and offset", seen=log[-3000:])
for line in ("instrument Program.Answer rejit=0 count=0",
             "complete Program.Answer rejit=0",
             "requestrejit Program.Rejitted hr=0x00000000",
             "instrument Program.Rejitted rejit=1 count=1",
             "requestrevert Program.Rejitted hr=0x00000000 status=0x00000000",
             "instrument Program.Rejitted rejit=1 count=2",
             "complete Program.Rejitted rejit=1",
             "noinline Program.Small into Program.CallsSmall",
             "baseline Program.Replaced before=0x00000000 late=0x80004005",
             "concurrent Program.ConcurrentA met=1",
             "concurrent Program.ConcurrentB met=1"):
    checks.expect(line in probe_lines, "the probe recorded '%s'" % line, seen=probe_lines)
checks.expect(not any(l.startswith("complete Program.Failing") for l in probe_lines),
              "no OnInstrumentationComplete after a failed InstrumentMethod (as CLRIE)",
              seen=probe_lines)
checks.expect("complete Program.Invalid rejit=0" in probe_lines,
              "OnInstrumentationComplete for the method whose IL the engine refused (CLRIE "
              "would have applied it, then called it)", seen=probe_lines)
answer_jit = [l for l in probe_lines if l.startswith("jitcomplete Program.Answer rejit=0")]
checks.expect(any(re.search(r"transformed=1 map=[1-9][0-9]* hr=0x00000000", l)
                  for l in answer_jit),
              "JitComplete2 for Answer: transformed, with an IL map, JIT succeeded",
              seen=answer_jit)
failing_jit = [l for l in probe_lines if l.startswith("jitcomplete Program.Failing")]
checks.expect(failing_jit and all("transformed=0" in l for l in failing_jit),
              "JitComplete2 for Failing: not transformed", seen=failing_jit)
replaced_jit = [l for l in probe_lines if l.startswith("jitcomplete Program.Replaced rejit=0")]
checks.expect(any("transformed=1 map=1 " in l for l in replaced_jit),
              "after CreateBaseline the IL map covers the one sequence point", seen=replaced_jit)
rejit_jit = [l for l in probe_lines if l.startswith("jitcomplete Program.Rejitted rejit=1")]
checks.expect(any("transformed=1" in l for l in rejit_jit),
              "JitComplete2 after the ReJIT: transformed", seen=rejit_jit)

timing = [t for t in stress_runs.instrumentation_times(engine_log) if t[0] == "Program.Answer"]
checks.expect(timing, "the Messages log times each instrumented method", seen=log[-2000:])
# Every step is named, and the steps are parts of the whole (each figure is rounded to 0.1).
checks.expect(all(tuple(steps) == stress_runs.STEPS and
                  sum(steps.values()) <= wall + 0.05 * len(steps) and steps["plugins"] > 0
                  for _, wall, _, steps in timing),
              "the time of each step (plugins, locals signature, verify, body, IL map), within "
              "the whole", seen=timing)
dump = [l for l in log.splitlines() if "] Program.Answer: " in l or
        re.search(r"^\[\S+![0-9a-f]+ 0x06[0-9A-F]{6}\]   IL_", l)]
checks.expect(any("Program.Answer: " in l and "max stack" in l for l in dump) and
              any(re.search(r"IL_[0-9A-F]{4}: add\s", l) for l in dump) and
              any("IL map:" in l for l in log.splitlines()),
              "the Dumps log shows Answer's header, its new add and the IL map",
              seen=dump[:20])

print("== errors reach stderr with no logging configured")
env2 = {"MicrosoftInstrumentationEngine_ConfigPath64_Probe": config}
plain = dotnet_apps.run_app(dotnet, app, profiler_path=args.engine, extra_env=env2)
checks.expect(plain.returncode == 5 and "answer 42" in plain.stdout.splitlines(),
              "rewrites apply without any logging", seen=(plain.returncode, plain.stdout))
checks.expect("Program.Invalid: instrumented IL is invalid" in plain.stderr and
              "InstrumentMethod failed for Program.Failing" in plain.stderr,
              "both failures are on stderr", seen=plain.stderr[-2000:])

print("== a plugin pushes more configuration (IProfilerManager::SetupProfilingEnvironment)")
pushed = os.path.join(workdir, "pushed.config")
with open(pushed, "w") as f:
    f.write("<InstrumentationEngineConfiguration>\n"
            "  <InstrumentationMethod>\n"
            "    <Name>PushedProbe</Name>\n"
            "    <Module>probe.so</Module>\n"
            "    <ClassGuid>{A1B2C3D4-0000-4000-8000-00000000BEEF}</ClassGuid>\n"
            "    <Priority>20</Priority>\n"
            "  </InstrumentationMethod>\n"
            "</InstrumentationEngineConfiguration>\n")
os.chmod(pushed, 0o644)
push_file = os.path.join(workdir, "push.txt")
env3 = {"MicrosoftInstrumentationEngine_ConfigPath64_Probe": config,
        "CLRIE_PIPELINE_PROBE_FILE": push_file, "CLRIE_PIPELINE_PROBE_PUSH": pushed}
both = dotnet_apps.run_app(dotnet, app, profiler_path=args.engine, extra_env=env3)
push_lines = dotnet_apps.read_lines(push_file)
checks.expect(push_lines.count("initialize") == 2 and "push hr=0x00000000" in push_lines,
              "the pushed config's plugin is loaded and initialised", seen=push_lines[:6])
checks.expect(both.returncode == 5 and "answer 43" in both.stdout.splitlines(),
              "both instances instrument Answer (41 + 1 + 1)",
              seen=(both.returncode, both.stdout))
missing = os.path.join(workdir, "no-such.config")
env4 = dict(env3, CLRIE_PIPELINE_PROBE_PUSH=missing,
            CLRIE_PIPELINE_PROBE_FILE=os.path.join(workdir, "push-missing.txt"))
bad = dotnet_apps.run_app(dotnet, app, profiler_path=args.engine, extra_env=env4)
bad_lines = dotnet_apps.read_lines(os.path.join(workdir, "push-missing.txt"))
checks.expect("push hr=0x80004005" in bad_lines and missing in bad.stderr and
              "answer 42" in bad.stdout.splitlines(),
              "a pushed path that does not exist fails with E_FAIL, is named on stderr, and "
              "the plugins already loaded keep working", seen=(bad_lines[:4], bad.stderr[-800:]))

if args.keep:
    print("kept", workdir)
else:
    shutil.rmtree(workdir, ignore_errors=True)
sys.exit(checks.finish("pipeline"))
