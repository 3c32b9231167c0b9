// The OpenTelemetry SDK's tracer provider of the process, made once, from the OTEL_* variables
// alone (the SDK reads them: OTEL_EXPORTER_OTLP_ENDPOINT, _PROTOCOL, _HEADERS, _TIMEOUT,
// OTEL_TRACES_SAMPLER and _ARG, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*).
// With Mirror.cs, the only file that names OpenTelemetry types: the factory calls it after
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

        static TracerProvider? provider;

        /// <summary>Starts the provider in the default load context (the process's
        /// DiagnosticSource is the one the SDK needs).</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Start() => Build(null);

        /// <summary>The provider of the process: its sampler the one the OTEL_TRACES_SAMPLER
        /// variables choose, or sampler when not null.</summary>
        internal static void Build(Sampler? sampler)
        {
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
                .AddSource(Exporter.Sources)
                .AddOtlpExporter();
            if (sampler != null)
                builder.SetSampler(sampler);
            provider = builder.Build();
            AppDomain.CurrentDomain.ProcessExit += (sender, e) => Stop();
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
    }
}
