// Static constructors: precise (explicit .cctor) and beforefieldinit types, one that throws
// (TypeInitializationException on every access), generic types with one .cctor run per
// instantiation, and the order in which the precise ones run (a beforefieldinit type's
// initialiser may run whenever the JIT likes, so it stays out of the order).
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

static class StaticConstructors
{
    public static readonly List<string> Order = new();

    static class Precise
    {
        public static readonly int Value;
        static Precise()
        {
            Order.Add("Precise");
            Value = Compute(6);
        }
        static int Compute(int n) => n <= 1 ? 1 : n * Compute(n - 1);
    }

    static class FieldInit
    {
        public static readonly string Text = Make();
        static string Make() => "initialised";
    }

    static class Broken
    {
        public static readonly int Value;
        static Broken()
        {
            Order.Add("Broken");
            if (Order.Count > 0)
                throw new InvalidOperationException("static constructor failed");
            Value = 1;
        }
    }

    static class PerType<T>
    {
        public static readonly string Name;
        static PerType()
        {
            Order.Add("PerType<" + typeof(T).Name + ">");
            Name = typeof(T).Name.ToLowerInvariant();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string TouchBroken()
    {
        try
        {
            return Broken.Value.ToString();
        }
        catch (TypeInitializationException e)
        {
            return Program.Describe(e);
        }
    }

    public static void Run()
    {
        Console.WriteLine($"precise = {Precise.Value}");
        Console.WriteLine($"field init = {FieldInit.Text}");
        Console.WriteLine($"broken, first = {TouchBroken()}");
        Console.WriteLine($"broken, second = {TouchBroken()}");
        Console.WriteLine($"per type = {PerType<int>.Name} {PerType<string>.Name} {PerType<int>.Name} {PerType<Guid>.Name}");
        Console.WriteLine($"order = {string.Join(",", Order)}");
    }
}
