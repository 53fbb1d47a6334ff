#include <stdio.h>
/* See https://example.com/c */
#define URL "https://define.example/d\x41"
int main(void) { char c = '\''; puts("https://puts.example/p\n"); } // end https://eol.example/e
