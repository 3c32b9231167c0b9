// Lambdas, closures and local functions: captured loop variables, nested closures, static
// lambdas, local functions capturing by reference (struct closures), recursive local
// functions, multicast delegates, events, and an expression tree compiled at run time.
using System;
using System.Collections.Generic;
using System.Linq.Expressions;
using System.Runtime.CompilerServices;

static class Closures
{
    sealed class Button
    {
        public event Action<string>? Clicked;
        public void Click(string who) => Clicked?.Invoke(who);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Captured()
    {
        var actions = new List<Func<int>>();
        for (int i = 0; i < 4; i++)
        {
            int copy = i;
            actions.Add(() => copy * copy);
        }
        int shared = 1;
        actions.Add(() => shared *= 3);
        actions.Add(() => shared += 1);
        var results = new List<int>();
        foreach (var a in actions)
            results.Add(a());
        return string.Join(",", results) + " shared=" + shared;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int NestedClosures(int seed)
    {
        Func<int, Func<int, int>> outer = a =>
        {
            int local = a + seed;
            return b => local * b + seed;
        };
        return outer(2)(3) + outer(5)(7);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string LocalFunctions(int n)
    {
        int calls = 0;
        long Fact(int k)
        {
            calls++;
            return k <= 1 ? 1 : k * Fact(k - 1);
        }
        static int Twice(int x) => 2 * x;
        void Bump(ref int v) => v += calls;
        long f = Fact(n);
        int t = Twice(n);
        Bump(ref t);
        return f + " " + t + " " + calls;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Multicast()
    {
        var log = new List<string>();
        Action<string> a = s => log.Add("a:" + s);
        a += s => log.Add("b:" + s);
        a += s => log.Add("c:" + s.Length);
        a("xy");
        a = (Action<string>)Delegate.Remove(a, a.GetInvocationList()[1])!;
        a("z");
        var button = new Button();
        button.Clicked += who => log.Add("clicked by " + who);
        button.Click("test");
        return string.Join(" ", log);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Expressions(int x)
    {
        var p = Expression.Parameter(typeof(int), "p");
        var body = Expression.Condition(
            Expression.GreaterThan(p, Expression.Constant(10)),
            Expression.Multiply(p, Expression.Constant(2)),
            Expression.Add(p, Expression.Constant(100)));
        var f = Expression.Lambda<Func<int, int>>(body, p).Compile();
        Expression<Func<int, string>> g = v => "v" + (v % 3);
        return f(x) + "," + f(x + 10) + "," + g.Compile()(x);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int StaticLambda(int[] values)
    {
        Func<int, int, int> combine = static (a, b) => a * 31 + b;
        int h = 0;
        foreach (int v in values)
            h = combine(h, v);
        return h;
    }

    public static void Run()
    {
        Console.WriteLine("captured = " + Captured());
        Console.WriteLine("nested closures = " + NestedClosures(4));
        Console.WriteLine("local functions = " + LocalFunctions(10));
        Console.WriteLine("multicast = " + Multicast());
        Console.WriteLine("expressions = " + Expressions(7));
        Console.WriteLine("static lambda = " + StaticLambda(new[] { 3, 1, 4, 1, 5 }));
        Console.WriteLine("bound delegate = " + new Func<int, string, string>("abc".Insert)(1, "-"));
    }
}
