// Every method of this app, and of the tailcalls.dll it loads (written by ../tailgen), is
// meant to be rewritten by the engine's stress plugin; its stdout, stderr and exit code must
// then be exactly those of a run without a profiler. Every caught exception is printed with
// its type and message, so a rewrite that changes which handler runs shows in the output.
//
// Usage: dotnet rewrite.dll [PATH/tailcalls.dll]   (without it, the tail-call part is skipped
// with a line saying so)
using System;
using System.Runtime.CompilerServices;

static class Program
{
    static int Main(string[] args)
    {
        Section("flow", Flow.Run);
        Section("switches", Switches.Run);
        Section("exceptions", Exceptions.Run);
        Section("generics", Generics.Run);
        Section("values", Values.Run);
        Section("async and iterators", () => AsyncAndIterators.Run().GetAwaiter().GetResult());
        Section("closures", Closures.Run);
        Section("large", Large.Run);
        Section("static constructors", StaticConstructors.Run);
        Section("dispatch", Dispatch.Run);
        Section("threads", Threads.Run);
        Section("tail calls", () => TailCalls.Run(args.Length > 0 ? args[0] : null));
        Console.Error.WriteLine("stderr: all sections ran");
        return 37;
    }

    // Runs one part; an exception that escapes it is printed and the next part still runs.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Section(string name, Action body)
    {
        Console.WriteLine("== " + name);
        try
        {
            body();
        }
        catch (Exception e)
        {
            Console.WriteLine($"section {name} failed: {Describe(e)}");
            Console.Error.WriteLine($"stderr: section {name} failed");
        }
    }

    // An exception's type and message, and its inner exceptions'.
    public static string Describe(Exception? e)
    {
        string text = "";
        for (; e != null; e = e.InnerException)
            text += (text.Length > 0 ? " <- " : "") + e.GetType().FullName + ": " + e.Message;
        return text;
    }
}
