#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Boots a kernel under QEMU (TCG) with noisewatch and its test workloads, runs a script in the
# guest, and brings back what the script wrote. One command, no root mounts, no network:
#   tests/vm/guest.sh --kernel DIR --build BUILD --out OUT [options] SCRIPT
#     --kernel DIR     an unpacked kernel package (tests/vm/kernel.sh prints one)
#     --build BUILD    the build folder: noisewatch, the nw_*/acc_* workloads, arraysum
#     --out OUT        where the guest's /out lands (emptied first), with console.log beside it
#     --smp SPEC       QEMU's -smp (default 2)
#     --cpu MODEL      QEMU's -cpu (default Skylake-Server: the features a lab's x86 server has)
#     --append ARGS    more kernel command line (isolcpus=, nohz_full=, ...)
#     --scratch-intx   the scratch disk on a legacy INTx interrupt (virtio-blk without MSI-X
#                      vectors): a device IRQ the kernel does not manage, whose affinity can move
#                      (virtio-blk's MSI-X queue IRQs are managed: one per CPU, they refuse, EIO)
#     --timeout S      the whole boot, script and power-off (default 600)
#     SCRIPT           run by the guest's sh (busybox) as root, in /out, with PATH=/nw:/bin and
#                      NW_SCRATCH=/scratch, an ext4 file system on a 256 MiB virtio disk of its
#                      own (/dev/vdb: O_DIRECT I/O, a device IRQ); /dev/vdc holds the kernel's
#                      symbols (for a hang's diagnosis)
# Exit status: the script's; 124 when the guest ran out of time; 125 when the guest could not be
# built or booted or said nothing back. The guest's console is OUT/console.log; the script's
# output OUT/script.log.
# How it is put together: the root file system is an initramfs (busybox-static, the binaries and
# the libraries ldd names, the kernel modules for virtio disks), so nothing is mounted on this
# machine. Results come back as a tar stream the guest writes to a raw disk of its own (/dev/vda),
# which tar reads here: no guest file system to mount or to debugfs, no journal to flush.
# TCG, not KVM: on this project's VMs /dev/kvm exists but a KVM guest hangs at boot. TCG time is
# not a real machine's; tests assert counts, or bounds wide enough to say so. Single-threaded TCG
# (both vCPUs on one host thread, ~20 % slower): with a thread per vCPU, 2 guests in ~20 hung
# while the kernel patched its own code to attach a program (one vCPU in text_poke_bp's IPI wait,
# the other trapping again and again on the int3 the first had already removed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel="" build="" out="" smp=2 cpu=Skylake-Server append="" timeout=600 script="" scratch_vectors=""
while (($#)); do
  case "$1" in
    --kernel) kernel=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --smp) smp=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --append) append=$2; shift 2 ;;
    --scratch-intx) scratch_vectors=",vectors=0"; shift ;;
    --timeout) timeout=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "guest.sh: unknown option $1 (see --help)" >&2; exit 125 ;;
    *) script=$1; shift ;;
  esac
done
fail() { echo "guest.sh: $*" >&2; exit 125; }
[ -n "$kernel" ] && [ -n "$build" ] && [ -n "$out" ] && [ -n "$script" ] || fail "needs --kernel, --build, --out and a SCRIPT (see --help)"
[ -f "$script" ] || fail "no script $script"
vmlinuz=$(find "$kernel"/boot -maxdepth 1 -name 'vmlinuz-*' -print -quit 2>/dev/null || true)
[ -n "$vmlinuz" ] || fail "no boot/vmlinuz-* in $kernel (tests/vm/kernel.sh unpacks one)"
release=${vmlinuz##*/vmlinuz-}
[ -x "$build/noisewatch" ] || fail "no $build/noisewatch: build first (scripts/build.sh)"
for tool in qemu-system-x86_64 /bin/busybox mke2fs python3; do
  command -v "$tool" >/dev/null || fail "$tool is missing: scripts/install-deps.sh test installs it"
done

work=$(mktemp -d /tmp/nw-guest.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,nw,out,proc,sys,dev,tmp,etc,scratch,lib/modules/"$release"}

# Binaries, and every library they name, at the paths the dynamic loader looks for them.
bins=("$build/noisewatch")
for f in "$build"/nw_* "$build"/acc_* "$build"/arraysum "$build"/check_waker "$build"/counters_work; do
  [ -f "$f" ] && [ -x "$f" ] && bins+=("$f")
done
cp "${bins[@]}" "$root/nw/"
cp "$here"/../workloads/*.sh "$root/nw/" 2>/dev/null || true
mkdir -p "$root/nw/vm" && cp "$here"/*.sh "$root/nw/vm/"  # the scripts source each other there
libs=$(for b in "${bins[@]}"; do ldd "$b" 2>/dev/null; done | grep -o '/[^ ]*\.so[^ ]*' | sort -u)
# libpfm4 is loaded when an event is first named (src/probes/pfm_events.cpp): ldd does not name it.
# awk reads to the end: an early exit would kill ldconfig with SIGPIPE, and pipefail makes that 141.
libs="$libs $(ldconfig -p | awk '/libpfm\.so\.4 / && !found {print $NF; found = 1}')"
for l in $libs; do
  mkdir -p "$root$(dirname "$l")"
  cp -L "$l" "$root$l"
done
cp /bin/busybox "$root/bin/busybox"

# Kernel modules for the disks (virtio_pci, virtio_blk, ext4) and what they depend on, where the kernel
# has them as modules (the cloud kernel builds them in).
moddir=$kernel/lib/modules/$release
want=(virtio_pci virtio_blk ext4 crc32c_generic)  # ext4 asks for crc32c at mount (a soft dependency)
seen=" "
while ((${#want[@]})); do
  m=${want[0]}
  want=("${want[@]:1}")
  [[ "$seen" == *" $m "* ]] && continue
  seen="$seen$m "
  ko=$(find "$moddir/kernel" -name "$m.ko*" -print -quit)
  [ -n "$ko" ] || continue
  dest=$root/${ko#"$kernel"/}
  mkdir -p "$(dirname "$dest")"
  cp "$ko" "$dest"
  deps=$(strings -a "$ko" | sed -n 's/^depends=//p' | tr ',' ' ')
  for d in $deps; do want+=("$d"); done
done
cp "$moddir"/modules.builtin* "$moddir"/modules.order "$root/lib/modules/$release/" 2>/dev/null || true
cp "$script" "$root/script.sh"

cat >"$root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/nw:/bin NW_SCRATCH=/scratch HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf
# cgroup v1, as lab machines on Debian 12 and RHEL 8 still mount it: the cpu controller for CPU
# quotas (throttling), cpuset for container-like CPU sets.
mount -t tmpfs cgroup /sys/fs/cgroup
for c in cpu,cpuacct cpuset memory; do
  mkdir -p /sys/fs/cgroup/$c && mount -t cgroup -o $c cgroup /sys/fs/cgroup/$c
done
ln -s cpu,cpuacct /sys/fs/cgroup/cpu && ln -s cpu,cpuacct /sys/fs/cgroup/cpuacct  # as systemd links them
depmod 2>/dev/null
modprobe virtio_pci 2>/dev/null
modprobe virtio_blk 2>/dev/null
modprobe crc32c_generic 2>/dev/null
modprobe ext4 2>/dev/null
for i in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && [ -b /dev/vdb ] && break; sleep 0.2; done
mkdir -p /scratch && mount -t ext4 /dev/vdb /scratch
# The kernel's symbols, on a disk of their own at once: a guest that hangs later is still named.
cat /proc/kallsyms >/dev/vdc
sync
cd /out
echo "nw-guest: running the script on $(uname -r)"
sh /script.sh >/out/script.log 2>&1
echo $? >/out/status
echo "nw-guest: script exit $(cat /out/status)"
tar -cf /dev/vda -C /out .
sync
poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null) >"$work/initrd.cpio"

mkdir -p "$out"
find "$out" -mindepth 1 -delete
truncate -s 64M "$work/out.img"
truncate -s 256M "$work/scratch.img"
truncate -s 32M "$work/syms.img"
mke2fs -q -F -t ext4 "$work/scratch.img" >/dev/null
echo "guest.sh: booting $release (TCG, -smp $smp) with $(basename "$script")" >&2
# QEMU's monitor on a socket: a guest that runs out of time is asked where each vCPU is, and the
# addresses are named from the kernel's symbols (/proc/kallsyms, which the guest wrote to a disk
# of its own at boot: Debian's package ships a stub System.map), so that a hang says whether the
# guest was in noisewatch's programs, the kernel, or user space.
qemu-system-x86_64 -machine q35 -accel tcg,thread=single -cpu "$cpu" -smp "$smp" -m 2048 \
  -nographic -no-reboot -monitor unix:"$work/monitor",server,nowait \
  -kernel "$vmlinuz" -initrd "$work/initrd.cpio" \
  -append "console=ttyS0 panic=-1 nokaslr quiet loglevel=5 $append" \
  -drive file="$work/out.img",format=raw,if=none,id=out -device virtio-blk-pci,drive=out \
  -drive file="$work/scratch.img",format=raw,if=none,id=scratch -device virtio-blk-pci,drive=scratch"$scratch_vectors" \
  -drive file="$work/syms.img",format=raw,if=none,id=syms -device virtio-blk-pci,drive=syms \
  </dev/null >"$out/console.log" 2>&1 &
qemu=$!
deadline=$((SECONDS + timeout))
while kill -0 "$qemu" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.5; done
status=0
if kill -0 "$qemu" 2>/dev/null; then
  echo "guest.sh: the guest ran out of time (${timeout} s); where its vCPUs were, then its console's end:" >&2
  python3 - "$work/monitor" "$work/syms.img" >&2 <<'PY' || true
import bisect, re, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(2)
def ask(cmd):
    s.sendall((cmd + "\n").encode())
    time.sleep(1)
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk: break
            out += chunk
    except socket.timeout:
        pass
    return out.decode(errors="replace")
ask("")
regs = ask("info registers -a")
syms = []
for line in open(sys.argv[2], errors="replace"):
    f = line.split()
    if len(f) >= 3 and f[1] in "tTwW" and len(f[0]) == 16:
        syms.append((int(f[0], 16), f[2]))
syms.sort()
addrs = [a for a, _ in syms]
for cpu, rip in re.findall(r"CPU#(\d+).*?RIP=([0-9a-f]+)", regs, re.S):
    r = int(rip, 16)
    k = bisect.bisect_right(addrs, r) - 1
    name = f"{syms[k][1]}+{r - syms[k][0]:#x}" if k >= 0 and r - syms[k][0] < 0x10000 else "(not in the kernel's text at boot: user space or a BPF program)"
    print(f"  vCPU {cpu}: RIP {rip} {name}")
PY
  kill "$qemu" 2>/dev/null
  wait "$qemu" 2>/dev/null
  tail -20 "$out/console.log" >&2
  tar -xf "$work/out.img" -C "$out" 2>/dev/null || true
  exit 124
fi
wait "$qemu" || status=$?
if ! tar -xf "$work/out.img" -C "$out" 2>/dev/null || [ ! -f "$out/status" ]; then
  echo "guest.sh: the guest said nothing back (qemu exit $status); its console's end:" >&2
  tail -30 "$out/console.log" >&2
  exit 125
fi
exit "$(cat "$out/status")"
