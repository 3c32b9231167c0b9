#include "helpers.h"
int main(void){return 0;}
