// What the timer plugin's rewritten methods call: Enter at the start of a timed method,
// Exit in the finally clause wrapped around its body. Each Exit writes one line,
// `timer <name> <elapsed>us`, to the file `output` (the plugin's Output setting) or, when it is
// null, to stderr.
using System;
using System.Diagnostics;
using System.IO;

namespace Clrie.Timer
{
    public static class Probe
    {
        static readonly object Gate = new object();

        [ThreadStatic]
        static bool busy; // a timed method called while a line is written is not reported

        public static long Enter(string name) => Stopwatch.GetTimestamp();

        public static void Exit(string name, long start, string? output)
        {
            long elapsed = Stopwatch.GetTimestamp() - start;
            if (busy)
                return;
            busy = true;
            try
            {
                string line = "timer " + name + " " + elapsed * 1_000_000 / Stopwatch.Frequency + "us";
                lock (Gate)
                {
                    if (string.IsNullOrEmpty(output))
                        Console.Error.WriteLine(line);
                    else
                        File.AppendAllText(output, line + "\n");
                }
            }
            finally
            {
                busy = false;
            }
        }
    }
}

// Lets the runtime load this assembly into an app that does not reference it:
// DOTNET_STARTUP_HOOKS=/path/to/Clrie.Timer.dll loads it into the default load context
// before Main, where the AssemblyRef the plugin adds to timed modules then finds it by name.
internal static class StartupHook
{
    public static void Initialize()
    {
    }
}
