// The SDK's side of Bridge.cs, in the SDK's own load context (its own DiagnosticSource, so its
// own Activity type): a provider from the OTEL_* variables, whose sampler Bridge asks, and a copy
// of each recorded runtime Activity, made when it stops: same trace id, span id, parent,
// name, kind, times, tags, events, links and status, from a source of the same name and
// version, stopped at once so that the provider's exporter takes it.
//
// The span id is the one thing the Activity API does not let a caller choose: the copy's is set
// in its fields _spanId and _id, those of the DiagnosticSource 10.0.0 shipped beside this
// library (Start fails, and nothing is exported, when they are missing).
using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Reflection;
using OpenTelemetry;
using OpenTelemetry.Trace;

namespace Clrie.Tracing.OpenTelemetry
{
    /// <summary>Called by Bridge through reflection, from the default load context.</summary>
    public static class Mirror
    {
        static Sampler sampler = null!;
        static FieldInfo spanIdField = null!, idField = null!;
        static readonly ConcurrentDictionary<(string, string?), ActivitySource> Sources = new();
        [ThreadStatic]
        static string? rootTraceId; // the trace id of a copy without a parent

        /// <summary>Starts the provider; returns Bridge's three calls: Sample, Export and
        /// whether this thread is exporting.</summary>
        public static object[] Start()
        {
            const BindingFlags field = BindingFlags.NonPublic | BindingFlags.Instance;
            spanIdField = typeof(Activity).GetField("_spanId", field) ??
                          throw new MissingFieldException(typeof(Activity).FullName, "_spanId");
            idField = typeof(Activity).GetField("_id", field) ??
                      throw new MissingFieldException(typeof(Activity).FullName, "_id");
            sampler = SamplerFromEnvironment();
            Activity.TraceIdGenerator = () =>
                rootTraceId != null ? ActivityTraceId.CreateFromString(rootTraceId) : ActivityTraceId.CreateRandom();
            // The copies are sampled already (by Bridge, with the same sampler).
            Pipeline.Build(new AlwaysOnSampler());
            return new object[]
            {
                (Func<object?[], int>)Sample,
                (Action<object?[]>)Export,
                (Func<bool>)(() => Sdk.SuppressInstrumentation),
            };
        }

        static int Sample(object?[] o)
        {
            var traceId = ActivityTraceId.CreateFromString((string)o[0]!);
            ActivityContext parent = o[1] is string parentSpanId
                ? new ActivityContext(traceId, ActivitySpanId.CreateFromString(parentSpanId),
                                      (ActivityTraceFlags)(int)o[2]!, (string?)o[4], (bool)o[3]!)
                : default;
            SamplingResult result = sampler.ShouldSample(
                new SamplingParameters(parent, traceId, (string)o[5]!, (ActivityKind)(int)o[6]!));
            return (int)result.Decision;
        }

        static void Export(object?[] o)
        {
            string traceId = (string)o[5]!, spanId = (string)o[6]!;
            var flags = (ActivityTraceFlags)(int)o[9]!;
            ActivitySource source = Sources.GetOrAdd(((string)o[0]!, (string?)o[1]),
                                                     key => new ActivitySource(key.Item1, key.Item2));
            ActivityContext parent = o[7] is string parentSpanId
                ? new ActivityContext(ActivityTraceId.CreateFromString(traceId),
                                      ActivitySpanId.CreateFromString(parentSpanId), flags, (string?)o[8], (bool)o[10]!)
                : default;
            var links = new List<ActivityLink>();
            foreach (object?[] l in (object?[][])o[15]!)
            {
                links.Add(new ActivityLink(new ActivityContext(ActivityTraceId.CreateFromString((string)l[0]!),
                                                               ActivitySpanId.CreateFromString((string)l[1]!),
                                                               (ActivityTraceFlags)(int)l[2]!, (string?)l[3]),
                                           new ActivityTagsCollection((KeyValuePair<string, object?>[])l[4]!)));
            }
            rootTraceId = traceId;
            Activity? copy;
            try
            {
                copy = source.CreateActivity((string)o[2]!, (ActivityKind)(int)o[4]!, parent, null, links);
                if (copy == null)
                    return; // the provider has shut down
                copy.SetStartTime((DateTime)o[11]!);
                copy.Start();
            }
            finally
            {
                rootTraceId = null;
            }
            spanIdField.SetValue(copy, spanId);
            idField.SetValue(copy, "00-" + traceId + "-" + spanId + "-" + ((int)flags).ToString("x2"));
            copy.ActivityTraceFlags = flags;
            copy.DisplayName = (string)o[3]!;
            if (o[8] is string traceState)
                copy.TraceStateString = traceState;
            foreach (KeyValuePair<string, object?> tag in (KeyValuePair<string, object?>[])o[13]!)
                copy.SetTag(tag.Key, tag.Value);
            foreach (object?[] e in (object?[][])o[14]!)
            {
                copy.AddEvent(new ActivityEvent((string)e[0]!, (DateTimeOffset)e[1]!,
                                                new ActivityTagsCollection((KeyValuePair<string, object?>[])e[2]!)));
            }
            copy.SetStatus((ActivityStatusCode)(int)o[16]!, (string?)o[17]);
            copy.SetEndTime((DateTime)o[12]!);
            copy.Stop();
        }

        // OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, as the SDK reads them for its own
        // provider (parentbased_always_on by default).
        static Sampler SamplerFromEnvironment()
        {
            string name = (Environment.GetEnvironmentVariable("OTEL_TRACES_SAMPLER") ?? "").Trim().ToLowerInvariant();
            double ratio = 1.0;
            if (!double.TryParse(Environment.GetEnvironmentVariable("OTEL_TRACES_SAMPLER_ARG"),
                                 System.Globalization.NumberStyles.Float,
                                 System.Globalization.CultureInfo.InvariantCulture, out ratio) ||
                ratio < 0 || ratio > 1)
                ratio = 1.0;
            switch (name)
            {
                case "always_on": return new AlwaysOnSampler();
                case "always_off": return new AlwaysOffSampler();
                case "traceidratio": return new TraceIdRatioBasedSampler(ratio);
                case "parentbased_always_off": return new ParentBasedSampler(new AlwaysOffSampler());
                case "parentbased_traceidratio": return new ParentBasedSampler(new TraceIdRatioBasedSampler(ratio));
                case "":
                case "parentbased_always_on":
                    return new ParentBasedSampler(new AlwaysOnSampler());
                default:
                    Console.Error.WriteLine("clrie opentelemetry: OTEL_TRACES_SAMPLER=" + name +
                                            " is not supported; sampling with parentbased_always_on");
                    return new ParentBasedSampler(new AlwaysOnSampler());
            }
        }
    }
}
