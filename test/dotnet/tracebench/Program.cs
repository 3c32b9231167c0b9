// test/bench-tracer's app: the time per call of one small method, in five forms, each called
// COUNT times for warm-up, then COUNT times more in ten rounds that alternate the forms (the
// fastest round of each form is its figure):
//   bare        not traced
//   traced      traced by the plugin (test/bench-tracer's points file) with a no-op tracer
//               whose factory reads nothing (TracerNeeds.None)
//   null        traced, its factory returning no tracer
//   boxed       traced with a no-op tracer whose factory reads everything (the argument array,
//               the boxed argument and result)
//   reflection  not traced by the plugin: it makes by hand the calls that injected code
//               reaching the library by reflection would make at every call (the method
//               found through AppDomain data, MethodBase.Invoke at entry and at exit)
// Prints one line per form: `<form> <ns per call>`. With the argument `alloc COUNT` it prints
// instead what COUNT calls of each form allocate on the calling thread, `alloc <form> <bytes>`,
// and `finished <form> <n>`: how many times the form's tracer was finished (so that a form
// that was not traced cannot pass for one that allocates nothing).
using System;
using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using Clrie.Tracing;

namespace Bench
{
    public sealed class NoopFactory : ITracerFactory
    {
        internal static readonly NoopTracer Tracer = new NoopTracer();

        public TracerNeeds Needs(TracedMethod method) => TracerNeeds.None;

        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments) => Tracer;
    }

    public sealed class NullFactory : ITracerFactory
    {
        internal static long Calls;

        public TracerNeeds Needs(TracedMethod method) => TracerNeeds.None;

        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments)
        {
            Calls++;
            return null;
        }
    }

    // Reads everything (the default), finishes its own tracer.
    public sealed class BoxedFactory : ITracerFactory
    {
        internal static readonly NoopTracer Tracer = new NoopTracer();

        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments) => Tracer;
    }

    sealed class NoopTracer : ITracer
    {
        internal long Finished;

        public void Finish(object? result, Exception? exception)
        {
            Finished++;
        }
    }

    public static class Program
    {
        const string Point = "\nBench.NoopFactory, tracebench\ntracebench\nBench.Program\nReflected\nSystem.Int32";

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Bare(int x) => x * 3 + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Traced(int x) => x * 3 + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int TracedNull(int x) => x * 3 + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int TracedBoxed(int x) => x * 3 + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Reflected(int x)
        {
            // point number 0: never one of the plugin's
            var needs = (MethodInfo)AppDomain.CurrentDomain.GetData("clrie.bench.needs")!;
            var enter = (MethodInfo)AppDomain.CurrentDomain.GetData("clrie.bench.enter")!;
            var finish = (MethodInfo)AppDomain.CurrentDomain.GetData("clrie.bench.finish")!;
            object? tracer = (int)needs.Invoke(null, new object?[] { 0, Point })! != 0
                ? enter.Invoke(null, new object?[] { 0, null, new object?[] { x } })
                : null;
            int result = x * 3 + 1;
            finish.Invoke(null, new object?[] { 0, tracer, result, null });
            return result;
        }

        // Calls `method` `count` times and returns the time per call in ns.
        static double Time(Func<int, int> method, int count)
        {
            int sum = 0;
            var watch = Stopwatch.StartNew();
            for (int i = 0; i < count; i++)
                sum += method(i);
            watch.Stop();
            if (sum == 42)
                Console.WriteLine();
            return watch.Elapsed.TotalMilliseconds * 1e6 / count;
        }

        // The time per call of each form: `count` calls of each for warm-up, then Rounds rounds
        // that each time count / Rounds calls of every form in turn; the fastest round of each
        // form. The rounds alternate so that a machine whose speed drifts (a busy host) slows
        // every form alike, and the fastest round is the one least disturbed.
        const int Rounds = 10;

        static double[] TimeAll(Func<int, int>[] forms, int[] counts)
        {
            var best = new double[forms.Length];
            for (int f = 0; f < forms.Length; f++)
            {
                Time(forms[f], counts[f]);
                best[f] = double.MaxValue;
            }
            for (int round = 0; round < Rounds; round++)
                for (int f = 0; f < forms.Length; f++)
                    best[f] = Math.Min(best[f], Time(forms[f], Math.Max(counts[f] / Rounds, 1)));
            return best;
        }

        // Bytes allocated by `count` calls of each form (after as many of warm-up), with direct
        // calls: no delegate in between.
        static void Allocations(int count)
        {
            int sum = 0;
            long[] bytes = new long[4];
            for (int round = 0; round < 2; round++)
            {
                long at = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < count; i++)
                    sum += Bare(i);
                bytes[0] = GC.GetAllocatedBytesForCurrentThread() - at;
                at = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < count; i++)
                    sum += Traced(i);
                bytes[1] = GC.GetAllocatedBytesForCurrentThread() - at;
                at = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < count; i++)
                    sum += TracedNull(i);
                bytes[2] = GC.GetAllocatedBytesForCurrentThread() - at;
                at = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < count; i++)
                    sum += TracedBoxed(i);
                bytes[3] = GC.GetAllocatedBytesForCurrentThread() - at;
            }
            if (sum == 42)
                Console.WriteLine();
            Console.WriteLine("alloc bare {0}", bytes[0]);
            Console.WriteLine("alloc traced {0}", bytes[1]);
            Console.WriteLine("alloc null {0}", bytes[2]);
            Console.WriteLine("alloc boxed {0}", bytes[3]);
            Console.WriteLine("finished traced {0}", NoopFactory.Tracer.Finished);
            Console.WriteLine("finished null {0}", NullFactory.Calls);
            Console.WriteLine("finished boxed {0}", BoxedFactory.Tracer.Finished);
        }

        static int Main(string[] args)
        {
            if (args.Length == 2 && args[0] == "alloc")
            {
                Allocations(int.Parse(args[1]));
                return 0;
            }
            int count = args.Length > 0 ? int.Parse(args[0]) : 10_000_000;
            Type shim = Type.GetType("Clrie.Tracing.Shim, Clrie.Tracing", throwOnError: true)!;
            AppDomain.CurrentDomain.SetData("clrie.bench.needs", shim.GetMethod("Needs"));
            AppDomain.CurrentDomain.SetData("clrie.bench.enter", shim.GetMethod("Enter"));
            AppDomain.CurrentDomain.SetData("clrie.bench.finish", shim.GetMethod("Finish"));
            string[] names = { "bare", "traced", "null", "boxed", "reflection" };
            double[] times = TimeAll(new Func<int, int>[] { Bare, Traced, TracedNull, TracedBoxed, Reflected },
                                     new[] { count, count, count, count, Math.Max(count / 10, 1) });
            for (int f = 0; f < names.Length; f++)
                Console.WriteLine("{0} {1:F2}", names[f], times[f]);
            return 0;
        }
    }
}
