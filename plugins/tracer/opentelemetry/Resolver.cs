// Where the assemblies this library needs come from. Clrie.Tracing loads the library into the
// default load context by its path; the default context finds the runtime's assemblies (and
// the app's) by name, but not the OpenTelemetry ones beside this file, nor a newer version of a
// runtime assembly than the runtime has. For each such name it asks this handler:
//
//   - a name the runtime (or the app) has: its copy, whatever version was asked for. On .NET 8
//     and 9, OpenTelemetry asks for System.Diagnostics.DiagnosticSource 10.0.0.0; it gets the
//     runtime's, so that its Activity is the one HttpClient and ASP.NET Core use (a second copy
//     in another load context would be a second Activity type, invisible to them);
//   - otherwise the file of that name beside this library (OpenTelemetry*.dll and, in an app
//     without them, Microsoft.Extensions.*.dll).
//
// Everything loads once, into the default context: the app's code and this library see the
// same types.
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
        static HashSet<string> platform = new HashSet<string>(StringComparer.OrdinalIgnoreCase);

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
                        platform.Add(Path.GetFileNameWithoutExtension(path));
                }
                AssemblyLoadContext.Default.Resolving += Resolve;
            }
        }

        static Assembly? Resolve(AssemblyLoadContext context, AssemblyName name)
        {
            if (name.Name == null)
                return null;
            if (platform.Contains(name.Name))
            {
                // Asked for a newer version than the runtime's: take the runtime's. Loading it
                // by its name alone cannot come back here (the name is found).
                foreach (Assembly loaded in context.Assemblies)
                {
                    if (string.Equals(loaded.GetName().Name, name.Name, StringComparison.OrdinalIgnoreCase))
                        return loaded;
                }
                return context.LoadFromAssemblyName(new AssemblyName(name.Name));
            }
            string path = Path.Combine(folder, name.Name + ".dll");
            return File.Exists(path) ? context.LoadFromAssemblyPath(path) : null;
        }
    }
}
