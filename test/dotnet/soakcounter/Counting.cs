// The tracer factory of test/soak: counts the calls of each traced method that entered and
// that finished (and those that finished with an exception). The service's /traced endpoint
// reads the counts through Snapshot, one line per method: "<type>::<method> <enters>
// <finishes> <exceptions>", sorted; with reset, the counts start again from zero.
using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Threading;
using Clrie.Tracing;

namespace SoakCounter
{
    public sealed class Counting : ITracerFactory
    {
        sealed class Counts
        {
            public long Enters, Finishes, Exceptions;
        }

        sealed class Tracer : ITracer
        {
            readonly Counts counts;

            public Tracer(Counts counts) => this.counts = counts;

            public void Finish(object? result, Exception? exception)
            {
                Interlocked.Increment(ref counts.Finishes);
                if (exception != null)
                    Interlocked.Increment(ref counts.Exceptions);
            }
        }

        static ConcurrentDictionary<string, Counts> all = new ConcurrentDictionary<string, Counts>();

        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments)
        {
            Counts counts = all.GetOrAdd(method.TypeName + "::" + method.MethodName, _ => new Counts());
            Interlocked.Increment(ref counts.Enters);
            return new Tracer(counts);
        }

        public static string Snapshot(bool reset)
        {
            ConcurrentDictionary<string, Counts> seen = reset
                ? Interlocked.Exchange(ref all, new ConcurrentDictionary<string, Counts>())
                : all;
            return string.Concat(seen.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p =>
                p.Key + " " + Interlocked.Read(ref p.Value.Enters) + " " +
                Interlocked.Read(ref p.Value.Finishes) + " " + Interlocked.Read(ref p.Value.Exceptions) + "\n"));
        }
    }
}
