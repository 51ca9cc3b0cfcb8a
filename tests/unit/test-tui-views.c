#include <stdio.h>
int main(void){printf("1..0 # SKIP the view goldens come in the next commit\n");return 0;}
