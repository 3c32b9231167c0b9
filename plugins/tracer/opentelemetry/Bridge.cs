// The export on a runtime whose DiagnosticSource is older than the one the SDK needs (.NET 8
// and 9: Compatibility.cs). The spans stay the runtime's Activities, the ones HttpClient and
// ASP.NET Core see, parent and propagate; the SDK runs in a load context of its own
// (OpenTelemetryContext) with the DiagnosticSource shipped beside this library, where Mirror.cs
// receives each recorded Activity when it stops, as plain values, and hands the SDK a copy of
// it with the same ids. An ActivityListener here asks that SDK's sampler (OTEL_TRACES_SAMPLER)
// whether to record each Activity, and records nothing while the SDK exports (its own HTTP
// requests, made with the runtime's HttpClient, would be spans too).
//
// Between the two contexts only the core library's types pass: arrays of strings, numbers,
// dates and tag pairs, in the order Mirror's Sample and Export read them.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Reflection;
using System.Runtime.Loader;

namespace Clrie.Tracing.OpenTelemetry
{
    static class Bridge
    {
        const int RecordOnly = 1, RecordAndSample = 2; // Mirror's Sample: the SDK's SamplingDecision
        static Func<object?[], int> sample = null!;
        static Action<object?[]> export = null!;
        static Func<bool> exporting = null!;
        static ActivityListener? listener;

        public static void Start(string folder)
        {
            var context = new OpenTelemetryContext(folder);
            Assembly isolated = context.LoadFromAssemblyPath(typeof(Bridge).Assembly.Location);
            // by name: Mirror's types are the SDK's, never loaded in this context
            MethodInfo start = isolated.GetType("Clrie.Tracing.OpenTelemetry.Mirror", throwOnError: true)!
                .GetMethod("Start", BindingFlags.Public | BindingFlags.Static)!;
            var calls = (object[])start.Invoke(null, null)!;
            sample = (Func<object?[], int>)calls[0];
            export = (Action<object?[]>)calls[1];
            exporting = (Func<bool>)calls[2];
            var sources = new HashSet<string>(Exporter.Sources, StringComparer.Ordinal);
            listener = new ActivityListener
            {
                ShouldListenTo = source => sources.Contains(source.Name),
                Sample = Sample,
                ActivityStopped = Stopped,
            };
            ActivitySource.AddActivityListener(listener);
        }

        static ActivitySamplingResult Sample(ref ActivityCreationOptions<ActivityContext> options)
        {
            try
            {
                if (exporting())
                    return ActivitySamplingResult.None;
                ActivityContext parent = options.Parent;
                bool hasParent = parent != default;
                int decision = sample(new object?[]
                {
                    options.TraceId.ToHexString(),
                    hasParent ? parent.SpanId.ToHexString() : null,
                    (int)parent.TraceFlags,
                    parent.IsRemote,
                    parent.TraceState,
                    options.Name,
                    (int)options.Kind,
                });
                // as the SDK's own listener: a span not sampled still carries the context on
                return decision switch
                {
                    RecordAndSample => ActivitySamplingResult.AllDataAndRecorded,
                    RecordOnly => ActivitySamplingResult.AllData,
                    _ => ActivitySamplingResult.PropagationData,
                };
            }
            catch (Exception)
            {
                return ActivitySamplingResult.None;
            }
        }

        static void Stopped(Activity activity)
        {
            if (!activity.Recorded)
                return;
            try
            {
                var events = new List<object?[]>();
                foreach (ActivityEvent e in activity.Events)
                    events.Add(new object?[] { e.Name, e.Timestamp, Tags(e.Tags) });
                var links = new List<object?[]>();
                foreach (ActivityLink l in activity.Links)
                {
                    links.Add(new object?[] { l.Context.TraceId.ToHexString(), l.Context.SpanId.ToHexString(),
                                              (int)l.Context.TraceFlags, l.Context.TraceState, Tags(l.Tags) });
                }
                export(new object?[]
                {
                    activity.Source.Name,
                    activity.Source.Version,
                    activity.OperationName,
                    activity.DisplayName,
                    (int)activity.Kind,
                    activity.TraceId.ToHexString(),
                    activity.SpanId.ToHexString(),
                    activity.ParentSpanId == default ? null : activity.ParentSpanId.ToHexString(),
                    activity.TraceStateString,
                    (int)activity.ActivityTraceFlags,
                    activity.HasRemoteParent,
                    activity.StartTimeUtc,
                    activity.StartTimeUtc + activity.Duration,
                    Tags(activity.TagObjects),
                    events.ToArray(),
                    links.ToArray(),
                    (int)activity.Status,
                    activity.StatusDescription,
                });
            }
            catch (Exception)
            {
                // a span lost, never the app's Stop
            }
        }

        static KeyValuePair<string, object?>[] Tags(IEnumerable<KeyValuePair<string, object?>>? tags) =>
            tags == null ? Array.Empty<KeyValuePair<string, object?>>() : new List<KeyValuePair<string, object?>>(tags).ToArray();
    }

    /// <summary>The SDK's own load context: the assemblies beside this library (DiagnosticSource
    /// 10, OpenTelemetry, Microsoft.Extensions.*, this library again), the rest from the default
    /// context (the core library, HttpClient, Clrie.Tracing).</summary>
    sealed class OpenTelemetryContext : AssemblyLoadContext
    {
        readonly string folder;

        public OpenTelemetryContext(string folder) : base("Clrie.Tracing.OpenTelemetry")
        {
            this.folder = folder;
        }

        protected override Assembly? Load(AssemblyName name)
        {
            if (name.Name == null || name.Name == "Clrie.Tracing")
                return null;
            string path = Path.Combine(folder, name.Name + ".dll");
            return File.Exists(path) ? LoadFromAssemblyPath(path) : null;
        }
    }
}
