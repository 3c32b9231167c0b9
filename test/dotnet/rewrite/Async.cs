// Async methods and iterators: state machines with awaits inside try/catch/finally,
// exceptions through awaits, ValueTask, async iterators, iterators with finally and yield
// break, Task.WhenAll.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;

static class AsyncAndIterators
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static IEnumerable<long> Fibonacci(int count)
    {
        long a = 0, b = 1;
        for (int i = 0; i < count; i++)
        {
            if (a > 1000)
                yield break;
            yield return a;
            (a, b) = (b, a + b);
        }
    }

    static readonly List<string> Log = new();

    [MethodImpl(MethodImplOptions.NoInlining)]
    static IEnumerable<string> Guarded(int stopAt)
    {
        try
        {
            for (int i = 0; ; i++)
            {
                try
                {
                    if (i == stopAt)
                        throw new InvalidOperationException("iterator stopped at " + i);
                    yield return "item" + i;
                }
                finally
                {
                    Log.Add("inner finally " + i);
                }
            }
        }
        finally
        {
            Log.Add("outer finally");
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static IEnumerable<T> Interleave<T>(IEnumerable<T> a, IEnumerable<T> b)
    {
        using var ea = a.GetEnumerator();
        using var eb = b.GetEnumerator();
        bool more = true;
        while (more)
        {
            more = false;
            if (ea.MoveNext())
            {
                more = true;
                yield return ea.Current;
            }
            if (eb.MoveNext())
            {
                more = true;
                yield return eb.Current;
            }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static async Task<int> Add(int a, int b)
    {
        await Task.Yield();
        return a + b;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static async ValueTask<int> Cached(int n)
    {
        if (n < 10)
            return n * 2;
        await Task.Delay(1).ConfigureAwait(false);
        return n * 3;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static async Task Fail(int depth)
    {
        if (depth == 0)
        {
            await Task.Yield();
            throw new TimeoutException("async failure at the bottom");
        }
        try
        {
            await Fail(depth - 1);
        }
        finally
        {
            Log.Add("async finally " + depth);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static async Task<string> Chain()
    {
        int x = await Add(1, 2);
        int y = await Add(x, 10);
        int z = await Cached(4) + await Cached(20);
        string s = $"{y}/{z}";
        try
        {
            await Fail(3);
        }
        catch (TimeoutException e) when (e.Message.Contains("bottom"))
        {
            s += " caught " + e.GetType().Name + ": " + e.Message;
        }
        finally
        {
            s += " finally";
        }
        try
        {
            await Task.WhenAll(Fail(0), Add(1, 1));
        }
        catch (Exception e)
        {
            s += " | whenall " + e.GetType().Name;
        }
        return s;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static async IAsyncEnumerable<int> Squares(int n)
    {
        for (int i = 1; i <= n; i++)
        {
            if (i % 2 == 0)
                await Task.Yield();
            yield return i * i;
        }
    }

    public static async Task Run()
    {
        Console.WriteLine("fib = " + string.Join(",", Fibonacci(40)));
        Log.Clear();
        var taken = new List<string>();
        foreach (var s in Guarded(10))
        {
            taken.Add(s);
            if (taken.Count == 2)
                break;
        }
        Console.WriteLine("guarded early break = " + string.Join(",", taken) + " | " + string.Join(",", Log));
        Log.Clear();
        try
        {
            foreach (var s in Guarded(2))
                taken.Add(s);
        }
        catch (InvalidOperationException e)
        {
            Console.WriteLine("guarded throw = " + e.Message + " | " + string.Join(",", Log));
        }
        Console.WriteLine("interleave = " + string.Join(",", Interleave(new[] { 1, 3, 5, 7 }, new[] { 2, 4 })));
        Console.WriteLine("linq = " + string.Join(",", Enumerable.Range(1, 30).Where(x => x % 4 == 1).Select(x => x * x).Reverse().Take(4)));
        Log.Clear();
        Console.WriteLine("async = " + await Chain() + " | " + string.Join(",", Log.Distinct().OrderBy(x => x)));
        int sum = 0;
        await foreach (int sq in Squares(6))
            sum += sq;
        Console.WriteLine("async iterator = " + sum);
        var tasks = Enumerable.Range(0, 8).Select(i => Add(i, i * 10)).ToArray();
        Console.WriteLine("whenall = " + string.Join(",", await Task.WhenAll(tasks)));
    }
}
