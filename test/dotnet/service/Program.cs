// The long-running service of the attach tests (test/dotnet/test_attach.py on Linux,
// test/wine/test_wine_engine.py under Wine). It first prints "ready pid=<its process ID>" (the
// ID clrie-attach takes: under Wine the Windows one, which only the process knows). Every 50 ms it
// prints one line with what three methods return: Old (called from the first tick, so compiled
// before any attach), Other (never instrumented) and, once the file named by the first
// argument exists, New (compiled only then). It exits with 0 once the file named by the second
// argument exists. NoInlining keeps each a call of its own.
using System;
using System.IO;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Service
{
    static class Program
    {
        static int Main(string[] args)
        {
            string go = args[0], stop = args[1];
            Console.WriteLine("ready pid=" + Environment.ProcessId);
            for (int tick = 0; tick < 20 * 60 * 5; tick++)
            {
                string line = "old=" + Old(tick) + " other=" + Other(tick);
                if (File.Exists(go))
                    line += " new=" + New(tick);
                Console.WriteLine(line);
                if (File.Exists(stop))
                    return 0;
                Thread.Sleep(50);
            }
            return 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Old(int tick)
        {
            return tick >= 0 ? 41 : -1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int New(int tick)
        {
            return tick >= 0 ? 41 : -1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Other(int tick)
        {
            return tick >= 0 ? 7 : -1;
        }
    }
}
