// Where the assemblies this library needs come from. Clrie.Tracing loads the library into the
// default load context by its path; the default context finds the runtime's assemblies (and
// the app's) by name, but not the OpenTelemetry ones beside this file. For those it asks this
// handler, which loads the file of that name beside this library, into the default context:
// the app, HttpClient, ASP.NET Core and OpenTelemetry then share one Activity type.
//
// A name the runtime or the app has is never loaded a second time from here: a request for a
// newer version than theirs fails as it would without clrie (the factory then says it cannot
// start the exporter), except for System.Diagnostics.DiagnosticSource, which this library's
// builds for .NET 8 and 9 name at 10.0 (OpenTelemetry's version) while using only what 8.0 has:
// they get the process's copy, whose Activity HttpClient uses; the SDK, which needs 10.0, then
// runs in a load context of its own (Compatibility.cs, Bridge.cs).
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Runtime.Loader;

namespace Clrie.Tracing.OpenTelemetry
{
    static class Resolver
    {
        static readonly object Gate = new object();
        static bool installed;
        static string folder = "";
        static readonly HashSet<string> Platform = new HashSet<string>(StringComparer.OrdinalIgnoreCase);

        /// <summary>The folder of this library, where the OpenTelemetry assemblies are.</summary>
        public static string Folder => folder;

        public static void Install()
        {
            lock (Gate)
            {
                if (installed)
                    return;
                installed = true;
                folder = Path.GetDirectoryName(typeof(Resolver).Assembly.Location) ?? "";
                // The runtime's assemblies and the app's: what the default context finds by name.
                if (AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES") is string tpa)
                {
                    foreach (string path in tpa.Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
                        Platform.Add(Path.GetFileNameWithoutExtension(path));
                }
                AssemblyLoadContext.Default.Resolving += Resolve;
            }
        }

        static Assembly? Resolve(AssemblyLoadContext context, AssemblyName name)
        {
            if (name.Name == null)
                return null;
            if (Platform.Contains(name.Name))
            {
                if (name.Name != "System.Diagnostics.DiagnosticSource")
                    return null;
                foreach (Assembly loaded in context.Assemblies)
                {
                    if (string.Equals(loaded.GetName().Name, name.Name, StringComparison.OrdinalIgnoreCase))
                        return loaded;
                }
                // by its name alone: found, so this handler is not asked again
                return context.LoadFromAssemblyName(new AssemblyName(name.Name));
            }
            string path = Path.Combine(folder, name.Name + ".dll");
            return File.Exists(path) ? context.LoadFromAssemblyPath(path) : null;
        }
    }
}
