// Throws and catches an exception through a few frames, many times, and prints the time per
// exception (test/bench-exceptions): what exception events cost the runtime when a profiler
// asks for them.
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;

static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Deep(int depth)
    {
        if (depth == 0)
            throw new InvalidOperationException("deep enough");
        return Deep(depth - 1) + 1;
    }

    static int Round(int count, int depth)
    {
        int caught = 0;
        for (int i = 0; i < count; i++) {
            try {
                Deep(depth);
            } catch (InvalidOperationException) {
                caught++;
            }
        }
        return caught;
    }

    static int Main(string[] args)
    {
        int count = args.Length > 0 ? int.Parse(args[0]) : 100000;
        int depth = args.Length > 1 ? int.Parse(args[1]) : 5;
        Round(2000, depth); // every method jitted, the runtime's caches warm
        var watch = Stopwatch.StartNew();
        int caught = Round(count, depth);
        double us = watch.Elapsed.TotalMilliseconds * 1000.0 / count;
        Console.WriteLine("{0:F3} us per exception ({1} caught, {2} frames)", us, caught,
                          depth + 1);
        return caught == count ? 0 : 1;
    }
}
