// Control flow: several returns, every loop form, goto, values left on the evaluation stack
// across branches, methods that end in `throw`, empty methods.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

static class Flow
{
    public static void Run()
    {
        for (int i = -3; i <= 12; i += 3)
            Console.WriteLine($"grade({i}) = {Grade(i)}");
        Console.WriteLine($"find = {Find(new[] { 4, 8, 15, 16, 23, 42 }, 16)}, " +
                          $"{Find(new[] { 1, 2 }, 9)}, {Find(null, 1)}");
        Console.WriteLine($"loops = {Loops(30)}");
        Console.WriteLine($"goto = {Goto(17)}");
        Console.WriteLine($"nested = {NestedLoops(6)}");
        Console.WriteLine($"stack = {StackAcrossBranches(3, null)}, {StackAcrossBranches(-4, "x")}");
        Console.WriteLine($"logic = {Logic(1, 2, 3)}, {Logic(0, 0, 0)}, {Logic(5, -5, 2)}");
        Empty();
        Console.WriteLine($"expression = {Expression(7)}");
        try
        {
            Throws(3);
        }
        catch (NotSupportedException e)
        {
            Console.WriteLine($"throws: {e.GetType().Name}: {e.Message}");
        }
        Console.WriteLine($"checked = {Checked(int.MaxValue - 1)}, {Checked(int.MaxValue)}");
        Console.WriteLine($"typedref = {TypedRef(41)}");
        Console.WriteLine($"function pointers = {FunctionPointers(6)}");
        Console.WriteLine($"collatz = {Collatz(27)}");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Grade(int score)
    {
        if (score < 0)
            return "invalid";
        if (score == 0)
            return "none";
        if (score < 5)
        {
            if (score % 2 == 1)
                return "low odd";
            return "low";
        }
        if (score > 10)
            return "high";
        return score % 2 == 0 ? "mid even" : "mid odd";
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Find(int[]? values, int wanted)
    {
        if (values == null)
            return -2;
        int lo = 0, hi = values.Length - 1;
        while (lo <= hi)
        {
            int mid = (lo + hi) / 2;
            if (values[mid] == wanted)
                return mid;
            if (values[mid] < wanted)
                lo = mid + 1;
            else
                hi = mid - 1;
        }
        return -1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Loops(int n)
    {
        long total = 0;
        for (int i = 0; i < n; i++)
        {
            if (i % 7 == 0)
                continue;
            int j = i;
            while (j > 0)
            {
                total += j & 3;
                j >>= 1;
                if (total > 10_000)
                    break;
            }
            do
            {
                total ^= j + i;
                j++;
            } while (j < 3);
        }
        foreach (char c in "loop")
            total = total * 3 + c;
        foreach (var pair in new Dictionary<int, string> { [1] = "one", [2] = "two" })
            total += pair.Key * pair.Value.Length;
        return total;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Goto(int n)
    {
        int steps = 0;
    again:
        steps++;
        if (n == 1)
            goto done;
        n = n % 2 == 0 ? n / 2 : 3 * n + 1;
        if (steps < 1000)
            goto again;
    done:
        return steps;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int NestedLoops(int n)
    {
        int found = 0;
        for (int a = 1; a < n * 4; a++)
        {
            for (int b = a; b < n * 4; b++)
            {
                for (int c = b; c < n * 4; c++)
                {
                    if (a * a + b * b == c * c)
                    {
                        found = found * 100 + a * 10 + b;
                        goto nextA;
                    }
                    if (c * c > a * a + b * b)
                        break;
                }
            }
        nextA:;
        }
        return found % 1_000_003;
    }

    // Conditional expressions inside argument lists: values already on the stack where the
    // branches join.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static string StackAcrossBranches(int x, string? s)
    {
        return string.Concat(x > 0 ? "pos" : "neg", (s ?? "null").ToUpperInvariant(),
                             s?.Length.ToString() ?? "-", Math.Max(x < 0 ? -x : x, x == 3 ? 9 : 1).ToString());
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Logic(int a, int b, int c)
    {
        bool all = a != 0 && b != 0 && c != 0;
        bool any = a > 0 || b > 0 || c > 0;
        bool mixed = (a > 0 ^ b > 0) | (c == 2 & !all);
        return $"{all}/{any}/{mixed}";
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Empty()
    {
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Expression(int x) => x * x - 1;

    // No `ret` at all: the body ends in `throw`.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Throws(int n) => throw new NotSupportedException("always " + n);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Checked(int n)
    {
        try
        {
            return checked(n + 1).ToString();
        }
        catch (OverflowException e)
        {
            return e.GetType().Name;
        }
    }

    // mkrefany / refanyval / refanytype.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static string TypedRef(int value)
    {
        TypedReference r = __makeref(value);
        __refvalue(r, int) += 1;
        return __reftype(r).Name + ":" + value;
    }

    static int Square(int x) => x * x;
    static int Negate(int x) => -x;

    // calli through C# function pointers.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static unsafe int FunctionPointers(int x)
    {
        delegate*<int, int> f = x % 2 == 0 ? &Square : &Negate;
        delegate*<int, int> g = &Negate;
        return f(x) + g(f(1));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Collatz(long n)
    {
        int steps = 0;
        while (n != 1)
        {
            n = (n & 1) == 0 ? n >> 1 : n * 3 + 1;
            steps++;
        }
        return steps;
    }
}
