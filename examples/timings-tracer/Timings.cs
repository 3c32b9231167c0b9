// Counts the calls, the failures and the time of each traced method, and reports them on
// stderr when the process exits. It reads neither arguments nor results (nothing is boxed),
// and as an IAsyncTracer it counts an async method until its task completes.
using System;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using Clrie.Tracing;

namespace Shop.Tracing
{
    public sealed class Timings : ITracerFactory
    {
        sealed class Totals
        {
            public long Calls, Failed, Ticks;
        }

        readonly ConcurrentDictionary<string, Totals> totals = new ConcurrentDictionary<string, Totals>();

        public Timings()
        {
            // one factory per process: a good place to report at exit
            AppDomain.CurrentDomain.ProcessExit += (_, _) =>
            {
                foreach (var (method, t) in totals.OrderBy(pair => pair.Key, StringComparer.Ordinal))
                    Console.Error.WriteLine($"timings: {method}: {t.Calls} calls, {t.Failed} failed, " +
                                            $"{TimeSpan.FromTicks(t.Ticks).TotalMilliseconds:F1} ms");
            };
        }

        public TracerNeeds Needs(TracedMethod method) => TracerNeeds.None;

        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments) =>
            new Call(totals.GetOrAdd(method.ToString(), _ => new Totals()));

        sealed class Call : IAsyncTracer
        {
            readonly Totals totals;
            readonly long started = Stopwatch.GetTimestamp();

            public Call(Totals totals) => this.totals = totals;

            public void Pending()
            {
            }

            public void Finish(object? result, Exception? exception)
            {
                Interlocked.Increment(ref totals.Calls);
                if (exception != null)
                    Interlocked.Increment(ref totals.Failed);
                Interlocked.Add(ref totals.Ticks, Stopwatch.GetElapsedTime(started).Ticks);
            }
        }
    }
}
