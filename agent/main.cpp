#include <cstdio>
int main() { std::puts("fed-agent"); return 0; }
