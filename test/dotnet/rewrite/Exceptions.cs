// Exceptions: nested try/catch/finally/filter, the two-pass order of filters and finallys,
// exceptions thrown through several frames and caught, wrapped or rethrown, exceptions in
// filters and finallys, ExceptionDispatchInfo, and the line numbers of a stack trace (which
// a rewriter keeps only if its IL map is right).
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;

static class Exceptions
{
    static readonly List<string> Log = new();

    public static void Run()
    {
        for (int mode = 0; mode < 6; mode++)
            Console.WriteLine($"nested({mode}) = {Nested(mode)}");
        for (int mode = 0; mode < 4; mode++)
        {
            Log.Clear();
            try
            {
                Outer(mode);
                Log.Add("no exception");
            }
            catch (Exception e) when (Note("filter in Run sees " + e.GetType().Name))
            {
                Log.Add("caught in Run: " + Program.Describe(e));
            }
            Console.WriteLine($"frames({mode}): " + string.Join(" | ", Log));
        }
        Console.WriteLine("filter throws = " + FilterThrows());
        Console.WriteLine("finally replaces = " + FinallyReplaces());
        Console.WriteLine("dispatch info = " + DispatchInfo());
        Console.WriteLine("through delegate = " + ThroughDelegate());
        Console.WriteLine("try in catch in finally = " + Deeply());
        Console.WriteLine("return from finally paths = " + string.Join(",", ReturnPaths(0), ReturnPaths(1), ReturnPaths(2)));
        Console.WriteLine("stack trace lines = " + StackTraceLines());
    }

    static bool Note(string what)
    {
        Log.Add(what);
        return true;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Nested(int mode)
    {
        string trace = "";
        try
        {
            trace += "a";
            try
            {
                trace += "b";
                try
                {
                    if (mode == 1)
                        throw new ArgumentException("one");
                    if (mode == 2)
                        throw new InvalidOperationException("two");
                    if (mode == 3)
                        return trace + "R";
                    if (mode == 5)
                        throw new KeyNotFoundException("five");
                    trace += "c";
                }
                catch (ArgumentException e) when (e.Message == "one")
                {
                    trace += "d";
                }
                finally
                {
                    trace += "e";
                }
                if (mode == 4)
                    throw new FormatException("four");
            }
            catch (InvalidOperationException e)
            {
                trace += "f(" + e.Message + ")";
                try
                {
                    throw new TimeoutException("inner");
                }
                catch (TimeoutException)
                {
                    trace += "t";
                }
            }
            finally
            {
                trace += "g";
            }
        }
        catch (FormatException e) when (e.Message.Length > 2)
        {
            trace += "h";
        }
        catch (Exception e)
        {
            trace += "i:" + e.GetType().Name;
        }
        finally
        {
            trace += "j";
        }
        return trace;
    }

    // Outer -> Middle -> Inner: each frame has a finally and a filter that logs, so the log
    // shows the first pass (filters, innermost first) before the second (finallys).
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Outer(int mode)
    {
        try
        {
            Middle(mode);
        }
        catch (ArgumentException e) when (Note("filter in Outer sees " + e.GetType().Name) && mode == 1)
        {
            Log.Add("caught in Outer: " + e.Message);
        }
        finally
        {
            Log.Add("finally in Outer");
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Middle(int mode)
    {
        try
        {
            Inner(mode);
        }
        catch (InvalidOperationException e) when (Note("filter in Middle sees " + e.GetType().Name))
        {
            Log.Add("wrapping in Middle");
            throw new ApplicationException("wrapped by Middle", e);
        }
        catch (ArgumentException) when (mode == 3)
        {
            Log.Add("rethrowing in Middle");
            throw;
        }
        finally
        {
            Log.Add("finally in Middle");
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Inner(int mode)
    {
        try
        {
            switch (mode)
            {
                case 1: throw new ArgumentException("bad argument");
                case 2: throw new InvalidOperationException("bad state");
                case 3: throw new ArgumentOutOfRangeException("index", "out of range");
            }
            Log.Add("Inner returns");
        }
        finally
        {
            Log.Add("finally in Inner");
        }
    }

    // An exception inside a filter is swallowed: the filter counts as false.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static string FilterThrows()
    {
        try
        {
            try
            {
                throw new InvalidCastException("cast");
            }
            catch (Exception e) when (Explode(e))
            {
                return "first handler";
            }
        }
        catch (InvalidCastException e)
        {
            return "second handler: " + e.Message;
        }
    }

    static bool Explode(Exception e) => throw new NullReferenceException("in filter " + e.Message);

    // An exception thrown in a finally replaces the one in flight.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static string FinallyReplaces()
    {
        try
        {
            try
            {
                throw new DivideByZeroException("original");
            }
            finally
            {
                throw new ObjectDisposedException("replacement");
            }
        }
        catch (Exception e)
        {
            return Program.Describe(e);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string DispatchInfo()
    {
        ExceptionDispatchInfo? captured = null;
        try
        {
            int[] a = new int[2];
            a[Environment.ProcessorCount + 5] = 1;
        }
        catch (IndexOutOfRangeException e)
        {
            captured = ExceptionDispatchInfo.Capture(e);
        }
        try
        {
            captured!.Throw();
            return "not thrown";
        }
        catch (IndexOutOfRangeException e)
        {
            return e.GetType().Name + " again";
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string ThroughDelegate()
    {
        Func<int, int> f = x => x > 2 ? throw new ArithmeticException("delegate " + x) : x;
        int sum = 0;
        for (int i = 0; i < 5; i++)
        {
            try
            {
                sum += f(i);
            }
            catch (ArithmeticException e)
            {
                sum += 100;
                if (i == 4)
                    return sum + " (" + e.Message + ")";
            }
        }
        return "unreachable";
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Deeply()
    {
        string s = "";
        try
        {
            s += "1";
        }
        finally
        {
            try
            {
                s += "2";
                throw new EndOfStreamException("eos");
            }
            catch (EndOfStreamException)
            {
                s += "3";
                try
                {
                    s += "4";
                }
                finally
                {
                    s += "5";
                }
            }
        }
        return s;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string ReturnPaths(int mode)
    {
        string s = "<";
        try
        {
            if (mode == 0)
                return s + "early";
            try
            {
                if (mode == 1)
                    return s + "inner";
            }
            finally
            {
                s += "f1";
            }
            return s + "late";
        }
        finally
        {
            s += "f2";
            Log.Add(s);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string StackTraceLines()
    {
        try
        {
            Level1(3);
            return "no exception";
        }
        catch (Exception e)
        {
            var parts = new List<string>();
            foreach (StackFrame frame in new StackTrace(e, true).GetFrames())
                parts.Add(frame.GetMethod()?.Name + ":" + frame.GetFileLineNumber());
            return string.Join(" ", parts);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Level1(int n)
    {
        int x = n * 2;
        x += Level2(x);
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Level2(int n)
    {
        if (n > 100)
            return n;
        int y = n + 1;
        y += Level3(y);
        return y;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Level3(int n)
    {
        if (n < 0)
            return 0;
        throw new InvalidOperationException("level 3 of " + n);
    }
}
