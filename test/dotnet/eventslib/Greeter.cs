// Loaded by the events app into a collectible context, then unloaded.
namespace EventsLib
{
    public static class Greeter
    {
        public static string Greet(string name) => "hello, " + name;
    }
}
