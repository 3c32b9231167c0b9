// How a process ends: a stack overflow, FailFast, an unhandled exception, Environment.Exit
// from places other than Main, and the handlers that run at exit. Each must end with the same
// output, the same stderr and the same exit status under the engine as without it.
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using System.Threading;

static class Endings
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Recurse(int depth, long a, long b)
    {
        if (depth == -1)
            return 0;
        return Recurse(depth + 1, a + depth, b ^ a) + 1;
    }

    public static int StackOverflow(string[] args)
    {
        Console.WriteLine("recursing");
        Console.Out.Flush();
        return Recurse(args.Length, 1, 2);
    }

    // The same overflow in a child process (the engine loads there too, from the inherited
    // environment): the parent sees how it ended and the first line it wrote.
    public static int StackOverflowInChild(string[] args)
    {
        var start = new ProcessStartInfo(Environment.ProcessPath!) {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        string self = typeof(Endings).Assembly.Location;
        if (!Environment.ProcessPath!.EndsWith("/asbare"))
            start.ArgumentList.Add(self); // dotnet asbare.dll, else the apphost
        start.ArgumentList.Add("stack-overflow");
        using var child = Process.Start(start)!;
        string output = child.StandardOutput.ReadToEnd();
        string error = child.StandardError.ReadToEnd();
        child.WaitForExit();
        Console.WriteLine("child wrote: " + output.Trim());
        Console.WriteLine("child's first stderr line: " + error.Split('\n')[0]);
        Console.WriteLine("child's stderr names Recurse: " + error.Contains("at Endings.Recurse("));
        Console.WriteLine("child exit code: " + child.ExitCode);
        return 0;
    }

    public static int FailFast(string[] args)
    {
        Console.WriteLine("failing fast");
        Console.Out.Flush();
        try {
            Environment.FailFast("asbare: failing fast on purpose",
                                 new InvalidOperationException("the inner one"));
        } finally {
            Console.WriteLine("finally must not run");
        }
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Thrower(int depth)
    {
        if (depth == 0)
            throw new InvalidOperationException("nobody catches this");
        Thrower(depth - 1);
    }

    public static int Unhandled(string[] args)
    {
        AppDomain.CurrentDomain.UnhandledException += (sender, e) =>
            Console.WriteLine("UnhandledException event: " + ((Exception)e.ExceptionObject).Message +
                              ", terminating " + e.IsTerminating);
        Console.WriteLine("throwing");
        try {
            Thrower(3);
        } finally {
            Console.WriteLine("finally runs before the process ends");
        }
        return 0;
    }

    public static int UnhandledOnThread(string[] args)
    {
        var thread = new Thread(() => Thrower(2)) { Name = "worker" };
        thread.Start();
        thread.Join();
        Console.WriteLine("not reached");
        return 0;
    }

    public static int ExitCodeProperty(string[] args)
    {
        AppDomain.CurrentDomain.ProcessExit += (s, e) =>
            Console.WriteLine("ProcessExit sees exit code " + Environment.ExitCode);
        Environment.ExitCode = 42;
        try {
            Environment.Exit(Environment.ExitCode + 1);
        } finally {
            Console.WriteLine("finally must not run");
        }
        return 0;
    }

    sealed class ExitsWhenFinalized
    {
        ~ExitsWhenFinalized()
        {
            Console.WriteLine("finalizer calls Environment.Exit(7)");
            Console.Out.Flush();
            Environment.Exit(7);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Abandon() => new ExitsWhenFinalized();

    public static int ExitFromFinalizer(string[] args)
    {
        AppDomain.CurrentDomain.ProcessExit += (s, e) => Console.WriteLine("ProcessExit");
        Abandon();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        Thread.Sleep(Timeout.Infinite);
        return 0;
    }

    public static int ExitFromThread(string[] args)
    {
        AppDomain.CurrentDomain.ProcessExit += (s, e) => Console.WriteLine("ProcessExit");
        var never = new ManualResetEventSlim();
        var thread = new Thread(() => {
            Console.WriteLine("worker calls Environment.Exit(9)");
            Environment.Exit(9);
        });
        thread.Start();
        never.Wait();
        return 0;
    }

    public static int ProcessExitHandlers(string[] args)
    {
        AppDomain.CurrentDomain.ProcessExit += (s, e) => Console.WriteLine("ProcessExit 1");
        AppDomain.CurrentDomain.ProcessExit += (s, e) => Console.WriteLine("ProcessExit 2");
        AssemblyLoadContext.Default.Unloading += context =>
            Console.WriteLine("Unloading " + context.Name);
        Console.WriteLine("Main returns 3");
        return 3;
    }
}
