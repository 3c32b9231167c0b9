// The runtime's exception machinery: type initializers that throw, filters that run in the
// first pass (before inner finally blocks), fault blocks of iterators, rethrow and
// ExceptionDispatchInfo, exceptions across await, and the frames, IL offsets and source lines
// of stack traces, which the runtime finds in rewritten methods through the engine's IL maps.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Text;
using System.Threading.Tasks;

static class Broken
{
    public static readonly int Value = Fail();

    static int Fail() => throw new InvalidOperationException("static initializer failed");
}

static class BrokenCctor
{
    public static int Value;

    static BrokenCctor()
    {
        Value = 1;
        throw new NotSupportedException("static constructor failed");
    }
}

static class Generic<T>
{
    public static readonly string Name = typeof(T) == typeof(int) ? throw new ArgumentException("no ints")
                                                                  : typeof(T).Name;
}

static class Exceptions
{
    static void Print(Exception e) =>
        Console.WriteLine(e.GetType().FullName + ": " + e.Message +
                          (e.InnerException is { } inner ? " <- " + inner.GetType().FullName + ": " +
                                                               inner.Message : ""));

    public static int TypeInitializer(string[] args)
    {
        for (int i = 0; i < 2; i++) {
            try { Console.WriteLine(Broken.Value); } catch (TypeInitializationException e) { Print(e); }
            try { Console.WriteLine(BrokenCctor.Value); } catch (TypeInitializationException e) { Print(e); }
        }
        try { Console.WriteLine(Generic<int>.Name); } catch (TypeInitializationException e) { Print(e); }
        Console.WriteLine(Generic<string>.Name);
        Exception? first = null, second = null;
        try { _ = BrokenCctor.Value; } catch (Exception e) { first = e; }
        try { _ = BrokenCctor.Value; } catch (Exception e) { second = e; }
        Console.WriteLine("the same exception both times: " + ReferenceEquals(first, second));
        return 0;
    }

    static readonly List<string> Log = new();

    static bool Note(string what, bool result)
    {
        Log.Add(what);
        return result;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Inner()
    {
        try {
            throw new InvalidOperationException("inner");
        } finally {
            Log.Add("inner finally");
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Middle()
    {
        try {
            Inner();
        } catch (Exception) when (Note("middle filter says no", false)) {
            Log.Add("middle catch (wrong)");
        } finally {
            Log.Add("middle finally");
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static bool ThrowingFilter(Exception e)
    {
        Log.Add("throwing filter");
        throw new ApplicationException("from a filter");
    }

    public static int Filters(string[] args)
    {
        try {
            Middle();
        } catch (InvalidOperationException e) when (Note("outer filter says yes: " + e.Message, true)) {
            Log.Add("outer catch");
        }
        // A filter that throws counts as false; the next handler takes the exception.
        try {
            try {
                throw new FormatException("second");
            } catch (FormatException e) when (ThrowingFilter(e)) {
                Log.Add("wrong catch");
            }
        } catch (FormatException e) {
            Log.Add("outer catch of " + e.Message);
        }
        // Filters see the exception before any finally below them has run.
        int counter = 0;
        try {
            try {
                try {
                    throw new Exception("third");
                } finally {
                    counter += 10;
                    Log.Add("finally sets the counter to " + counter);
                }
            } catch when (Note("filter sees the counter at " + counter, counter == 0)) {
                Log.Add("caught with the counter at " + counter);
            }
        } catch {
            Log.Add("wrong");
        }
        foreach (var line in Log)
            Console.WriteLine(line);
        return 0;
    }

    static IEnumerable<int> Numbers(List<string> log, int throwAt)
    {
        try {
            for (int i = 0; ; i++) {
                if (i == throwAt)
                    throw new InvalidOperationException("iterator throws at " + i);
                try {
                    yield return i;
                } finally {
                    log.Add("inner finally after " + i);
                }
            }
        } finally {
            log.Add("iterator finally");
        }
    }

    sealed class Resource : IDisposable
    {
        readonly List<string> log;
        public Resource(List<string> log) => this.log = log;
        public void Dispose() => log.Add("resource disposed");
    }

    static IEnumerable<string> Using(List<string> log)
    {
        using var resource = new Resource(log);
        yield return "a";
        yield return "b";
    }

    public static int IteratorDispose(string[] args)
    {
        var log = new List<string>();
        foreach (int n in Numbers(log, -1)) {
            log.Add("got " + n);
            if (n == 2)
                break;
        }
        try {
            foreach (int n in Numbers(log, 1))
                log.Add("got " + n);
        } catch (InvalidOperationException e) {
            log.Add("caught: " + e.Message);
        }
        try {
            foreach (int n in Numbers(log, -1)) {
                log.Add("got " + n);
                if (n == 1)
                    throw new ApplicationException("the loop body throws");
            }
        } catch (ApplicationException e) {
            log.Add("caught: " + e.Message);
        }
        log.Add("first of Using: " + Using(log).First());
        var enumerator = Numbers(log, -1).GetEnumerator();
        enumerator.MoveNext();
        enumerator.Dispose();
        enumerator.Dispose();
        foreach (var line in log)
            Console.WriteLine(line);
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Throw(string message) => throw new InvalidOperationException(message);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RethrowKeepsTrace()
    {
        try {
            Throw("rethrown");
        } catch (InvalidOperationException) {
            throw;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void ThrowAgainResetsTrace()
    {
        try {
            Throw("thrown again");
        } catch (InvalidOperationException e) {
#pragma warning disable CA2200 // the point: a stack trace that starts again here
            throw e;
#pragma warning restore CA2200
        }
    }

    public static int Rethrow(string[] args)
    {
        try { RethrowKeepsTrace(); } catch (Exception e) { Console.WriteLine(e); }
        try { ThrowAgainResetsTrace(); } catch (Exception e) { Console.WriteLine(e); }
        ExceptionDispatchInfo? captured = null;
        try { Throw("captured"); } catch (Exception e) { captured = ExceptionDispatchInfo.Capture(e); }
        try { captured!.Throw(); } catch (Exception e) { Console.WriteLine(e); }
        try {
            try {
                Throw("wrapped");
            } catch (Exception e) {
                throw new ApplicationException("outer", e);
            }
        } catch (Exception e) {
            Console.WriteLine(e);
        }
        return 0;
    }

    static async Task<int> Deep(int depth)
    {
        await Task.Yield();
        if (depth == 0)
            throw new InvalidOperationException("async failure");
        return await Deep(depth - 1) + 1;
    }

    static async Task Both()
    {
        var a = Deep(1);
        var b = Task.Run(() => Throw("in Task.Run"));
        try {
            await Task.WhenAll(a, b);
        } catch (Exception e) {
            Console.WriteLine("awaited WhenAll throws one of the two: " +
                              (e.Message is "async failure" or "in Task.Run"));
        }
        var all = Task.WhenAll(Deep(0), Task.Run(() => Throw("second")));
        try {
            all.Wait();
        } catch (AggregateException e) {
            Console.WriteLine("Wait throws an AggregateException of " + e.InnerExceptions.Count + ": " +
                              string.Join(", ", e.InnerExceptions.Select(x => x.Message).OrderBy(x => x)));
        }
    }

    public static int AsyncExceptions(string[] args)
    {
        try {
            Deep(3).GetAwaiter().GetResult();
        } catch (Exception e) {
            Console.WriteLine(e);
        }
        Both().GetAwaiter().GetResult();
        return 0;
    }

    // Every exception the runtime raises, first chance, in order: the app's own throws, the
    // faults turned into exceptions, and the ones the framework throws and catches itself.
    public static int FirstChance(string[] args)
    {
        var seen = new List<string>();
        AppDomain.CurrentDomain.FirstChanceException += (sender, e) => {
            lock (seen)
                seen.Add(e.Exception.GetType().Name);
        };
        int zero = args.Length;
        object? nothing = null;
        try { Console.WriteLine(1 / zero); } catch (DivideByZeroException) { }
        try { Console.WriteLine(nothing!.ToString()); } catch (NullReferenceException) { }
        try { Console.WriteLine(checked(int.MaxValue + (zero + 1))); } catch (OverflowException) { }
        try { Throw("thrown"); } catch (InvalidOperationException) when (zero == 0) { }
        try { int.Parse("not a number"); } catch (FormatException) { }
        try { _ = new Dictionary<int, int>()[zero]; } catch (KeyNotFoundException) { }
        try {
            try { Throw("inner"); } finally { seen.Add("(finally)"); }
        } catch (InvalidOperationException) {
        }
        try { Task.Run(() => Throw("in a task")).Wait(); } catch (AggregateException) { }
        lock (seen)
            Console.WriteLine(string.Join(" ", seen));
        return 0;
    }

    static string Frames(StackTrace trace)
    {
        var text = new StringBuilder();
        foreach (var frame in trace.GetFrames()) {
            var method = frame.GetMethod();
            if (method?.DeclaringType?.Assembly != typeof(Exceptions).Assembly)
                continue; // the runtime's own frames differ between tiers, not with the engine
            text.Append("  ").Append(method.DeclaringType!.Name).Append("::").Append(method.Name)
                .Append(" IL_").Append(frame.GetILOffset().ToString("x4"))
                .Append(" line ").Append(frame.GetFileLineNumber())
                .Append(" column ").Append(frame.GetFileColumnNumber()).Append('\n');
        }
        return text.ToString();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Level3(int x)
    {
        int y = x * 2;
        if (y > 4)
            y -= 1;
        var array = new int[y];
        return array[y + 1];
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Level2(int x)
    {
        int total = 0;
        for (int i = 0; i < 3; i++)
            total += i;
        return Level3(x + total) + total;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Level1(int x)
    {
        switch (x) {
        case 0:
            return Level2(x);
        case 1:
            return Level2(x) + 1;
        default:
            return -1;
        }
    }

    public static int StackTraceLines(string[] args)
    {
        try {
            Level1(1 + args.Length);
        } catch (Exception e) {
            Console.WriteLine("no frame for x = 2: " + e.GetType().Name);
        }
        try {
            Level1(args.Length);
        } catch (IndexOutOfRangeException e) {
            Console.WriteLine(e.StackTrace);
            Console.Write(Frames(new StackTrace(e, true)));
        }
        try {
            Level1(1 + args.Length);
        } catch (Exception e) when (e is not IndexOutOfRangeException) {
            Console.WriteLine("wrong: " + e);
        } catch (IndexOutOfRangeException e) {
            Console.Write(Frames(new StackTrace(e, true)));
        }
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static T Call<T>(Func<T> f) => f();

    public static int StackTraceFromLambda(string[] args)
    {
        int captured = args.Length;
        Func<StackTrace> lambda = () => new StackTrace(captured, true);
        Console.Write(Frames(Call(lambda)));
        StackTrace Local() => new StackTrace(true);
        Console.Write(Frames(Call(Local)));
        var fromTask = Task.Run(() => Frames(new StackTrace(true))).Result;
        Console.Write(fromTask);
        Console.WriteLine(Environment.StackTrace.Split('\n')
                              .Where(line => line.Contains("Exceptions."))
                              .Select(line => line.Trim())
                              .Aggregate("Environment.StackTrace:", (a, b) => a + "\n  " + b));
        return 0;
    }
}
