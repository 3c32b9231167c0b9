// A second assembly of test/dotnet/traced: a by-ref-like type that no list of the tracer plugin
// names, so the plugin can tell it is by-ref-like only from its definition here.
namespace TracedLib
{
    public ref struct Cursor
    {
        public int At;
    }
}
