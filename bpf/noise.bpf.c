// placeholder, replaced below
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "noise.h"
char LICENSE[] SEC("license") = "GPL";
