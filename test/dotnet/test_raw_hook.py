"""The raw-hook test profiler (test/plugins/raw_hook.c) as the process's only profiler, with
no engine: proves the hook itself works in the real runtime, so a failure of the engine's
raw-hook scenario points at the engine.

Arguments: RAW_HOOK_SO APPS_BUILD_DIR"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

raw_hook, out_root = sys.argv[1], sys.argv[2]
dotnet = dotnet_apps.find_dotnet(os.environ.get("CLRIE_DOTNET", "dotnet"))
checks = dotnet_apps.Checks()
hello = dotnet_apps.build_app(dotnet, "hello", out_root)
baseline = dotnet_apps.run_app(dotnet, hello)

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "raw.txt")
    run = dotnet_apps.run_app(dotnet, hello, profiler_path=raw_hook,
                              extra_env={"CLRIE_RAW_HOOK_FILE": out})
    lines = dotnet_apps.read_lines(out)
    checks.expect(run.returncode == baseline.returncode and run.stdout == baseline.stdout,
                  "the app runs unchanged under the raw hook", run)
    checks.expect(lines[:1] == ["raw Initialize"], "raw Initialize comes first", seen=lines)
    checks.expect("raw ModuleLoadFinished hello.dll" in lines,
                  "the hook sees the app's module load", seen=lines)
    checks.expect(lines[-1:] == ["raw Shutdown"], "raw Shutdown comes last", seen=lines)

sys.exit(checks.finish("the raw hook works as a plain CoreCLR profiler"))
