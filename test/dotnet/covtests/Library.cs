// The code under test: branches some tests take and others leave, so that the coverage report
// has covered, partly covered and uncovered lines and blocks to compare.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;

public static class Library
{
    public static string Classify(int value)
    {
        if (value < 0)
            return "negative";
        if (value == 0)
            return "zero";
        if (value > 1000)
            return "large"; // no test reaches this
        return value % 2 == 0 ? "even" : "odd";
    }

    public static int SafeDivide(int a, int b)
    {
        try {
            return a / b;
        } catch (DivideByZeroException) {
            return int.MinValue;
        }
    }

    public static int CountDivisionFailures(int times)
    {
        int failures = 0;
        for (int i = 0; i < times; i++) {
            if (SafeDivide(i, i % 2) == int.MinValue)
                failures++;
        }
        return failures;
    }

    static int filterCalls;

    public static string Filtered(Exception e)
    {
        try {
            throw e;
        } catch (ArgumentException a) when (Note(a.ParamName == "x")) {
            return "x";
        } catch (ArgumentException) {
            return "other argument";
        } catch (Exception) when (Note(false)) {
            return "never";
        } catch (Exception) {
            return "any";
        } finally {
            filterCalls++;
        }
    }

    static bool Note(bool result)
    {
        filterCalls++;
        return result;
    }

    public static int FilterCalls => filterCalls;

    public static T Max<T>(IEnumerable<T> items) where T : IComparable<T>
    {
        T best = default!;
        bool first = true;
        foreach (var item in items) {
            if (first || item.CompareTo(best) > 0)
                best = item;
            first = false;
        }
        if (first)
            throw new InvalidOperationException("empty");
        return best;
    }

    public static async Task<int> SumAsync(int count, bool fail)
    {
        int total = 0;
        for (int i = 0; i < count; i++) {
            await Task.Yield();
            total += i;
        }
        if (fail)
            throw new InvalidOperationException("failed after " + total);
        return total;
    }

    public static IEnumerable<int> Evens(int limit)
    {
        try {
            for (int i = 0; i < limit; i += 2)
                yield return i;
        } finally {
            Disposed++;
        }
    }

    public static int Disposed;

    public static string Shape(object o) => o switch {
        int i when i > 10 => "big int",
        int => "int",
        string { Length: 0 } => "empty string",
        string => "string",
        null => "null",
        _ => "other",
    };

    public static long Checked(int a, int b)
    {
        try {
            return checked(a * b);
        } catch (OverflowException) {
            return (long)a * b;
        }
    }

    public static int Unused(int x) => x * 3; // never called
}

public static class Lazy
{
    public static readonly string Value = Compute();

    static string Compute() => "computed " + DateTime.UnixEpoch.Year;
}

public struct Pair : IComparable<Pair>
{
    public int A, B;

    public int CompareTo(Pair other) => (A + B).CompareTo(other.A + other.B);
}
