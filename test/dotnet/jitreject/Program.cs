// Methods that test/plugins/jit_reject.c rewrites into bodies the JIT cannot compile, though
// every token in them names a row that exists: a type in an assembly that is not there, and a
// type that its assembly does not define. Each is called twice and the outcome printed, so the
// output shows whether the JIT rejected a body and whether the second call ran.
//
// With the argument `rejit` (the bodies are given at a ReJIT, and the engine reverts a rejected
// ReJIT from a thread of its own), the second round first waits, at most 60 s, until each
// method returns what it returns without a profiler, so that it does not race the revert.
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;

static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int NeedsMissingAssembly(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int NeedsMissingType(int x) => x * 2;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Untouched(int x) => x - 1;

    static void Report(string name, Func<int> call)
    {
        try {
            Console.WriteLine(name + ": " + call());
        } catch (Exception e) {
            Console.WriteLine(name + ": " + e.GetType().FullName);
        }
    }

    static void WaitFor(Func<int> call, int expected)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed.TotalSeconds < 60) {
            try {
                if (call() == expected)
                    return;
            } catch (Exception) {
            }
            Thread.Sleep(10);
        }
    }

    static int Main(string[] args)
    {
        for (int round = 1; round <= 2; round++) {
            if (round == 2 && args.Length > 0 && args[0] == "rejit") {
                WaitFor(() => NeedsMissingAssembly(20), 21);
                WaitFor(() => NeedsMissingType(21), 42);
            }
            Report("NeedsMissingAssembly", () => NeedsMissingAssembly(20));
            Report("NeedsMissingType", () => NeedsMissingType(21));
            Report("Untouched", () => Untouched(3));
        }
        return 7;
    }
}
