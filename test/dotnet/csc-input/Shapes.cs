// Input for test_csc.py: the SDK's C# compiler compiles these files with and without the
// stress plugin rewriting its own code; the outputs must be byte-identical. The code uses
// many language features so that much of the compiler runs (binding, lowering of async,
// iterators, pattern matching, records, lambdas, emit of generics and metadata).
using System;
using System.Collections.Generic;
using System.Linq;

namespace CscInput;

public abstract record Shape(string Name)
{
    public abstract double Area { get; }
    public virtual string Describe() => $"{Name} with area {Area:0.00}";
}

public sealed record Circle(double Radius) : Shape("circle")
{
    public override double Area => Math.PI * Radius * Radius;
}

public sealed record Rectangle(double Width, double Height) : Shape("rectangle")
{
    public override double Area => Width * Height;
    public bool IsSquare => Width == Height;
}

public readonly record struct Point(int X, int Y)
{
    public static Point operator +(Point a, Point b) => new(a.X + b.X, a.Y + b.Y);
    public int Manhattan => Math.Abs(X) + Math.Abs(Y);
}

public static class Geometry
{
    public static string Classify(Shape shape) => shape switch
    {
        Circle { Radius: 0 } => "point-like circle",
        Circle c when c.Radius > 10 => "big circle",
        Rectangle { IsSquare: true } r => $"square of side {r.Width}",
        Rectangle r => $"rectangle {r.Width}x{r.Height}",
        _ => shape.Describe(),
    };

    public static IEnumerable<Point> Walk(Point start, int steps)
    {
        var p = start;
        for (int i = 0; i < steps; i++)
        {
            p += (i % 4) switch
            {
                0 => new Point(1, 0),
                1 => new Point(0, 1),
                2 => new Point(-1, 0),
                _ => new Point(0, -1),
            };
            yield return p;
        }
    }

    public static double TotalArea(IEnumerable<Shape> shapes) =>
        shapes.Where(s => s.Area > 0).Select(s => s.Area).DefaultIfEmpty().Sum();

    public static Dictionary<string, List<Shape>> ByName(IEnumerable<Shape> shapes) =>
        shapes.GroupBy(s => s.Name).ToDictionary(g => g.Key, g => g.ToList());
}
