"""Instrumenting a module costs the same per method however big the module is: the per-method
time must not grow with the method's place in the module (it did: the verifier walked the #US
heap from its start for every ldstr, and each method's new locals were looked up among all of
the module's signatures).

flatgen writes a module of METHODS methods, each with its own STRINGS string literals, all with
the same locals (so that a plugin adding a local needs one new signature for the whole module,
and the runtime's own duplicate scan in GetTokenFromSig, which clrie cannot avoid, stays out of
the figure: test/bench-flatcost measures it). The stress plugin gives every method a new local,
a single return and a probe; the engine logs each method's thread-CPU time. The test fits a line
to the medians of blocks of methods, in jit order, and fails when the line's value at the last
method is more than GROWTH times its value at the first in each of up to ATTEMPTS runs. No absolute time is compared: a slow
or loaded machine scales both ends alike. Today's figure is about 1.1 - 1.3; the per-ldstr heap
walk gave about 10.

Usage: test_growth.py --engine SO --stress SO --apps-out DIR
Exit: 0 flat, 1 grew (or a check failed), 77 no dotnet."""
import argparse
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402
import stress_runs  # noqa: E402

METHODS = 3000
STRINGS = 4
BLOCKS = 10
GROWTH = 2.0  # generous: noise moves the figure by a few tenths at most
ATTEMPTS = 3  # runs at most, the first within GROWTH passing
METHOD_NAME = re.compile(r"\bFlat\.M(\d+)$")

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--engine", required=True)
parser.add_argument("--stress", required=True)
parser.add_argument("--apps-out", required=True)
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, ("engine", "stress"), folders=("apps_out",))
# flatgen writes the module on the SDK's framework (it needs .NET 9's PersistedAssemblyBuilder)
# and jits it on the runtime under test (CLRIE_TEST_RUNTIME).
writer = dotnet_apps.build_app(dotnet, "flatgen", args.apps_out, tool=True)
flatgen = dotnet_apps.build_app(dotnet, "flatgen", args.apps_out)
flat = os.path.join(args.apps_out, "flat.dll")
made = stress_runs.run([dotnet, writer, "write", flat, str(METHODS), "shared-locals",
                        "strings=%d" % STRINGS])
if not checks.expect(made.returncode == 0, "flatgen writes flat.dll", made):
    sys.exit(checks.finish(""))


def fitted_growth(times):
    """(value of the fitted line at the last method / at the first, block medians)."""
    size = METHODS // BLOCKS
    points = []
    for b in range(BLOCKS):
        block = [times[i] for i in range(b * size, (b + 1) * size) if i in times]
        if block:
            points.append((b * size + size / 2, statistics.median(block)))
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    slope = (sum((x - mx) * (y - my) for x, y in points) /
             sum((x - mx) ** 2 for x, _ in points))
    at_first, at_last = my + slope * (0 - mx), my + slope * (METHODS - 1 - mx)
    print("per-method thread CPU, median of each block of %d methods: %s us" % (
        size, " ".join("%.1f" % y for _, y in points)))
    print("fitted line: %.1f us at the first method, %.1f us at the last: x%.2f (limit x%.1f)"
          % (at_first, at_last, at_last / at_first, GROWTH))
    return (at_last / at_first if at_first > 0 else float("inf")), points


# Other work on the machine only ever adds time, to some blocks and not others, which can look
# like growth; a module whose cost grows shows it in every run. So the module is jitted up to
# ATTEMPTS times, and the cost is flat when one run's line stays within the limit.
ratios = []
for attempt in range(1, ATTEMPTS + 1):
    run = stress_runs.Profiled(args.engine, args.stress, stress_runs.STRESS_GUID,
                               {"Modules": "flat.dll"}, prefix="clrie-growth-")
    result = stress_runs.run([dotnet, flatgen, "jit", flat], run.env)
    checks.expect(result.returncode == 0 and result.stdout.strip() == "jitted %d" % METHODS,
                  "flatgen jits every method under the engine", result)
    report = stress_runs.parse_report(run.report) or {}
    for what, expected, seen in stress_runs.report_problems(report, "plain", METHODS):
        checks.expect(False, "stress report: %s: expected %s" % (what, expected), seen=seen)
    times = {}
    for name, _, cpu, _ in stress_runs.instrumentation_times(run.log):
        m = METHOD_NAME.search(name)
        if m:
            times[int(m.group(1))] = cpu
    checks.expect(len(times) == METHODS, "a time for every method in the engine's log",
                  seen=len(times))
    if checks.failures:
        for line in stress_runs.log_errors(run.log):
            print("  engine log:", line)
        run.close(keep=True)
        break
    run.close()
    print("run %d of at most %d:" % (attempt, ATTEMPTS))
    ratios.append(fitted_growth(times)[0])
    if ratios[-1] <= GROWTH:
        break
if ratios:
    checks.expect(min(ratios) <= GROWTH,
                  "per-method cost does not grow with the module (x%s from the first method "
                  "to the last in %d run(s); limit x%.1f in one)" % (
                      ", x".join("%.2f" % r for r in ratios), len(ratios), GROWTH))
sys.exit(checks.finish("per-method cost stays flat across a %d-method module" % METHODS))
