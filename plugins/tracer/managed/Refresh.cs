// Asking the tracer plugin to read its points again, from managed code.
using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Clrie.Tracing
{
    /// <summary>What an application or a tracer can ask of the tracer plugin.</summary>
    public static class Tracing
    {
        // The plugin's file name on this system (plugins/tracer/meson.build names it).
        static readonly string PluginFile =
            OperatingSystem.IsWindows() ? "clrie-tracer.dll" : "libclrie-tracer.so";

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        delegate int RefreshFunction();

        /// <summary>
        /// Makes the plugin read its points files again and waits until the runtime has been
        /// asked to follow them: methods no longer named run their original code from their
        /// next call, newly named ones are traced from their next call. Returns false when no
        /// tracer plugin runs in the process (the plugin is looked for beside this assembly,
        /// where clrie installs both) or when the refresh took over 30 seconds.
        /// </summary>
        public static bool Refresh()
        {
            string? folder = Path.GetDirectoryName(typeof(Tracing).Assembly.Location);
            if (string.IsNullOrEmpty(folder))
                return false;
            // The engine loaded the plugin from this path: loading it again (dlopen,
            // LoadLibrary) gives the same module, with the plugin's state.
            if (!NativeLibrary.TryLoad(Path.Combine(folder, PluginFile), out IntPtr plugin))
                return false;
            try
            {
                if (!NativeLibrary.TryGetExport(plugin, "clrie_tracer_refresh", out IntPtr address))
                    return false;
                return Marshal.GetDelegateForFunctionPointer<RefreshFunction>(address)() == 0;
            }
            finally
            {
                NativeLibrary.Free(plugin);
            }
        }
    }
}
