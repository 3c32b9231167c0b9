// Whether the OpenTelemetry SDK beside this library can run in the default load context. It is
// built against a System.Diagnostics.DiagnosticSource (the library of Activity) that may be
// newer than the runtime's: OpenTelemetry 1.20.1 names DiagnosticSource 10.0 in its builds for
// .NET 8 and 9 too, and calls what only 10.0 has (MeterOptions.TelemetrySchemaUrl, on its export
// thread, where the MissingMethodException would end the app). DiagnosticSource is part of the
// runtime: the default load context has the runtime's copy (or the app's, when the app ships a
// newer one) and cannot take a second. So the SDK runs in the default context only when the
// process's DiagnosticSource is at least the version the SDK names (any .NET 10 app; a .NET 8
// or 9 app that ships DiagnosticSource 10 itself, as apps that use OpenTelemetry do); otherwise
// in a load context of its own with the DiagnosticSource shipped beside it (Bridge.cs).
using System;
using System.Diagnostics;
using System.IO;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;

namespace Clrie.Tracing.OpenTelemetry
{
    static class Compatibility
    {
        const string DiagnosticSource = "System.Diagnostics.DiagnosticSource";

        /// <summary>Null when the SDK can run in the default load context, else why not.</summary>
        public static string? Problem(string folder)
        {
            Version have = typeof(Activity).Assembly.GetName().Version ?? new Version();
            Version needed = Needed(folder, out string neededBy);
            if (have >= needed)
                return null;
            return neededBy + " needs " + DiagnosticSource + " " + needed + ", this process has " + have +
                   " (.NET " + Environment.Version + "), and " + DiagnosticSource + ".dll beside it is missing" +
                   " or older: no spans are exported (docs/tracers.md, \"Exporting to OpenTelemetry\")";
        }

        /// <summary>Whether the folder has the DiagnosticSource the SDK needs, for a load
        /// context of its own (Bridge.cs).</summary>
        public static bool Isolatable(string folder)
        {
            string path = Path.Combine(folder, DiagnosticSource + ".dll");
            return File.Exists(path) &&
                   System.Reflection.AssemblyName.GetAssemblyName(path).Version >= Needed(folder, out _);
        }

        static Version Needed(string folder, out string neededBy)
        {
            Version needed = new Version();
            neededBy = "";
            foreach (string path in Directory.GetFiles(folder, "OpenTelemetry*.dll"))
            {
                Version? v = Referenced(path, DiagnosticSource);
                if (v != null && v > needed)
                {
                    needed = v;
                    neededBy = Path.GetFileName(path);
                }
            }
            return needed;
        }

        static Version? Referenced(string path, string name)
        {
            using var stream = File.OpenRead(path);
            using var pe = new PEReader(stream);
            MetadataReader reader = pe.GetMetadataReader();
            foreach (AssemblyReferenceHandle handle in reader.AssemblyReferences)
            {
                AssemblyReference reference = reader.GetAssemblyReference(handle);
                if (reader.GetString(reference.Name) == name)
                    return reference.Version;
            }
            return null;
        }
    }
}
