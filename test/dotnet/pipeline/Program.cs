// The app the pipeline test rewrites through test/plugins/pipeline_probe.c. Each method's
// result shows whether the engine applied, refused or rejitted the plugin's edits.
using System;
using System.Runtime.CompilerServices;
using System.Threading;

static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Answer() => 41;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Failing() => 7;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Invalid() => 8;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Rejitted() => 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Replaced() => 5;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RevertNow() { }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RejitAgainNow() { }

    // Calls Rejitted until it answers `wanted` (a rejit or revert takes effect at some call
    // after it was requested), for at most about 5 seconds.
    static int WaitFor(int wanted)
    {
        int seen = Rejitted();
        for (int i = 0; i < 250 && seen != wanted; i++)
        {
            Thread.Sleep(20);
            seen = Rejitted();
        }
        return seen;
    }

    static int Small(int x) => x + 1;

    // Optimized at its first JIT (tier 0 does not inline), so the JIT considers inlining Small.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    static int CallsSmall(int x) => Small(x) * 2;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int ConcurrentA() => 10;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int ConcurrentB() => 20;

    // Two threads reach their first call of a different method at the same moment, so both
    // methods are jitted (and instrumented) at once.
    static int JitTwoAtOnce()
    {
        var barrier = new Barrier(2);
        int a = 0, b = 0;
        var ta = new Thread(() => { barrier.SignalAndWait(); a = ConcurrentA(); });
        var tb = new Thread(() => { barrier.SignalAndWait(); b = ConcurrentB(); });
        ta.Start();
        tb.Start();
        ta.Join();
        tb.Join();
        return a + b;
    }

    static int Main(string[] args)
    {
        Console.WriteLine("answer " + Answer());
        Console.WriteLine("failing " + Failing());
        Console.WriteLine("invalid " + Invalid());
        Console.WriteLine("replaced " + Replaced());
        Console.WriteLine("inline " + CallsSmall(20));
        Console.WriteLine("concurrent " + JitTwoAtOnce());
        Console.WriteLine("rejitted " + WaitFor(2));
        RevertNow();
        Console.WriteLine("reverted " + WaitFor(1));
        RejitAgainNow();
        Console.WriteLine("rejitted again " + WaitFor(2));
        return 5;
    }
}
