using System.Globalization;
using Real.Core;

namespace Real.Shapes;

/// <summary>A shape.</summary>
public abstract record Shape(string Name)
{
    /// <summary>Area.</summary>
    public abstract double Area { get; }
    /// <summary>Perimeter.</summary>
    public virtual double Perimeter => 0;
    /// <summary>Text.</summary>
    public sealed override string ToString() => string.Format(CultureInfo.InvariantCulture, "{0}: area {1:F3}, perimeter {2:F3}", Name, Area, Perimeter);
}
/// <summary>Circle.</summary>
public sealed record Circle(double R) : Shape("circle")
{
    /// <inheritdoc/>
    public override double Area => Math.PI * R * R;
    /// <inheritdoc/>
    public override double Perimeter => 2 * Math.PI * R;
}
/// <summary>Rect.</summary>
public sealed record Rect(double W, double H) : Shape("rect")
{
    /// <inheritdoc/>
    public override double Area => W * H;
    /// <inheritdoc/>
    public override double Perimeter => 2 * (W + H);
}
/// <summary>Triangle.</summary>
public sealed record Triangle(double A, double B, double C) : Shape("triangle")
{
    /// <summary>Validated.</summary>
    public static Triangle Create(double a, double b, double c)
    {
        if (a + b <= c || a + c <= b || b + c <= a) throw new LedgerException($"no triangle {a},{b},{c}") { Code = 7 };
        return new Triangle(a, b, c);
    }
    /// <inheritdoc/>
    public override double Area { get { var s = Perimeter / 2; return Math.Sqrt(s * (s - A) * (s - B) * (s - C)); } }
    /// <inheritdoc/>
    public override double Perimeter => A + B + C;
}

/// <summary>A struct with generic math.</summary>
public readonly struct Vec<T>(T x, T y) : IEquatable<Vec<T>> where T : System.Numerics.INumber<T>
{
    /// <summary>X.</summary>
    public T X { get; } = x;
    /// <summary>Y.</summary>
    public T Y { get; } = y;
    /// <summary>Add.</summary>
    public static Vec<T> operator +(Vec<T> a, Vec<T> b) => new(a.X + b.X, a.Y + b.Y);
    /// <summary>Dot.</summary>
    public T Dot(Vec<T> o) => X * o.X + Y * o.Y;
    /// <inheritdoc/>
    public bool Equals(Vec<T> o) => X == o.X && Y == o.Y;
    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is Vec<T> v && Equals(v);
    /// <inheritdoc/>
    public override int GetHashCode() => HashCode.Combine(X, Y);
    /// <inheritdoc/>
    public override string ToString() => $"({X}, {Y})";
}

/// <summary>Queries over shapes.</summary>
public static class Catalog
{
    /// <summary>Sample shapes.</summary>
    public static IReadOnlyList<Shape> Sample(int n) => Enumerable.Range(1, n).Select<int, Shape>(i => (i % 3) switch
    {
        0 => new Circle(i / 2.0),
        1 => new Rect(i, i + 1),
        _ => Triangle.Create(i, i + 1, i + 2),
    }).ToList();
    /// <summary>Group areas.</summary>
    public static Dictionary<string, double> TotalAreaByKind(IEnumerable<Shape> shapes) =>
        shapes.GroupBy(s => s.Name).OrderBy(g => g.Key, StringComparer.Ordinal).ToDictionary(g => g.Key, g => Math.Round(g.Sum(s => s.Area), 6));
    /// <summary>Largest.</summary>
    public static Shape? Largest(IEnumerable<Shape> shapes) => shapes.MaxBy(s => s.Area);
    /// <summary>Report.</summary>
    public static string Report(int n)
    {
        var shapes = Sample(n);
        var totals = TotalAreaByKind(shapes);
        return string.Join("\n", totals.Select(kv => string.Create(CultureInfo.InvariantCulture, $"{kv.Key,-8} {kv.Value,14:F4}")))
            + "\nlargest " + Largest(shapes);
    }
    // a deliberate warning (CS0168, variable declared but never used) to compare build output
    /// <summary>Unused.</summary>
    public static int Warned() { int unused; return 1; }
}
