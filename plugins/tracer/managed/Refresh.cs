// Asking the tracer plugin to read its points again, and writing into the engine's log, from
// managed code.
using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Clrie.Tracing
{
    /// <summary>What an application or a tracer can ask of the tracer plugin.</summary>
    public static class Tracing
    {
        /// <summary>
        /// Makes the plugin read its points files again and waits until the runtime has been
        /// asked to follow them: methods no longer named run their original code from their
        /// next call, newly named ones are traced from their next call. Returns false when no
        /// tracer plugin runs in the process (the plugin is looked for beside this assembly,
        /// where clrie installs both) or when the refresh took over 30 seconds.
        /// </summary>
        public static bool Refresh() => Plugin.Refresh();
    }

    // The plugin that loaded this library: found beside it, where clrie installs both. The
    // engine loaded it from that path, so loading it again (dlopen, LoadLibrary) gives the same
    // module, with the plugin's state; it is never unloaded.
    static class Plugin
    {
        internal const int Error = 0;
        internal const int Message = 1;

        // The plugin's file name on this system (plugins/tracer/meson.build names it).
        static readonly string FileName =
            OperatingSystem.IsWindows() ? "clrie-tracer.dll" : "libclrie-tracer.so";

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        delegate int RefreshFunction();

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        delegate int LogFunction(int level, IntPtr message);

        static readonly object Gate = new object();
        static bool looked;
        static IntPtr handle;
        static RefreshFunction? refresh;
        static LogFunction? log;

        static bool Find()
        {
            lock (Gate)
            {
                if (looked)
                    return handle != IntPtr.Zero;
                looked = true;
                string? folder = Path.GetDirectoryName(typeof(Plugin).Assembly.Location);
                if (string.IsNullOrEmpty(folder) ||
                    !NativeLibrary.TryLoad(Path.Combine(folder, FileName), out handle))
                    return false;
                if (NativeLibrary.TryGetExport(handle, "clrie_tracer_refresh", out IntPtr r))
                    refresh = Marshal.GetDelegateForFunctionPointer<RefreshFunction>(r);
                if (NativeLibrary.TryGetExport(handle, "clrie_tracer_log", out IntPtr l))
                    log = Marshal.GetDelegateForFunctionPointer<LogFunction>(l);
                return true;
            }
        }

        internal static bool Refresh() => Find() && refresh != null && refresh() == 0;

        /// <summary>One line into the engine's log (the plugin's lines, "tracer: ..."); on
        /// stderr only when no plugin takes it, so that nothing is lost.</summary>
        internal static void Log(int level, string line)
        {
            try
            {
                if (Find() && log != null)
                {
                    IntPtr utf8 = Marshal.StringToCoTaskMemUTF8(line);
                    try
                    {
                        if (log(level, utf8) == 0)
                            return;
                    }
                    finally
                    {
                        Marshal.FreeCoTaskMem(utf8);
                    }
                }
                Console.Error.WriteLine("clrie tracing: " + line);
            }
            catch (Exception)
            {
                // the log is what failed: nowhere left to say it
            }
        }

        /// <summary>An exception as the log shows it: the innermost of the wrappers that
        /// reflection adds, its type and message.</summary>
        internal static string Describe(Exception e)
        {
            while (e is System.Reflection.TargetInvocationException or TypeInitializationException &&
                   e.InnerException != null)
                e = e.InnerException;
            return e.GetType().FullName + ": " + e.Message.Replace("\r", "").Replace("\n", " ").Trim();
        }
    }
}
