"""Microsoft's code coverage, collector and all, run through clrie: `dotnet test --collect
"Code Coverage"` on a test project of our own (test/dotnet/covtests: tests that throw, divide
by zero, filter, await, iterate, run in parallel, and start a .NET child process), once as
Microsoft ships it (its collector starts the test host under the CLRIE of the package
Microsoft.CodeCoverage, with the coverage plugin libCoverageInstrumentationMethod.so), once
with the runsettings' <CLRIEX64InstallDir> naming a folder that holds clrie's engine under
CLRIE's file name beside the package's plugin and Cov_x64.config, as a user who swaps the
engine would.

Checks: every test passes in both runs; the test host of the clrie run mapped clrie's engine
from that folder, and the stock run the package's CLRIE (a test of the project writes the
engines in /proc/self/maps to a file); both runs give a coverage report, in Cobertura and in
Microsoft's XML, that covers lines of the project and leaves the ones no test reaches; and the
two reports are the same: every method's covered, partly covered and uncovered lines and
blocks. The child process's output is its own in both (with the profiler inherited from the
test host, as under the collector every .NET child is).

Runs on the SDK's runtime only (the collector starts a framework-dependent test host): with
CLRIE_TEST_RUNTIME set it is skipped and says so.

Usage: test_coverage_collector.py --engine SO --apps-out DIR [--keep]
Exit: 0 passed, 1 a check failed, 77 skipped (no dotnet; another runtime asked for; the
packages cannot be restored, unless CI=true)."""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.join(HERE, "covtests", "covtests.csproj")
OFFLINE_PACKAGES = "/opt/nuget/packages"
SUMMARY = re.compile(r"(Passed|Failed)!\s+- Failed:\s+(\d+), Passed:\s+(\d+), Skipped:\s+(\d+), "
                     r"Total:\s+(\d+)")

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--engine", required=True, help="the built libInstrumentationEngine.so")
parser.add_argument("--apps-out", required=True, help="where the projects are built")
parser.add_argument("--keep", action="store_true", help="keep the runs' folder")
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, ("engine",), folders=("apps_out",))
if dotnet_apps.test_runtime():
    print("skipped: the collector starts a test host on the SDK's framework; %s=%s asks for "
          "another runtime" % (dotnet_apps.RUNTIME_VARIABLE, dotnet_apps.test_runtime()))
    sys.exit(dotnet_apps.SKIP)


def build_tests():
    """Builds covtests; returns (its assembly, the folder of Microsoft.CodeCoverage's build
    files that its restore chose)."""
    out = os.path.join(args.apps_out, "covtests")
    obj = os.path.join(args.apps_out, "obj", "covtests")
    extra = []
    if os.path.isdir(OFFLINE_PACKAGES):
        extra.append("-p:RestoreAdditionalProjectSources=" + OFFLINE_PACKAGES)
    result = subprocess.run(
        [dotnet, "build", PROJECT, "-c", "Release", "-o", out, "--nologo", "-v", "q",
         "-p:BaseIntermediateOutputPath=" + obj + "/", *extra],
        env=dotnet_apps.quiet_environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    if result.returncode != 0:
        if "error NU1" in result.stdout and os.environ.get("CI", "").lower() not in ("1", "true"):
            print("the test packages cannot be restored: skipped\n" + result.stdout)
            sys.exit(dotnet_apps.SKIP)
        sys.exit("building covtests failed:\n" + result.stdout)
    with open(os.path.join(obj, "project.assets.json")) as f:
        assets = json.load(f)
    coverage = next(k for k in assets["libraries"] if k.lower().startswith("microsoft.codecoverage/"))
    relative = assets["libraries"][coverage]["path"]
    for folder in assets["packageFolders"]:
        build = os.path.join(folder, relative, "build", "netstandard2.0")
        if os.path.isdir(build):
            print("collector: %s from %s" % (coverage, build), flush=True)
            return os.path.join(out, "covtests.dll"), build
    sys.exit("no build folder of %s in %s" % (coverage, assets["packageFolders"]))


def runsettings(path, install_dir=None):
    """A runsettings file for the Code Coverage collector: dynamic instrumentation only, the
    report in Cobertura and Microsoft's XML; with install_dir, the engine's folder."""
    install = ("          <CLRIEX64InstallDir>%s</CLRIEX64InstallDir>\n" % install_dir
               if install_dir else "")
    with open(path, "w") as f:
        f.write("""<?xml version="1.0" encoding="utf-8"?>
<RunSettings>
  <DataCollectionRunSettings>
    <DataCollectors>
      <DataCollector friendlyName="Code Coverage">
        <Configuration>
%s          <Format>cobertura,xml</Format>
          <IncludeTestAssembly>True</IncludeTestAssembly>
          <DeterministicReport>True</DeterministicReport>
          <CodeCoverage>
            <EnableStaticManagedInstrumentation>False</EnableStaticManagedInstrumentation>
            <EnableDynamicManagedInstrumentation>True</EnableDynamicManagedInstrumentation>
          </CodeCoverage>
        </Configuration>
      </DataCollector>
    </DataCollectors>
  </DataCollectionRunSettings>
</RunSettings>
""" % install)
    return path


class Run:
    """One `dotnet test --collect "Code Coverage"`: its output, the tests' summary, the engines
    the test host mapped, and the two reports."""

    def __init__(self, name, settings):
        self.name = name
        results = box.path("results-" + name)
        maps = box.path("maps-" + name + ".txt")
        env = dotnet_apps.quiet_environment()
        env.update(CLRIE_COVTESTS_MAPS=maps, CLRIE_COVTESTS_CHILD=child)
        self.process = subprocess.run(
            [dotnet, "test", tests, "--test-adapter-path", collector, "--collect", "Code Coverage",
             "--settings", settings, "--results-directory", results],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        summary = SUMMARY.search(self.process.stdout)
        self.failed, self.passed = (int(summary.group(2)), int(summary.group(3))) if summary \
            else (None, None)
        self.engines = dotnet_apps.read_lines(maps)
        self.cobertura = sorted(glob.glob(os.path.join(results, "*", "*.cobertura.xml")))
        self.xml = sorted(x for x in glob.glob(os.path.join(results, "*", "*.xml"))
                          if not x.endswith(".cobertura.xml"))
        print("%s: %s passed, %s failed; engine %s; reports %s" % (
            name, self.passed, self.failed, ", ".join(self.engines) or "(none)",
            ", ".join(os.path.basename(r) for r in self.cobertura + self.xml) or "(none)"),
            flush=True)


def functions(path):
    """Microsoft's XML report as {(module, type, function): (blocks covered, not covered,
    lines covered, partly covered, not covered, [(start line, end line, covered)])}."""
    table = {}
    for module in ElementTree.parse(path).getroot().iter("module"):
        for function in module.iter("function"):
            ranges = [(r.get("start_line"), r.get("end_line"), r.get("covered"))
                      for r in function.iter("range")]
            table[(module.get("name"), function.get("type_name"), function.get("name"))] = (
                function.get("blocks_covered"), function.get("blocks_not_covered"),
                function.get("lines_covered"), function.get("lines_partially_covered"),
                function.get("lines_not_covered"), ranges)
    return table


def lines(path):
    """The Cobertura report as {(class, method, signature): [(line, hits, branch, condition
    coverage)]}."""
    table = {}
    for cls in ElementTree.parse(path).getroot().iter("class"):
        for method in cls.iter("method"):
            table[(cls.get("name"), method.get("name"), method.get("signature"))] = [
                (l.get("number"), l.get("hits"), l.get("branch"), l.get("condition-coverage"))
                for l in method.iter("line")]
    return table


def compare(what, stock, clrie):
    """Same keys, same values; prints the differences (at most 20)."""
    differences = []
    for key in sorted(set(stock) | set(clrie), key=str):
        if stock.get(key) != clrie.get(key):
            differences.append("  %s\n    CLRIE: %s\n    clrie: %s" % (key, stock.get(key),
                                                                        clrie.get(key)))
    checks.expect(not differences, "%s: the same under CLRIE and clrie (%d differ)%s" % (
        what, len(differences), "\n" + "\n".join(differences[:20]) if differences else ""))
    return not differences


tests, collector = build_tests()
child = dotnet_apps.build_app(dotnet, "hello", args.apps_out)
box = dotnet_apps.Sandbox("clrie-coverage-collector", "runs", keep=args.keep)
try:
    package_engine = os.path.join(collector, "ubuntu", "x64")
    install = box.path("clrie-x64")
    os.makedirs(install, mode=0o755)
    box.copy(args.engine, "clrie-x64/libInstrumentationEngine.so")
    box.copy(os.path.join(package_engine, "libCoverageInstrumentationMethod.so"),
             "clrie-x64/libCoverageInstrumentationMethod.so")
    box.copy(os.path.join(package_engine, "Cov_x64.config"), "clrie-x64/Cov_x64.config",
             mode=0o644)

    stock = Run("CLRIE", runsettings(box.path("stock.runsettings")))
    ours = Run("clrie", runsettings(box.path("clrie.runsettings"), install))

    for run, engine in ((stock, os.path.join(package_engine, "libInstrumentationEngine.so")),
                        (ours, os.path.join(install, "libInstrumentationEngine.so"))):
        checks.expect(run.failed == 0 and run.passed and run.passed >= 25,
                      "%s: every test passes (25 or more)" % run.name,
                      seen=run.process.stdout[-3000:])
        checks.expect([os.path.realpath(e) for e in run.engines] == [os.path.realpath(engine)],
                      "%s: the test host loaded %s" % (run.name, engine), seen=run.engines)
        checks.expect(len(run.cobertura) == 1 and len(run.xml) == 1,
                      "%s: one Cobertura and one XML report" % run.name,
                      seen=run.process.stdout[-3000:])
    if all(len(r.cobertura) == 1 and len(r.xml) == 1 for r in (stock, ours)):
        stock_functions, our_functions = functions(stock.xml[0]), functions(ours.xml[0])
        library = {k: v for k, v in stock_functions.items() if k[1] == "Library"}
        covered = sum(int(v[0]) for v in library.values())
        uncovered = sum(int(v[1]) for v in library.values())
        checks.expect(covered > 20 and uncovered > 0,
                      "CLRIE's report covers blocks of Library and leaves some (%d covered, %d "
                      "not)" % (covered, uncovered))
        same = compare("every method's blocks and lines (XML)", stock_functions, our_functions)
        same &= compare("every method's lines and branches (Cobertura)",
                        lines(stock.cobertura[0]), lines(ours.cobertura[0]))
        if same:
            print("the reports are the same: %d methods, %d blocks covered and %d not in "
                  "Library" % (len(stock_functions), covered, uncovered))
finally:
    box.close()

sys.exit(checks.finish("Microsoft's coverage collector and plugin give the same report through "
                       "clrie as through CLRIE, every test passing"))
