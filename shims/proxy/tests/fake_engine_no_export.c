/* A shared object that loads but is not an engine: it lacks DllGetClassObject. */
__attribute__((visibility("default"))) int not_an_engine(void);

int not_an_engine(void)
{
    return 42;
}
