// The OpenTelemetry SDK's tracer provider of the process, made once, from the OTEL_* variables
// alone (the SDK reads them: OTEL_EXPORTER_OTLP_ENDPOINT, _PROTOCOL, _HEADERS, _TIMEOUT,
// OTEL_TRACES_SAMPLER and _ARG, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*).
// This file is the only one that names OpenTelemetry types: the factory calls it after
// Resolver.Install, so that they are found.
using System;
using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using OpenTelemetry;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

namespace Clrie.Tracing.OpenTelemetry
{
    static class Pipeline
    {
        // How long the process's exit waits for the last spans to be exported.
        const int ExitFlushMilliseconds = 5000;

        // The sources whose activities the provider records and exports: the traced calls;
        // HttpClient's outgoing requests (a span of kind Client, whose id is the traceparent
        // it sends, so the server's span has a parent that is exported); ASP.NET Core's
        // incoming requests (a span of kind Server, whose parent ASP.NET Core takes from the
        // request's traceparent).
        internal static readonly string[] Sources =
        {
            SpanFactory.SourceName, "System.Net.Http", "Microsoft.AspNetCore",
        };

        static TracerProvider? provider;

        /// <summary>Starts the provider; false when OTEL_SDK_DISABLED=true or
        /// OTEL_TRACES_EXPORTER=none asks for nothing.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool Start()
        {
            if (IsTrue(Environment.GetEnvironmentVariable("OTEL_SDK_DISABLED")))
                return false;
            string exporter = (Environment.GetEnvironmentVariable("OTEL_TRACES_EXPORTER") ?? "otlp").Trim();
            if (exporter.Equals("none", StringComparison.OrdinalIgnoreCase))
                return false;
            if (!exporter.Equals("otlp", StringComparison.OrdinalIgnoreCase) && exporter.Length > 0)
                Console.Error.WriteLine("clrie opentelemetry: OTEL_TRACES_EXPORTER=" + exporter +
                                        " is not supported; exporting with otlp");

            // service.name: the app's assembly name unless OTEL_RESOURCE_ATTRIBUTES or
            // OTEL_SERVICE_NAME (which wins) says otherwise; the SDK's own default would be
            // "unknown_service:dotnet" for every app started with `dotnet app.dll`.
            string service = Assembly.GetEntryAssembly()?.GetName().Name ?? Process.GetCurrentProcess().ProcessName;
            ResourceBuilder resource = ResourceBuilder.CreateEmpty()
                .AddService(service)
                .AddTelemetrySdk()
                .AddEnvironmentVariableDetector();

            TracerProviderBuilder builder = Sdk.CreateTracerProviderBuilder()
                .SetResourceBuilder(resource)
                .AddSource(Sources)
                .AddOtlpExporter();
            provider = builder.Build();
            AppDomain.CurrentDomain.ProcessExit += (sender, e) => Stop();
            return true;
        }

        static void Stop()
        {
            TracerProvider? p = provider;
            provider = null;
            if (p == null)
                return;
            try
            {
                p.ForceFlush(ExitFlushMilliseconds);
                p.Shutdown(ExitFlushMilliseconds);
            }
            catch (Exception)
            {
                // the process is ending: nothing more to do about a failed export
            }
        }

        static bool IsTrue(string? value) =>
            value != null && value.Trim().Equals("true", StringComparison.OrdinalIgnoreCase);
    }
}
