// The process's exporter, started once: by the first SpanFactory, at the first traced call, or
// before Main by the startup hook of this library when DOTNET_STARTUP_HOOKS names it too (then
// the framework's spans of what runs before the first traced call, an ASP.NET Core server's
// first requests, are exported as well). Nothing here names Clrie.Tracing, so the hook works
// whichever of the two hooks runs first.
using System;
using System.Reflection;

namespace Clrie.Tracing.OpenTelemetry
{
    static class Exporter
    {
        /// <summary>The ActivitySource of the traced calls (the spans' instrumentation scope).</summary>
        public const string SourceName = "Clrie.Tracing.OpenTelemetry";

        // The sources whose activities are exported: the traced calls; HttpClient's outgoing
        // requests (a span of kind Client, whose id is the traceparent it sends, so the
        // server's span has a parent that is exported); ASP.NET Core's incoming requests (a
        // span of kind Server, whose parent ASP.NET Core takes from the request's traceparent).
        internal static readonly string[] Sources = { SourceName, "System.Net.Http", "Microsoft.AspNetCore" };

        static readonly object Gate = new object();
        static bool started;

        /// <summary>Starts the exporter the first time; never throws. Without it nothing
        /// listens to the sources, and every traced call traces nothing.</summary>
        public static void Start()
        {
            lock (Gate)
            {
                if (started)
                    return;
                started = true;
            }
            try
            {
                Resolver.Install();
                if (!Wanted())
                    return;
                string? problem = Compatibility.Problem(Resolver.Folder);
                if (problem == null)
                    Pipeline.Start();
                else if (Compatibility.Isolatable(Resolver.Folder))
                    Bridge.Start(Resolver.Folder);
                else
                    Console.Error.WriteLine("clrie opentelemetry: " + problem);
            }
            catch (Exception e)
            {
                // Bridge.Start calls into the SDK's load context by reflection
                Exception cause = e is TargetInvocationException { InnerException: Exception inner } ? inner : e;
                Console.Error.WriteLine("clrie opentelemetry: cannot start the exporter: " +
                                        cause.GetType().Name + ": " + cause.Message);
            }
        }

        /// <summary>Whether the variables ask for an exporter: not with OTEL_SDK_DISABLED=true
        /// or OTEL_TRACES_EXPORTER=none.</summary>
        static bool Wanted()
        {
            if (IsTrue(Environment.GetEnvironmentVariable("OTEL_SDK_DISABLED")))
                return false;
            string exporter = (Environment.GetEnvironmentVariable("OTEL_TRACES_EXPORTER") ?? "otlp").Trim();
            if (exporter.Equals("none", StringComparison.OrdinalIgnoreCase))
                return false;
            if (!exporter.Equals("otlp", StringComparison.OrdinalIgnoreCase) && exporter.Length > 0)
                Console.Error.WriteLine("clrie opentelemetry: OTEL_TRACES_EXPORTER=" + exporter +
                                        " is not supported; exporting with otlp");
            return true;
        }

        static bool IsTrue(string? value) =>
            value != null && value.Trim().Equals("true", StringComparison.OrdinalIgnoreCase);
    }
}

// DOTNET_STARTUP_HOOKS=<Tracer>/Clrie.Tracing.dll:<Tracer>/OpenTelemetry/Clrie.Tracing.OpenTelemetry.dll
// starts the exporter before Main.
internal static class StartupHook
{
    public static void Initialize()
    {
        Clrie.Tracing.OpenTelemetry.Exporter.Start();
    }
}
