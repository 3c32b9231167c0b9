// The app of test_tracer.py's refresh scenarios: it does what its stdin says, one command a
// line, and answers each on stdout:
//   call     calls Work.Alpha and Work.Beta once           -> "called <n> <alpha> <beta>"
//   refresh  Clrie.Tracing.Tracing.Refresh() by reflection -> "refreshed True|False"
//   exit     ends with exit code 0
using System;
using System.Reflection;
using System.Runtime.CompilerServices;

namespace Refreshed
{
    public static class Work
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Alpha(int n) => n * 2;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Beta(int n) => n * 3;
    }

    public static class Program
    {
        static int Main()
        {
            int calls = 0;
            string? line;
            while ((line = Console.ReadLine()) != null)
            {
                switch (line)
                {
                    case "call":
                        calls++;
                        Console.WriteLine("called " + calls + " " + Work.Alpha(calls) + " " +
                                          Work.Beta(calls));
                        break;
                    case "refresh":
                        Type? tracing = Type.GetType("Clrie.Tracing.Tracing, Clrie.Tracing");
                        object? done = tracing?.GetMethod("Refresh")?.Invoke(null, null);
                        Console.WriteLine("refreshed " + (done ?? "no library"));
                        break;
                    case "exit":
                        return 0;
                }
                Console.Out.Flush();
            }
            return 0;
        }
    }
}
