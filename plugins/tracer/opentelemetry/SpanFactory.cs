// Traced calls as OpenTelemetry spans, exported by the OpenTelemetry SDK with no change to the
// app: a points file names this factory (docs/tracers.md, "Exporting to OpenTelemetry").
//
// Each traced call is an Activity of the source "Clrie.Tracing.OpenTelemetry" named
// Type.Method, a child of Activity.Current (the caller's span, or a span that HttpClient or
// ASP.NET Core made), so HttpClient sends it on as the traceparent of the requests the call
// makes. A call that takes an HttpListenerContext or HttpListenerRequest and has no current
// span is a span of kind Server whose parent is the request's traceparent: a server on
// HttpListener continues the caller's trace as one on ASP.NET Core does.
using System;
using System.Diagnostics;
using System.Net;
using System.Runtime.CompilerServices;
using Clrie.Tracing;

namespace Clrie.Tracing.OpenTelemetry
{
    /// <summary>The tracer factory that points files name:
    /// <c>Clrie.Tracing.OpenTelemetry.SpanFactory</c>.</summary>
    public sealed class SpanFactory : ITracerFactory
    {
        /// <summary>The ActivitySource of the traced calls (the spans' instrumentation scope).</summary>
        public const string SourceName = Exporter.SourceName;

        static readonly ActivitySource Source = new ActivitySource(SourceName, "1.0.0");

        /// <summary>Made once by Clrie.Tracing: starts the process's exporter, unless the
        /// startup hook did.</summary>
        public SpanFactory()
        {
            Exporter.Start();
        }

        /// <summary>The arguments only (a server's request); never the instance or the
        /// result.</summary>
        public TracerNeeds Needs(TracedMethod method) => TracerNeeds.Arguments;

        /// <inheritdoc/>
        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments)
        {
            if (!Source.HasListeners())
                return null;
            Activity? caller = Activity.Current;
            string name = method.TypeName + "." + method.MethodName;
            Activity? activity = null;
            object? request = caller == null ? FindRequest(arguments) : null;
            if (request != null)
                activity = StartServer(name, request);
            activity ??= Source.StartActivity(name, ActivityKind.Internal);
            if (activity == null)
                return null; // not sampled
            if (activity.IsAllDataRequested)
            {
                activity.SetTag("code.namespace", method.TypeName);
                activity.SetTag("code.function", method.MethodName);
                activity.SetTag("code.function.name", name);
            }
            return new SpanTracer(activity, caller);
        }

        // HttpListener's types are named in the two methods below only, which are not inlined:
        // an app that does not use HttpListener never loads its assembly here.
        static object? FindRequest(object?[] arguments)
        {
            foreach (object? argument in arguments)
            {
                string? type = argument?.GetType().FullName;
                if (type == "System.Net.HttpListenerContext" || type == "System.Net.HttpListenerRequest")
                    return RequestOf(argument!);
            }
            return null;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static object? RequestOf(object argument) =>
            argument is HttpListenerContext context ? context.Request : argument as HttpListenerRequest;

        [MethodImpl(MethodImplOptions.NoInlining)]
        static Activity? StartServer(string name, object argument)
        {
            var request = (HttpListenerRequest)argument;
            // The propagator the runtime uses for HttpClient (W3C traceparent by default).
            DistributedContextPropagator.Current.ExtractTraceIdAndState(request,
                static (object? carrier, string field, out string? value, out System.Collections.Generic.IEnumerable<string>? values) =>
                {
                    value = (carrier as HttpListenerRequest)?.Headers[field];
                    values = null;
                },
                out string? traceParent, out string? traceState);
            ActivityContext parent = default;
            if (traceParent != null)
                ActivityContext.TryParse(traceParent, traceState, isRemote: true, out parent);
            // read before the span starts: nothing may throw between its start and GetTracer's
            // return, or it would stay current with no tracer to stop it
            var tags = new ActivityTagsCollection
            {
                { "http.request.method", request.HttpMethod },
                { "url.path", request.Url?.AbsolutePath },
                { "url.scheme", request.Url?.Scheme },
                { "server.port", request.LocalEndPoint?.Port },
            };
            return Source.StartActivity(ActivityKind.Server, parent, tags, name: name);
        }
    }

    /// <summary>One traced call's span; for an async method, ended when its task completes.</summary>
    sealed class SpanTracer : IAsyncTracer
    {
        readonly Activity activity;
        readonly Activity? caller;

        public SpanTracer(Activity activity, Activity? caller)
        {
            this.activity = activity;
            this.caller = caller;
        }

        /// <summary>The method returned a task that runs on: its code keeps the span as current
        /// (the task captured it), its caller gets its own span back.</summary>
        public void Pending()
        {
            if (Activity.Current == activity)
                Activity.Current = caller;
        }

        public void Finish(object? result, Exception? exception)
        {
            if (exception != null && activity.IsAllDataRequested)
            {
                activity.SetStatus(ActivityStatusCode.Error, exception.Message);
                // the semantic conventions' exception event (Activity.AddException is not in
                // the DiagnosticSource of .NET 8)
                activity.AddEvent(new ActivityEvent("exception", tags: new ActivityTagsCollection
                {
                    { "exception.type", exception.GetType().FullName },
                    { "exception.message", exception.Message },
                    { "exception.stacktrace", exception.ToString() },
                }));
            }
            // Stop makes the span's parent current: right at a synchronous return, where the
            // span is current; after an async method's task completed, the thread that finishes
            // it keeps what it had.
            Activity? current = Activity.Current;
            activity.Stop();
            if (current != activity)
                Activity.Current = current;
        }
    }
}
