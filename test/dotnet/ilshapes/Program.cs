// Method bodies of many shapes, each printing what it computed. Instrumenting every method
// must leave stdout, stderr and the exit code exactly as they are without instrumentation.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;

static class Program
{
    static int Main(string[] args)
    {
        Shapes.Run();
        Exceptions.Run();
        Generics.Run();
        Values.Run();
        AsyncAndIterators.Run().GetAwaiter().GetResult();
        Large.Run();
        Console.Error.WriteLine("stderr: done");
        return 42;
    }
}

static class Shapes
{
    public static void Run()
    {
        for (int i = -2; i < 12; i++)
            Console.WriteLine($"classify({i}) = {Classify(i)}, dense({i}) = {Dense(i)}");
        foreach (var s in new[] { "alpha", "beta", "gamma", "delta", "", "omega" })
            Console.WriteLine($"word({s}) = {Word(s)}");
        Console.WriteLine($"loops = {Loops(25)}");
        Console.WriteLine($"early = {EarlyReturns(new[] { 3, 8, -1, 4 })}, {EarlyReturns(Array.Empty<int>())}");
        int captured = 7;
        Func<int, int> add = x => x + captured;
        Console.WriteLine($"closure = {add(35)}, local = {Local(5)}");
        static int Local(int n) => n <= 1 ? 1 : n * Local(n - 1);
    }

    // Several returns, some inside nested conditions.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Classify(int n)
    {
        if (n < 0)
            return "negative";
        if (n == 0)
            return "zero";
        if (n % 2 == 0)
        {
            if (n > 6)
                return "big even";
            return "even";
        }
        return n > 6 ? "big odd" : "odd";
    }

    // Compiles to the IL switch instruction.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Dense(int n)
    {
        switch (n)
        {
            case 0: return 100;
            case 1: return 101;
            case 2: return 102;
            case 3: goto case 0;
            case 4: return 104;
            case 5:
            case 6: return 156;
            case 7: return n * 3;
            default: return -1;
        }
    }

    // A string switch: hashing, comparisons and many branches.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Word(string s) => s switch
    {
        "alpha" => 1,
        "beta" => 2,
        "gamma" => 3,
        "delta" => 4,
        "" => 0,
        _ => s.Length,
    };

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Loops(int n)
    {
        long total = 0;
        for (int i = 0; i < n; i++)
        {
            if (i % 5 == 0)
                continue;
            int j = 0;
            while (j < i)
            {
                j += 3;
                if (j > 20)
                    break;
            }
            do
            {
                total += j;
                j -= 7;
            } while (j > 0);
        }
        foreach (var x in new List<int> { 1, 2, 3 })
            total *= x;
        return total;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int EarlyReturns(int[] values)
    {
        if (values.Length == 0)
            return -100;
        int best = int.MinValue;
        foreach (int v in values)
        {
            if (v < 0)
                return best;
            best = Math.Max(best, v);
        }
        return best;
    }
}

static class Exceptions
{
    public static void Run()
    {
        for (int i = 0; i < 5; i++)
            Console.WriteLine($"nested({i}) = {Nested(i)}");
        try
        {
            Deep(6);
        }
        catch (InvalidOperationException e) when (e.Message.StartsWith("depth"))
        {
            Console.WriteLine($"caught through frames: {e.Message}");
        }
        Console.WriteLine($"filter = {Filter(3)}, {Filter(4)}");
        Console.WriteLine($"finally order = {FinallyOrder()}");
        Console.WriteLine($"checked = {Checked(int.MaxValue)}");
        Console.WriteLine($"using+lock = {UsingAndLock()}");
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
                if (mode == 1)
                    throw new ArgumentException("one");
                if (mode == 2)
                    throw new InvalidOperationException("two");
                if (mode == 3)
                    return trace + "R";
                trace += "c";
            }
            catch (ArgumentException)
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
        catch (InvalidOperationException)
        {
            trace += "f";
        }
        catch (Exception e) when (e is FormatException)
        {
            trace += "g";
        }
        finally
        {
            trace += "h";
        }
        return trace;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Deep(int n)
    {
        try
        {
            if (n == 0)
                throw new InvalidOperationException("depth reached");
            Deep(n - 1);
        }
        finally
        {
            Console.WriteLine($"unwinding {n}");
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Filter(int n)
    {
        try
        {
            throw new Exception(n.ToString());
        }
        catch (Exception e) when (int.Parse(e.Message) % 2 == 0)
        {
            return "even " + e.Message;
        }
        catch (Exception e)
        {
            return "odd " + e.Message;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string FinallyOrder()
    {
        var list = new List<string>();
        for (int i = 0; i < 3; i++)
        {
            try
            {
                if (i == 1)
                    continue;
                list.Add("body" + i);
            }
            finally
            {
                list.Add("fin" + i);
            }
        }
        return string.Join(",", list);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Checked(int n)
    {
        try
        {
            return checked(n + 1).ToString();
        }
        catch (OverflowException)
        {
            return "overflow";
        }
    }

    sealed class Resource : IDisposable
    {
        public static int Disposed;
        public void Dispose() => Disposed++;
    }

    static readonly object Gate = new object();

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int UsingAndLock()
    {
        int n = 0;
        for (int i = 0; i < 4; i++)
        {
            using (new Resource())
            {
                lock (Gate)
                {
                    n += i;
                }
            }
        }
        return n * 10 + Resource.Disposed;
    }
}

static class Generics
{
    interface IShape { double Area(); }
    struct Square : IShape { public double Side; public double Area() => Side * Side; }
    sealed class Circle : IShape { public double R; public double Area() => Math.Round(Math.PI * R * R, 3); }

    sealed class Box<T> where T : IComparable<T>
    {
        readonly List<T> items = new();
        public void Add(T item) => items.Add(item);
        public T Max()
        {
            T best = items[0];
            foreach (var item in items)
                if (item.CompareTo(best) > 0)
                    best = item;
            return best;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static double Total<T>(T[] shapes) where T : IShape
    {
        double sum = 0;
        foreach (var s in shapes)
            sum += s.Area(); // constrained. callvirt for value types
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static (T, U) Pair<T, U>(T t, U u) => (t, u);

    public static void Run()
    {
        Console.WriteLine($"squares = {Total(new[] { new Square { Side = 2 }, new Square { Side = 3 } })}");
        Console.WriteLine($"circles = {Total(new[] { new Circle { R = 1 } })}");
        var ints = new Box<int>();
        var strings = new Box<string>();
        foreach (var i in new[] { 4, 9, 2 }) ints.Add(i);
        foreach (var s in new[] { "pear", "apple", "zucchini" }) strings.Add(s);
        Console.WriteLine($"max = {ints.Max()}, {strings.Max()}");
        Console.WriteLine($"pair = {Pair(1, "one")}, {Pair(2.5, 'c')}");
        Console.WriteLine($"linq = {string.Join(",", Enumerable.Range(1, 20).Where(x => x % 3 == 0).Select(x => x * x))}");
    }
}

static class Values
{
    struct Big
    {
        public long A, B, C, D;
        public override string ToString() => $"{A}/{B}/{C}/{D}";
    }

    static int[] numbers = { 5, 6, 7 };

    [MethodImpl(MethodImplOptions.NoInlining)]
    static Big MakeBig(int seed)
    {
        if (seed < 0)
            return default;
        return new Big { A = seed, B = seed * 2L, C = seed * 3L, D = seed * 4L };
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static ref int Slot(int index)
    {
        if (index >= numbers.Length)
            return ref numbers[numbers.Length - 1];
        return ref numbers[index];
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static unsafe int StackSum(int n)
    {
        int* buffer = stackalloc int[n];
        for (int i = 0; i < n; i++)
            buffer[i] = i * i;
        Span<int> span = new Span<int>(buffer, n);
        int sum = 0;
        foreach (int v in span)
            sum += v;
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static float Floats(float x, double y) => (float)(x * 1.5f + y / 3.0);

    public static void Run()
    {
        Console.WriteLine($"big = {MakeBig(3)}, {MakeBig(-1)}");
        Slot(1) = 60;
        Slot(9) += 1;
        Console.WriteLine($"refs = {string.Join(",", numbers)}");
        Console.WriteLine($"stack = {StackSum(10)}");
        Console.WriteLine($"floats = {Floats(2.5f, 1.25).ToString("R")}");
        Console.WriteLine($"nullable = {Nullable(null)}, {Nullable(4)}");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Nullable(int? x) => x ?? -1;
}

static class AsyncAndIterators
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static IEnumerable<int> Fibonacci(int count)
    {
        int a = 0, b = 1;
        for (int i = 0; i < count; i++)
        {
            yield return a;
            (a, b) = (b, a + b);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static IEnumerable<string> WithFinally()
    {
        try
        {
            yield return "first";
            yield return "second";
        }
        finally
        {
            Console.WriteLine("iterator finally");
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static async Task<int> Add(int a, int b)
    {
        await Task.Yield();
        return a + b;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static async Task<string> Chain()
    {
        int x = await Add(1, 2);
        int y = await Add(x, 10);
        try
        {
            await Fail();
        }
        catch (InvalidOperationException e)
        {
            return $"{y} after {e.Message}";
        }
        return "unreachable";
    }

    static async Task Fail()
    {
        await Task.Delay(1);
        throw new InvalidOperationException("async failure");
    }

    public static async Task Run()
    {
        Console.WriteLine($"fib = {string.Join(",", Fibonacci(12))}");
        foreach (var s in WithFinally())
        {
            Console.WriteLine(s);
            break;
        }
        Console.WriteLine($"async = {await Chain()}");
    }
}

static class Large
{
    // A body long enough that its branches need the long forms.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Long(int n)
    {
        long acc = 1;
        for (int i = 0; i < n; i++)
        {
            acc = acc * 31 + i; acc ^= acc >> 3; acc += i * 7; acc = acc * 17 + 5; acc ^= acc << 2;
            acc = acc * 31 + i; acc ^= acc >> 5; acc += i * 11; acc = acc * 13 + 3; acc ^= acc << 1;
            acc = acc * 31 + i; acc ^= acc >> 7; acc += i * 13; acc = acc * 19 + 1; acc ^= acc << 3;
            acc = acc * 31 + i; acc ^= acc >> 2; acc += i * 17; acc = acc * 23 + 9; acc ^= acc << 4;
            if ((acc & 1) == 0)
            {
                acc = acc * 29 + i; acc ^= acc >> 3; acc += i * 19; acc = acc * 37 + 2; acc ^= acc << 2;
                acc = acc * 41 + i; acc ^= acc >> 4; acc += i * 23; acc = acc * 43 + 4; acc ^= acc << 1;
            }
            else
            {
                acc = acc * 47 + i; acc ^= acc >> 6; acc += i * 29; acc = acc * 53 + 6; acc ^= acc << 3;
                acc = acc * 59 + i; acc ^= acc >> 1; acc += i * 31; acc = acc * 61 + 8; acc ^= acc << 2;
            }
            acc &= 0xFFFFFFFFFFFF;
        }
        return acc;
    }

    public static void Run() => Console.WriteLine($"long = {Long(1000)}");
}
