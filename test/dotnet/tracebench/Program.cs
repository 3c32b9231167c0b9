// test/bench-tracer's app: the time per call of one small method, called COUNT times after as
// many calls of warm-up, in four forms:
//   bare        not traced
//   traced      traced by the plugin (test/bench-tracer's points file) with a no-op tracer
//   null        traced, its factory returning no tracer
//   reflection  not traced by the plugin: it makes by hand the calls that injected code
//               reaching the library by reflection would make at every call (the method
//               found through AppDomain data, MethodBase.Invoke at entry and at exit)
// Prints one line per form: `<form> <ns per call>`.
using System;
using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using Clrie.Tracing;

namespace Bench
{
    public sealed class NoopFactory : ITracerFactory
    {
        static readonly NoopTracer Tracer = new NoopTracer();

        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments) => Tracer;
    }

    public sealed class NullFactory : ITracerFactory
    {
        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments) => null;
    }

    sealed class NoopTracer : ITracer
    {
        public void Finish(object? result, Exception? exception)
        {
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
        static int Reflected(int x)
        {
            var enter = (MethodInfo)AppDomain.CurrentDomain.GetData("clrie.bench.enter")!;
            var finish = (MethodInfo)AppDomain.CurrentDomain.GetData("clrie.bench.finish")!;
            object? tracer = enter.Invoke(null, new object?[] { Point, null, new object?[] { x } });
            int result = x * 3 + 1;
            finish.Invoke(null, new object?[] { tracer, result, null });
            return result;
        }

        static double Time(Func<int, int> method, int count)
        {
            int sum = 0;
            for (int i = 0; i < count; i++)
                sum += method(i);
            var watch = Stopwatch.StartNew();
            for (int i = 0; i < count; i++)
                sum += method(i);
            watch.Stop();
            if (sum == 42)
                Console.WriteLine();
            return watch.Elapsed.TotalMilliseconds * 1e6 / count;
        }

        static int Main(string[] args)
        {
            int count = args.Length > 0 ? int.Parse(args[0]) : 10_000_000;
            Type shim = Type.GetType("Clrie.Tracing.Shim, Clrie.Tracing", throwOnError: true)!;
            AppDomain.CurrentDomain.SetData("clrie.bench.enter", shim.GetMethod("Enter"));
            AppDomain.CurrentDomain.SetData("clrie.bench.finish", shim.GetMethod("Finish"));
            Console.WriteLine("bare {0:F2}", Time(Bare, count));
            Console.WriteLine("traced {0:F2}", Time(Traced, count));
            Console.WriteLine("null {0:F2}", Time(TracedNull, count));
            Console.WriteLine("reflection {0:F2}", Time(Reflected, Math.Max(count / 10, 1)));
            return 0;
        }
    }
}
