/* Compiled once per public header: the header must stand on its own. */
#include CLRIE_HEADER
#include CLRIE_HEADER /* and be safe to include twice */

int main(void)
{
    return 0;
}
