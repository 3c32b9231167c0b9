// Virtual and interface dispatch: override chains with base calls, abstract members,
// default interface methods, explicit implementations, boxed structs behind interfaces,
// generic interface variance, delegates to virtual methods.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

static class Dispatch
{
    interface IGreeter
    {
        string Greet(string who);
        string Twice(string who) => Greet(who) + " " + Greet(who); // default method
    }

    interface IFarewell
    {
        string Bye();
    }

    abstract class Animal : IGreeter
    {
        public abstract string Sound { get; }
        public virtual string Describe() => "animal saying " + Sound;
        public string Greet(string who) => Sound + ", " + who;
    }

    class Dog : Animal, IFarewell
    {
        public override string Sound => "woof";
        public override string Describe() => "dog; " + base.Describe();
        string IFarewell.Bye() => "dog leaves";
    }

    sealed class Puppy : Dog
    {
        public override string Sound => "yip";
        public override string Describe() => "puppy; " + base.Describe();
    }

    struct Robot : IGreeter, IFarewell
    {
        public int Beeps;
        public string Greet(string who) => new string('b', ++Beeps) + " " + who;
        public string Bye() => "robot off after " + Beeps;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Through(IGreeter g, string who) => g.Twice(who);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Variance(IEnumerable<object> items)
    {
        var parts = new List<string>();
        foreach (var o in items)
            parts.Add(o.ToString()!);
        return string.Join("+", parts);
    }

    public static void Run()
    {
        var animals = new Animal[] { new Dog(), new Puppy() };
        foreach (var a in animals)
            Console.WriteLine($"{a.GetType().Name}: {a.Describe()} | {Through(a, "you")} | {((IFarewell)a).Bye()}");
        IGreeter boxed = new Robot();
        Console.WriteLine($"robot: {Through(boxed, "r2")} | {((IFarewell)boxed).Bye()}");
        Func<string> describe = animals[1].Describe;
        Console.WriteLine($"delegate to virtual = {describe()}");
        IEnumerable<string> words = new List<string> { "co", "variance" };
        Console.WriteLine($"variance = {Variance(words)}");
        object o = new Puppy();
        Console.WriteLine($"type tests = {o is Dog} {o is IFarewell} {o is Robot} {(o as Animal)?.Sound}");
    }
}
