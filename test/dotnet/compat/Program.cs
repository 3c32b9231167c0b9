// What test/dotnet/test_compat.py compares between clrie and Microsoft's CLRIE with one plugin
// (test/plugins/compat_probe.c): names of generic methods, and the exception events of a
// throw caught one frame up, a finally run during unwinding, a filter, and a rethrow; then a
// throw caught in its own frame whose handler throws anew, past a filter that says no and a
// finally, to a catch two frames up.
using System;
using System.Runtime.CompilerServices;

class Box<T>
{
    T value;
    public Box(T value)
    {
        this.value = value;
    }
    [MethodImpl(MethodImplOptions.NoInlining)]
    public T Get()
    {
        return value;
    }
    [MethodImpl(MethodImplOptions.NoInlining)]
    public U Convert<U>(Func<T, U> f)
    {
        return f(value);
    }
}

static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static T Max<T>(T a, T b)
        where T : IComparable<T>
    {
        return a.CompareTo(b) >= 0 ? a : b;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Twice(int x)
    {
        return x * 2;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Thrower()
    {
        throw new InvalidOperationException("probe");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void WithFinally()
    {
        try {
            Thrower();
        } finally {
            Console.WriteLine("finally ran");
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Rethrower()
    {
        try {
            WithFinally();
        } catch (InvalidOperationException) {
            Console.WriteLine("rethrowing");
            throw;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static bool Pick(Exception e)
    {
        return e is InvalidOperationException;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Catcher()
    {
        try {
            Rethrower();
        } catch (Exception e) when (Pick(e)) {
            Console.WriteLine("caught " + e.Message);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static bool Reject(Exception e)
    {
        return false;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Inner()
    {
        try {
            throw new InvalidOperationException("first");
        } catch (InvalidOperationException) {
            throw new ArgumentException("second");
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Middle()
    {
        try {
            Inner();
        } catch (Exception e) when (Reject(e)) {
            Console.WriteLine("never");
        } finally {
            Console.WriteLine("middle's finally ran");
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Outer()
    {
        try {
            Middle();
        } catch (ArgumentException e) {
            Console.WriteLine("caught " + e.Message);
        }
    }

    static int Main(string[] args)
    {
        Console.WriteLine("max " + Max(3, 7) + " " + Max("a", "b"));
        Console.WriteLine("box " + new Box<int>(4).Get() + " " +
                          new Box<int>(5).Convert(x => x + 1));
        Console.WriteLine("twice " + Twice(21));
        if (args.Length > 0 && args[0] == "exceptions") {
            Catcher();
            Outer();
        }
        return 0;
    }
}
