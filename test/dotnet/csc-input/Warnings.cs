using System;

namespace CscInput;

// Code that draws compiler warnings, so the diagnostics the compiler prints are compared too.
public class Warnings
{
    private int unused; // CS0169 is for never-used fields; this one is assigned: CS0414

    public Warnings() => unused = 1;

    [Obsolete("use New instead")]
    public static int Old() => 1;

    public static int UsesOld() => Old(); // CS0618

    public static string? MaybeNull(bool b) => b ? "text" : null;

    public static int Length(bool b) => MaybeNull(b).Length; // CS8602

    public static async System.Threading.Tasks.Task<int> NoAwait() => 42; // CS1998
}
