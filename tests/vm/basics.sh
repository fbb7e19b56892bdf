# The guest's side of the lighter kernel tests (tests/vm/vm_test.cpp, the other Debian 12 kernel
# flavours): what the kernel gives noisewatch, and one run with a hog on the benchmark's CPU.
# Each scenario leaves NAME.status, NAME.err and NAME.json in /out, as in scenarios.sh.
set -u
uname -r >release.txt
noisewatch kernel --format json >kernel.json 2>kernel.err
echo $? >kernel.status
nw_hog 60 1 &
hog=$!
sleep 0.2
noisewatch --cpu 1 --runs 3 --warmup 0 -q --json hog.json -- nw_spin 150 >hog.out 2>hog.err
echo $? >hog.status
kill $hog
