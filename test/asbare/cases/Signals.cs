// Signals the test sends (test/asbare/asbare.py SIGNALS says which, in what order): the
// runtime's own handling of SIGTERM and SIGINT, PosixSignalRegistration, Console.CancelKeyPress,
// and SIGCHLD for child processes. Each case prints "ready" once its handlers are in place,
// and one line per signal it handles; the test sends the next signal after that line.
using System;
using System.Diagnostics;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;

static class Signals
{
    static void Ready()
    {
        Console.WriteLine("ready");
        Console.Out.Flush();
    }

    public static int Handled(string[] args)
    {
        var seen = new CountdownEvent(4);
        var registrations = new[] { PosixSignal.SIGHUP, PosixSignal.SIGINT, PosixSignal.SIGQUIT,
                                    PosixSignal.SIGTERM }
            .Select(signal => PosixSignalRegistration.Create(signal, context => {
                Console.WriteLine("got " + context.Signal);
                Console.Out.Flush();
                context.Cancel = true;
                seen.Signal();
            }))
            .ToArray();
        Ready();
        seen.Wait();
        foreach (var r in registrations)
            r.Dispose();
        Console.WriteLine("all four handled");
        return 0;
    }

    // No handler of the app's: the runtime's default for SIGTERM runs the exit handlers.
    public static int TermDefault(string[] args)
    {
        AppDomain.CurrentDomain.ProcessExit += (s, e) => {
            Console.WriteLine("ProcessExit after SIGTERM");
            Console.Out.Flush();
        };
        Ready();
        Thread.Sleep(Timeout.Infinite);
        return 0;
    }

    public static int CancelKeyPress(string[] args)
    {
        int count = 0;
        Console.CancelKeyPress += (sender, e) => {
            // The line last: the test sends the next signal when it sees it, and the handler of
            // that signal may run on another thread while this one is still returning.
            bool cancel = Interlocked.Increment(ref count) < 3;
            e.Cancel = cancel;
            Console.WriteLine("CancelKeyPress " + e.SpecialKey + ", cancel " + cancel);
            Console.Out.Flush();
        };
        AppDomain.CurrentDomain.ProcessExit += (s, e) => Console.WriteLine("ProcessExit");
        Ready();
        Thread.Sleep(Timeout.Infinite);
        return 0;
    }

    // Children started and waited for: the runtime reaps them on SIGCHLD.
    public static int ChildProcesses(string[] args)
    {
        var children = Enumerable.Range(0, 16)
            .Select(i => Process.Start("/bin/sh", new[] { "-c", "exit " + i })!)
            .ToArray();
        foreach (var child in children)
            child.WaitForExit();
        Console.WriteLine("exit codes: " + string.Join(" ", children.Select(c => c.ExitCode)));

        var echo = new ProcessStartInfo("/bin/sh", new[] { "-c", "echo from the child; echo to stderr >&2" }) {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using (var child = Process.Start(echo)!) {
            string output = child.StandardOutput.ReadToEnd();
            string error = child.StandardError.ReadToEnd();
            child.WaitForExit();
            Console.WriteLine("child said: " + output.Trim() + " / " + error.Trim());
        }

        using (var killed = Process.Start("/bin/sh", new[] { "-c", "kill -TERM $$" })!) {
            killed.WaitForExit();
            Console.WriteLine("child killed by SIGTERM: exit code " + killed.ExitCode);
        }

        var exited = new ManualResetEventSlim();
        using (var evented = new Process { StartInfo = new ProcessStartInfo("/bin/true"),
                                           EnableRaisingEvents = true }) {
            evented.Exited += (s, e) => exited.Set();
            evented.Start();
            Console.WriteLine("Exited event: " + exited.Wait(60000));
        }
        return 0;
    }
}
