// Loads, uses and unloads a second assembly, so a profiler sees assembly and module loads
// and unloads besides the app's own. Argument: the path of eventslib.dll.
using System;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;

static class Program
{
    static int Main(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("usage: events PATH-TO-eventslib.dll");
            return 2;
        }
        WeakReference context = UseAndUnload(args[0]);
        for (int i = 0; context.IsAlive && i < 20; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
        Console.WriteLine(context.IsAlive ? "eventslib still loaded" : "eventslib unloaded");
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static WeakReference UseAndUnload(string path)
    {
        var context = new AssemblyLoadContext("eventslib", isCollectible: true);
        Assembly lib = context.LoadFromAssemblyPath(path);
        var greet = lib.GetType("EventsLib.Greeter")!.GetMethod("Greet")!;
        Console.WriteLine(greet.Invoke(null, new object[] { "profiler" }));
        context.Unload();
        return new WeakReference(context);
    }
}
