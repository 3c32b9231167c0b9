// Generics: generic methods and classes over value and reference types (shared code with
// runtime lookups), constrained calls on value types, static abstract interface members,
// generic virtual methods, generic math, new() and type tests on T.
using System;
using System.Collections.Generic;
using System.Numerics;
using System.Runtime.CompilerServices;

static class Generics
{
    interface ICounter
    {
        int Next();
        string Name { get; }
    }

    // A mutable struct: a constrained call must mutate the caller's copy, not a boxed one.
    struct StructCounter : ICounter
    {
        int n;
        public int Next() => ++n;
        public string Name => "struct";
        public override string ToString() => "StructCounter(" + n + ")";
    }

    sealed class ClassCounter : ICounter
    {
        int n = 100;
        public int Next() => ++n;
        public string Name => "class";
    }

    interface IParse<TSelf> where TSelf : IParse<TSelf>
    {
        static abstract TSelf Parse(string s);
        static virtual string Kind => "parseable";
    }

    readonly struct Celsius : IParse<Celsius>
    {
        public readonly double Value;
        public Celsius(double v) => Value = v;
        public static Celsius Parse(string s) => new Celsius(double.Parse(s, System.Globalization.CultureInfo.InvariantCulture));
        public static string Kind => "temperature";
        public override string ToString() => Value.ToString("0.0", System.Globalization.CultureInfo.InvariantCulture) + "C";
    }

    sealed class Word : IParse<Word>
    {
        public readonly string Text;
        Word(string t) => Text = t;
        public static Word Parse(string s) => new Word(s.Trim());
        public override string ToString() => "Word(" + Text + ")";
    }

    sealed class Box<T>
    {
        readonly List<T> items = new();
        public static int Created;
        public Box() => Created++;
        public Box<T> Add(T item)
        {
            items.Add(item);
            return this;
        }
        public T? FirstOr(Func<T, bool> predicate)
        {
            foreach (var item in items)
                if (predicate(item))
                    return item;
            return default;
        }
    }

    abstract class Visitor
    {
        public abstract string Visit<T>(T value);
    }

    sealed class Describer : Visitor
    {
        public override string Visit<T>(T value) =>
            typeof(T).Name + "=" + (value is IFormattable f ? f.ToString(null, System.Globalization.CultureInfo.InvariantCulture) : value?.ToString() ?? "null");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Drive<T>(ref T counter, int times) where T : ICounter
    {
        int last = 0;
        for (int i = 0; i < times; i++)
            last = counter.Next();
        return counter.Name + ":" + last + ":" + counter.ToString() + ":" + counter.GetHashCode().GetType().Name;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string ParseAll<T>(params string[] inputs) where T : IParse<T>
    {
        var parts = new List<string>();
        foreach (var s in inputs)
            parts.Add(T.Parse(s)!.ToString()!);
        return T.Kind + " " + string.Join(",", parts);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static T Sum<T>(IEnumerable<T> values) where T : INumber<T>
    {
        T total = T.Zero;
        foreach (var v in values)
            total += v;
        return total;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static T Make<T>() where T : new() => new T();

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string What<T>(object o) => o is T t ? "is " + typeof(T).Name + " " + t : "not " + typeof(T).Name;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static (T Min, T Max) MinMax<T>(T[] values) where T : IComparable<T>
    {
        T min = values[0], max = values[0];
        foreach (var v in values)
        {
            if (v.CompareTo(min) < 0)
                min = v;
            if (v.CompareTo(max) > 0)
                max = v;
        }
        return (min, max);
    }

    public static void Run()
    {
        var s = new StructCounter();
        Console.WriteLine("constrained struct = " + Drive(ref s, 3) + " then " + s);
        var c = new ClassCounter();
        Console.WriteLine("constrained class = " + Drive(ref c, 2));
        Console.WriteLine(ParseAll<Celsius>("21.5", "-3"));
        Console.WriteLine(ParseAll<Word>(" alpha ", "beta"));
        Console.WriteLine($"sums = {Sum(new[] { 1, 2, 3 })}, {Sum(new[] { 1.5, 2.25 })}, {Sum(new decimal[] { 1.1m, 2.2m })}, {Sum(new BigInteger[] { BigInteger.Pow(2, 70), 1 })}");
        var ints = new Box<int>().Add(3).Add(8).Add(12);
        var strings = new Box<string>().Add("pear").Add("fig").Add("banana");
        var objects = new Box<object>().Add(1).Add("two");
        Console.WriteLine($"boxes = {ints.FirstOr(x => x > 5)}, {strings.FirstOr(x => x.Length == 3)}, " +
                          $"{objects.FirstOr(x => x is string)}, {strings.FirstOr(x => x.Length > 10) ?? "none"}, " +
                          $"created {Box<int>.Created}/{Box<string>.Created}/{Box<object>.Created}");
        Visitor v = new Describer();
        Console.WriteLine($"generic virtual = {v.Visit(42)}, {v.Visit("s")}, {v.Visit(2.5)}, {v.Visit<object?>(null)}, {v.Visit(new StructCounter())}");
        Console.WriteLine($"new() = {Make<List<int>>().Count}, {Make<StructCounter>()}");
        Console.WriteLine($"type tests = {What<int>(5)}, {What<string>(5)}, {What<IComparable>("x")}");
        Console.WriteLine($"minmax = {MinMax(new[] { 5, -2, 9 })}, {MinMax(new[] { "m", "a", "z" })}");
    }
}
