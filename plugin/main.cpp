#include <cstdio>
int main() { std::puts("kubectl-fed"); return 0; }
